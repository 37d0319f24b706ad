/** The classifiers: threat list files reloaded when they change, and the Web Risk adapter's mapping. */
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ClassifierUnavailable, createRiskClassifier } from '../../../activities/threat/classifier.js';

const dir = mkdtempSync(join(tmpdir(), 'trawl-threat-'));
let server: http.Server | undefined;

afterAll(async () => {
  if (server) await new Promise((resolve) => server!.close(resolve));
});

describe('builtin classifier', () => {
  it('scores list hits 100, reloads a list file that changed, and falls back to the heuristics', async () => {
    const file = join(dir, 'hosts.txt');
    writeFileSync(file, 'malware.example\n');
    const classifier = createRiskClassifier({ classifier: 'builtin', listFiles: [file, join(dir, 'missing.csv')], cacheSeconds: 0 });
    expect(await classifier.classify('https://cdn.malware.example/a.js')).toMatchObject({ score: 100 });
    expect((await classifier.classify('https://fresh.example/')).score).toBe(0);
    writeFileSync(file, 'malware.example\nfresh.example\n');
    await new Promise((r) => setTimeout(r, 1_100));
    expect((await classifier.classify('https://fresh.example/')).score).toBe(100);
    expect((await classifier.classify('http://203.0.113.9/')).score).toBe(40);
  });
});

describe('webrisk classifier', () => {
  it('maps any threat type to 100 and none to 0, and an error answer to ClassifierUnavailable', async () => {
    const asked: URLSearchParams[] = [];
    server = http.createServer((req, res) => {
      const params = new URL(req.url ?? '/', 'http://x').searchParams;
      asked.push(params);
      if (params.get('key') !== 'k') return res.writeHead(403).end();
      const threat = params.get('uri')!.includes('bad') ? { threat: { threatTypes: ['SOCIAL_ENGINEERING'], expireTime: '2030-01-01T00:00:00Z' } } : {};
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(threat));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/uris:search`;
    const classifier = createRiskClassifier({ classifier: 'webrisk', classifierUrl: url, webRiskApiKey: 'k', listFiles: [], cacheSeconds: 60 });
    expect(await classifier.classify('https://bad.example/')).toEqual({ score: 100, categories: ['SOCIAL_ENGINEERING'] });
    expect(await classifier.classify('https://good.example/')).toEqual({ score: 0, categories: [] });
    expect(asked[0]!.getAll('threatTypes')).toEqual(['MALWARE', 'SOCIAL_ENGINEERING', 'UNWANTED_SOFTWARE']);
    // Cached: a second look asks nothing.
    await classifier.classify('https://bad.example/');
    expect(asked).toHaveLength(2);
    const wrongKey = createRiskClassifier({ classifier: 'webrisk', classifierUrl: url, webRiskApiKey: 'nope', listFiles: [], cacheSeconds: 0 });
    await expect(wrongKey.classify('https://x.example/')).rejects.toBeInstanceOf(ClassifierUnavailable);
  });
});

describe('a classifier whose caller stops', () => {
  it('gives up at once with the caller\'s reason, not as an unavailable classifier', async () => {
    server = http.createServer(() => undefined);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/score`;
    const classifier = createRiskClassifier({ classifier: 'http', classifierUrl: url, listFiles: [], cacheSeconds: 0 });
    const stop = new AbortController();
    const asked = classifier.classify('https://slow.example/', stop.signal);
    stop.abort(new Error('job cancelled'));
    await expect(asked).rejects.toThrow('job cancelled');
  });
});
