/** The flags the pool launches Chromium with. */
import { WEBRTC_POLICY_ARG } from './webrtc-policy.js';

/**
 * The features Playwright disables at launch (its chromiumSwitches.ts). Chromium honours only the
 * last `--disable-features`, so ours would drop these unless it repeats them;
 * test/integration/browser/chromium-args.test.ts fails when a Playwright upgrade adds one.
 */
const PLAYWRIGHT_DISABLED_FEATURES: readonly string[] = [
  'AimEnabled',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsFirstBalancedModeAutoEnable',
  'HttpsUpgrades',
  'LensOverlay',
  'MediaRouter',
  'NetworkTimeServiceQuerying',
  'OptimizationHints',
  'PaintHolding',
  'PreconnectToSearch',
  'TcpPortRandomizationWin',
  'ThirdPartyStoragePartitioning',
  'msEdgeUpdateLaunchServicesPreferredVersion',
  'msForceBrowserSignIn',
];

/**
 * Work Chromium does for each new context that a page alone in its context never uses. With a
 * context per page, each costs about as much CPU as rendering a typical page, or more:
 * - headless Chromium gives every context a window, whose omnibox loads its WebUI popups
 *   (chrome://omnibox-popup.top-chrome/) in a renderer of their own: 100–450 ms per page;
 * - after a navigation Chromium starts a spare renderer for the context's next one, which never
 *   comes: about 90 ms per page with four pages at once.
 */
const PER_CONTEXT_WASTE: readonly string[] = ['WebUIOmniboxPopup', 'WebUIOmniboxAimPopup', 'SpareRendererForSitePerProcess'];

/** Launch flags; the benchmark peer uses the same ones so both sides render with one browser. */
export const CHROMIUM_ARGS: readonly string[] = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  // Containers often mount a 64 MB /dev/shm, which Chromium outgrows on large pages.
  '--disable-dev-shm-usage',
  // WebRTC only through the proxy, so its UDP cannot bypass the guard (browser/webrtc-policy.ts).
  WEBRTC_POLICY_ARG,
  // Otherwise navigator.webdriver is true in every page under automation: the first check of
  // most bot detection, and a plain script away for any site.
  '--disable-blink-features=AutomationControlled',
  `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, ...PER_CONTEXT_WASTE].join(',')}`,
];
