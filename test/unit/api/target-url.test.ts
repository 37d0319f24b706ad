/** Target URLs: what DNS could answer, or a 400; found by the route fuzz as a 502 for `url: "\""`. */
import { describe, expect, it } from 'vitest';
import { absoluteHttpUrl } from '../../../api/schemas/url.js';

describe('absoluteHttpUrl', () => {
  it.each([
    ['example.com', 'http://example.com/'],
    ['http://site.localhost:3000/x', 'http://site.localhost:3000/x'],
    ['http://[::1]:8080/', 'http://[::1]:8080/'],
    ['https://bücher.example/', 'https://xn--bcher-kva.example/'],
    ['a_b.example.com', 'http://a_b.example.com/'],
  ])('accepts %s', (raw, url) => {
    expect(absoluteHttpUrl(raw)).toBe(url);
  });

  it.each([['"'], ['{x}'], ['a..b'], ['http://-a.com/'], [`${'x'.repeat(64)}.com`], ['javascript:alert(1)']])('refuses %s', (raw) => {
    expect(absoluteHttpUrl(raw)).toBeUndefined();
  });
});
