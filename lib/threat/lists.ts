/**
 * Offline threat lists in their common public formats, parsed into one lookup. Pure.
 *
 * - URLhaus CSV dumps (`# comments`, quoted columns id, dateadded, url, url_status, ...): listed
 *   URLs match exactly (scheme and host lowercased). URLhaus lists URLs on shared hosts
 *   (github.com, drive.google.com), so a URL never condemns its whole host.
 * - Host lists, one host per line, or hosts-file lines (`0.0.0.0 bad.example`): the host and its
 *   subdomains match.
 */
export interface ThreatLists {
  urls: Set<string>;
  hosts: Set<string>;
}

export function emptyLists(): ThreatLists {
  return { urls: new Set(), hosts: new Set() };
}

function normalUrl(raw: string): string | undefined {
  try {
    const url = new URL(raw.trim());
    url.hash = '';
    return url.href;
  } catch {
    return undefined;
  }
}

/** Adds one file's entries; the format is told by its content (a CSV with URLs, or hosts). */
export function addListFile(lists: ThreatLists, text: string): void {
  for (const line of text.split(/\r?\n/)) {
    const trimmed = line.trim();
    if (!trimmed || trimmed.startsWith('#') || trimmed.startsWith('!')) continue;
    if (trimmed.startsWith('"')) {
      const cells = [...trimmed.matchAll(/"((?:[^"]|"")*)"/g)].map((m) => m[1]!.replaceAll('""', '"'));
      const url = cells.map(normalUrl).find((u) => u && /^https?:/.test(u));
      if (url) lists.urls.add(url);
      continue;
    }
    if (/^https?:\/\//i.test(trimmed)) {
      const url = normalUrl(trimmed);
      if (url) lists.urls.add(url);
      continue;
    }
    const host = trimmed.split(/\s+/).filter((part) => !/^(0\.0\.0\.0|127\.0\.0\.1|::1?)$/.test(part))[0];
    if (host && /^[a-z0-9.-]+$/i.test(host)) lists.hosts.add(host.toLowerCase().replace(/\.$/, ''));
  }
}

/** Which list entry the URL hits, if any. */
export function listHit(lists: ThreatLists, url: string): string | undefined {
  const normal = normalUrl(url);
  if (normal && lists.urls.has(normal)) return `url ${normal}`;
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase().replace(/\.$/, '');
  } catch {
    return undefined;
  }
  const labels = host.split('.');
  for (let i = 0; i < labels.length - 1; i++) {
    const candidate = labels.slice(i).join('.');
    if (lists.hosts.has(candidate)) return `host ${candidate}`;
  }
  return undefined;
}
