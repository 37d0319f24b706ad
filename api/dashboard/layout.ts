/** The page frame every dashboard page shares: head, navigation, the AUTH=none banner, the flash. */
import { html, type Html } from './html.js';
import type { Viewer } from './viewer.js';

export interface PageFrame {
  base: string;
  title: string;
  viewer: Viewer | null;
  /** Auth is off (AUTH=none): say so on every page. */
  authOff: boolean;
  flash?: string | null;
  /** Which navigation entry is current. */
  section?: 'teams' | 'jobs' | 'health';
}

export function page(frame: PageFrame, body: Html): Html {
  const { base, viewer } = frame;
  const nav = (href: string, label: string, section: PageFrame['section']) =>
    html`<a href="${base}${href}"${frame.section === section ? html` aria-current="page"` : ''}>${label}</a>`;
  return html`<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${frame.title} · Trawl</title>
  <link rel="icon" href="data:,">
  <link rel="stylesheet" href="${base}/assets/dashboard.css">
  <script src="${base}/assets/dashboard.js" defer></script>
</head>
<body>
  ${frame.authOff ? html`<div class="banner" role="alert">Authentication is off (AUTH=none): anyone who can reach this address can use the API and this dashboard.</div>` : ''}
  <header class="top">
    <a class="brand" href="${base}/">Trawl</a>
    ${
      viewer
        ? html`<nav>${nav('/teams', viewer.operator ? 'Teams' : 'Team', 'teams')}${nav('/jobs', 'Jobs', 'jobs')}${nav('/health', 'Health', 'health')}</nav>
    <div class="who">
      <span>${viewer.operator ? 'operator' : viewer.teamName}${viewer.keyPrefix ? html` · <code>${viewer.keyPrefix}…</code>` : ''}</span>
      ${viewer.keyPrefix ? html`<form method="post" action="${base}/sign-out"><input type="hidden" name="_csrf" value="${viewer.csrfToken}"><button class="link">Sign out</button></form>` : ''}
    </div>`
        : ''
    }
  </header>
  <main>
    ${frame.flash ? html`<p class="flash" role="status">${frame.flash}</p>` : ''}
    ${body}
  </main>
</body>
</html>`;
}

/** A hidden CSRF field for a state-changing form. */
export function csrfField(viewer: Viewer): Html {
  return html`<input type="hidden" name="_csrf" value="${viewer.csrfToken}">`;
}
