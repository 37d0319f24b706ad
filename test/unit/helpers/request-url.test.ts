/** test/helpers/request-url.ts: the test servers read any request path a fuzzed crawl sends them. */
import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { requestUrl } from '../../helpers/request-url.js';

function request(url: string): http.IncomingMessage {
  return Object.assign(Object.create(http.IncomingMessage.prototype) as http.IncomingMessage, { url });
}

describe('requestUrl', () => {
  it('reads a path starting with // as a path, where new URL(path, base) throws on it', () => {
    const fuzzed = '//%EF%BF%BF]J';
    expect(() => new URL(fuzzed, 'http://site.localhost')).toThrow();
    expect(requestUrl(request(fuzzed), 'site.localhost')?.pathname).toBe(fuzzed);
    expect(requestUrl(request('//other.example/a?b=1'))?.pathname).toBe('//other.example/a');
  });

  it('keeps the query', () => {
    expect(requestUrl(request('/echo?q=hi'), 'fixture')?.searchParams.get('q')).toBe('hi');
  });

  it('gives undefined for a request no URL can hold, so the server answers 400', () => {
    expect(requestUrl(request('/a'), 'bad host')).toBeUndefined();
  });
});
