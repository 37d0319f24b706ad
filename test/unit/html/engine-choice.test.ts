import { describe, expect, it } from 'vitest';
import { needsJavaScript } from '../../../scraper/engine-choice.js';

const article = `<p>${'Server-rendered article text that a reader can read without any script. '.repeat(30)}</p>`;
const asksForJs = '<noscript>Please enable JavaScript to view the comments powered by Disqus.</noscript>';

describe('needsJavaScript', () => {
  it('leaves a server-rendered article in plain HTTP although a widget asks for JavaScript', () => {
    expect(needsJavaScript(`<html><body>${article}${asksForJs}<script src="/embed.js"></script></body></html>`)).toBe(false);
  });

  it('renders a page whose only content is a request for JavaScript, an empty app root, or almost no text', () => {
    expect(needsJavaScript(`<html><body><p>Welcome to our shop.</p>${'<p>Menu item</p>'.repeat(20)}${asksForJs}<script></script></body></html>`)).toBe(true);
    expect(needsJavaScript('<html><body><div id="root"></div><script src="/app.js"></script></body></html>')).toBe(true);
    expect(needsJavaScript('<html><body><p>Loading</p><script src="/app.js"></script></body></html>')).toBe(true);
  });

  it('never renders a page without scripts', () => {
    expect(needsJavaScript(`<html><body>${asksForJs}</body></html>`)).toBe(false);
  });
});
