import { describe, expect, it } from 'vitest';
import { DESKTOP_USER_AGENT, MOBILE_USER_AGENT } from '../../../scraper/user-agent.js';

describe('user agents', () => {
  it('look like reduced desktop Windows and mobile Android Chrome strings of the same version', () => {
    const webkit = String.raw`AppleWebKit/537\.36 \(KHTML, like Gecko\) Chrome/(\d+)\.0\.0\.0`;
    const desktop = new RegExp(String.raw`^Mozilla/5\.0 \(Windows NT 10\.0; Win64; x64\) ${webkit} Safari/537\.36$`);
    const mobile = new RegExp(String.raw`^Mozilla/5\.0 \(Linux; Android 10; K\) ${webkit} Mobile Safari/537\.36$`);
    const desktopMajor = desktop.exec(DESKTOP_USER_AGENT)?.[1];
    const mobileMajor = mobile.exec(MOBILE_USER_AGENT)?.[1];

    expect(desktopMajor).toBeDefined();
    expect(mobileMajor).toBe(desktopMajor);
  });
});
