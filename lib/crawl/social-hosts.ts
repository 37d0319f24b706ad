/**
 * Social networks and share links: pages on them are login walls or feeds that never belong to a
 * site crawl, and every site links to them, so with allowExternalLinks they would swamp the crawl.
 */
const SOCIAL_DOMAINS: readonly string[] = [
  'facebook.com', 'fb.com', 'fb.me', 'messenger.com',
  'twitter.com', 'x.com', 't.co',
  'instagram.com', 'threads.net',
  'linkedin.com', 'lnkd.in',
  'tiktok.com',
  'youtube.com', 'youtu.be',
  'pinterest.com', 'pin.it',
  'snapchat.com',
  'reddit.com', 'redd.it',
  'tumblr.com',
  'whatsapp.com', 'wa.me',
  't.me', 'telegram.me', 'telegram.org',
  'discord.com', 'discord.gg',
  'vk.com', 'weibo.com',
  'bsky.app', 'mastodon.social',
];

/** Whether the host is a social network or one of its subdomains (m., www., …). */
export function isSocialHost(hostname: string): boolean {
  return SOCIAL_DOMAINS.some((domain) => hostname === domain || hostname.endsWith(`.${domain}`));
}
