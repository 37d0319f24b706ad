/** Threat protection's pure rules: merging a request's override, list matching and the decision order. */
import { describe, expect, it } from 'vitest';
import { applyOverride, canonicalHost, decideLocally, decideWithScore, DEFAULT_THREAT_POLICY, matchesDomain, protects, type ThreatPolicy } from '../../../lib/threat/policy.js';

const team: ThreatPolicy = {
  ...DEFAULT_THREAT_POLICY,
  enabled: true,
  riskScoreThreshold: 60,
  blacklist: ['evil.example'],
  blockedTlds: ['zip'],
};

describe('applyOverride', () => {
  it('replaces the fields given and keeps the team’s others', () => {
    expect(applyOverride(team, { riskScoreThreshold: 90, whitelist: ['ok.example'] })).toEqual({ ...team, riskScoreThreshold: 90, whitelist: ['ok.example'] });
    // A list given replaces the team's list, it does not extend it.
    expect(applyOverride(team, { blacklist: ['other.example'] })).toMatchObject({ blacklist: ['other.example'], blockedTlds: ['zip'] });
    expect(applyOverride(team, undefined)).toBe(team);
  });

  it('refuses a team without the feature, one that disabled overrides, and mode off when enforced', () => {
    expect(applyOverride({ ...team, enabled: false }, { mode: 'normal' })).toBe('not-enabled');
    expect(applyOverride({ ...team, allowRequestOverrides: false }, { riskScoreThreshold: 10 })).toBe('overrides-disabled');
    expect(applyOverride({ ...team, enforced: true }, { mode: 'off' })).toBe('enforced');
    expect(applyOverride({ ...team, enforced: true }, { mode: 'normal', failurePolicy: 'open' })).toMatchObject({ mode: 'normal', failurePolicy: 'open' });
  });
});

describe('matchesDomain', () => {
  it.each([
    ['evil.example', 'evil.example', true],
    ['a.b.evil.example', 'evil.example', true],
    ['notevil.example', 'evil.example', false],
    ['evil.example', 'EVIL.example.', true],
    ['x.ads.example', '*.ads.example', true],
    ['ads.example', '*.ads.example', false],
    ['login.paypal-secure.com', 'paypal-*.com', true],
    ['paypal-secure.com.evil.net', 'paypal-*.com', false],
    ['shop.example.co.uk', 'example.*', true],
    ['shop.example.co.uk', 'shop.*.com', false],
    ['shop.example.co.uk', 'example.co.*', true],
  ])('%s against %s: %s', (host, entry, expected) => {
    expect(matchesDomain(host, entry)).toBe(expected);
  });
});

describe('decideLocally and decideWithScore', () => {
  it('lets the whitelist win over the blacklist and blocked TLDs', () => {
    const policy = { ...team, whitelist: ['evil.example', 'file.zip'] };
    expect(decideLocally(policy, 'https://www.evil.example/')).toMatchObject({ allowed: true, rule: 'whitelist' });
    expect(decideLocally(policy, 'https://file.zip/')).toMatchObject({ allowed: true, rule: 'whitelist' });
    expect(decideLocally(team, 'https://www.evil.example/')).toMatchObject({ allowed: false, rule: 'blacklist', host: 'www.evil.example' });
    expect(decideLocally(team, 'https://archive.zip/')).toMatchObject({ allowed: false, rule: 'blockedTld' });
  });

  it('leaves the rest to the classifier in normal mode, and allows it in mode off', () => {
    expect(decideLocally(team, 'https://fine.example/')).toBeUndefined();
    expect(decideLocally({ ...team, mode: 'off' }, 'https://fine.example/')).toMatchObject({ allowed: true, rule: 'default' });
    expect(decideLocally({ ...team, mode: 'off' }, 'https://evil.example/')).toMatchObject({ allowed: false, rule: 'blacklist' });
  });

  it('blocks at or above the threshold', () => {
    expect(decideWithScore(team, 'h', { score: 60 })).toEqual({ allowed: false, rule: 'riskScore', score: 60, host: 'h' });
    expect(decideWithScore(team, 'h', { score: 59 })).toEqual({ allowed: true, rule: 'default', score: 59, host: 'h' });
  });

  it('follows the failure policy when the classifier cannot answer', () => {
    expect(decideWithScore(team, 'h', { error: 'down' })).toMatchObject({ allowed: false, rule: 'classifierUnavailable', classifierError: 'down' });
    expect(decideWithScore({ ...team, failurePolicy: 'open' }, 'h', { error: 'down' })).toMatchObject({ allowed: true, rule: 'classifierUnavailable' });
  });

  it('sees hosts as the fetch does', () => {
    expect(canonicalHost('http://3279880203/')).toBe('195.127.0.11');
    expect(canonicalHost('https://Evil.Example./x')).toBe('evil.example');
    expect(canonicalHost('http://[::1]:8080/')).toBe('::1');
    expect(decideLocally({ ...team, blacklist: ['195.127.0.11'] }, 'http://3279880203/')).toMatchObject({ allowed: false, rule: 'blacklist' });
  });

  it('checks nothing for a team without the feature or with nothing to check', () => {
    expect(protects(DEFAULT_THREAT_POLICY)).toBe(false);
    expect(protects({ ...team, mode: 'off', blacklist: [], blockedTlds: [] })).toBe(false);
    expect(protects({ ...team, mode: 'off' })).toBe(true);
  });
});
