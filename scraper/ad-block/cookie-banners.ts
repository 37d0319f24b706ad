/**
 * Cookie banners, dismissed the way DuckDuckGo's browsers do it: @duckduckgo/autoconsent, a
 * maintained rule set for several hundred consent managers (OneTrust, Cookiebot, Didomi,
 * Quantcast, ...) that ships in its npm package. Its content script finds the banner, hides it
 * at once and then rejects consent, so the banner leaves the DOM (and the markdown) as well as
 * the screenshot. Hiding with cosmetic filters would only clean the screenshot.
 *
 * The script runs in every frame and asks Node for its rules (`init`) and, for some managers,
 * to evaluate a snippet in the page (`eval`); both are answered through `frame.evaluate`. This is
 * best effort within the scrape's settle time: a banner that shows up late may still be there.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { filterCompactRules } from '@duckduckgo/autoconsent';
import type { ContentBlocker, Frame } from '../../worker/browser/browser-pool.js';

const require = createRequire(import.meta.url);

/** The package exports only its browser API, so its Playwright content script is found next to it. */
const CONTENT_SCRIPT = readFileSync(
  join(dirname(require.resolve('@duckduckgo/autoconsent')), 'autoconsent.playwright.js'),
  'utf8',
);

type CompactRules = Parameters<typeof filterCompactRules>[0];
const COMPACT_RULES = require('@duckduckgo/autoconsent/rules/compact-rules.json') as CompactRules;

/** The content script calls this global; the name is fixed in its bundle. */
const BINDING_NAME = 'autoconsentSendMessage';

const CONFIG = {
  enabled: true,
  autoAction: 'optOut',
  disabledCmps: [],
  // Hide known banners as soon as the document starts, before the rules have run.
  enablePrehide: true,
  prehideTimeout: 2000,
  enableCosmeticRules: true,
  enableGeneratedRules: true,
  detectRetries: 20,
  // Eval rules come back to Node as messages instead of running through the page's own eval,
  // which a Content-Security-Policy may forbid.
  isMainWorld: false,
  // Heuristics click on whatever looks like a banner button; only named rules act here.
  enableHeuristicDetection: false,
  enablePopupMutationObserver: false,
  visualTest: false,
  logs: { lifecycle: false, rulesteps: false, detectionsteps: false, evals: false, errors: false, messages: false, waits: false },
};

interface ContentScriptMessage {
  type?: unknown;
  id?: unknown;
  code?: unknown;
}

function deliver(frame: Frame, message: object): Promise<unknown> {
  return frame.evaluate(`window.autoconsentReceiveMessage(${JSON.stringify(message)})`);
}

async function handle(frame: Frame, raw: unknown): Promise<void> {
  const message = (raw ?? {}) as ContentScriptMessage;
  try {
    if (message.type === 'init') {
      const rules = { compact: filterCompactRules(COMPACT_RULES, { url: frame.url(), mainFrame: frame.parentFrame() === null }) };
      await deliver(frame, { type: 'initResp', config: CONFIG, rules });
    } else if (message.type === 'eval' && typeof message.code === 'string' && typeof message.id === 'string') {
      // The snippet runs in the page that asked for it, with no more power than the page has.
      const result: unknown = await frame.evaluate(message.code).catch(() => false);
      await deliver(frame, { type: 'evalResp', id: message.id, result });
    }
    // The other messages (cmpDetected, optOutResult, autoconsentDone, ...) only report progress.
  } catch {
    // The frame navigated or closed meanwhile: nothing is left to dismiss in it.
  }
}

/** The in-page part of the content blocker. */
export const cookieBannerHandler: Pick<ContentBlocker, 'initScript' | 'binding'> = {
  initScript: CONTENT_SCRIPT,
  binding: { name: BINDING_NAME, handle },
};
