/** The built-in scorer's heuristics, each example with the score it gets (README quotes these). */
import { describe, expect, it } from 'vitest';
import { scoreUrl } from '../../../lib/threat/heuristics.js';
import { addListFile, emptyLists, listHit } from '../../../lib/threat/lists.js';

const cases: [string, number, string[]][] = [
  ['https://www.wikipedia.org/wiki/Tardigrade', 0, []],
  ['https://github.com/login', 15, ['baitPath']],
  ['http://203.0.113.7/invoice.exe', 40, ['ipHost']],
  ['http://3279880203/', 40, ['ipHost']],
  ['https://paypa1.com/', 50, ['lookalike']],
  ['https://g00gle.com/', 50, ['lookalike']],
  ['https://micros0ft-support.xyz/', 75, ['lookalike', 'riskyTld']],
  ['https://xn--pypal-4ve.com/', 110, ['punycode', 'mixedScript', 'lookalike']],
  ['https://paypal.com.account-check.net/signin', 60, ['brandOnOtherSite', 'baitPath']],
  ['https://a.b.c.d.e.example.com/', 20, ['manySubdomains']],
  ['https://free-gift-card-now.top/', 35, ['riskyTld', 'manyHyphens']],
  ['https://user@evil.example/', 30, ['atInUrl']],
];

describe('scoreUrl', () => {
  it.each(cases)('%s scores %i', (url, expected, signals) => {
    const result = scoreUrl(url);
    expect(result.signals.map((s) => s.signal).sort()).toEqual([...signals].sort());
    expect(result.score).toBe(Math.min(100, expected));
  });
});

describe('threat lists', () => {
  it('reads URLhaus CSV rows as exact URLs and host lists (plain and hosts-file) as hosts with subdomains', () => {
    const lists = emptyLists();
    addListFile(lists, '# URLhaus\n"1","2026-11-01 10:00:00","http://shared.example/files/bad.exe","online","","malware_download","exe","https://urlhaus.abuse.ch/url/1/","x"\n');
    addListFile(lists, '# hosts\nmalware.example\n0.0.0.0 tracker.example\n');
    expect(listHit(lists, 'http://shared.example/files/bad.exe')).toBe('url http://shared.example/files/bad.exe');
    expect(listHit(lists, 'http://shared.example/files/good.pdf')).toBeUndefined();
    expect(listHit(lists, 'https://cdn.malware.example/x')).toBe('host malware.example');
    expect(listHit(lists, 'https://tracker.example/')).toBe('host tracker.example');
    expect(listHit(lists, 'https://notmalware.example/')).toBeUndefined();
  });
});
