/**
 * The browser identity both engines present. The Chrome major version follows the Chromium the
 * worker runs by default (Debian's /usr/bin/chromium, which tracks stable), so a site sees the
 * same browser whichever engine fetched the page; bump it with that package. Reduced UA strings,
 * as Chrome itself has sent since v110.
 */
const CHROME_MAJOR = 156;

export const DESKTOP_USER_AGENT =
  `Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) ` +
  `Chrome/${CHROME_MAJOR}.0.0.0 Safari/537.36`;

export const MOBILE_USER_AGENT =
  `Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) ` +
  `Chrome/${CHROME_MAJOR}.0.0.0 Mobile Safari/537.36`;
