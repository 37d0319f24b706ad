/** Actions that capture the page as it is at that point: screenshot, pdf. */
import type { Page } from '../../browser/browser-pool.js';
import type { CapturedMedia } from '../types.js';
import type { ActionContext, ActionOf } from './context.js';

/** PNG, or JPEG when a quality is given (quality means nothing to PNG). Shared with the screenshot format. */
export async function takeScreenshot(
  page: Page,
  { fullPage, quality }: { fullPage: boolean; quality?: number },
  timeoutMs: number,
): Promise<CapturedMedia> {
  const jpeg = quality !== undefined;
  return {
    data: await page.screenshot({ type: jpeg ? 'jpeg' : 'png', quality, fullPage, timeout: timeoutMs }),
    mimeType: jpeg ? 'image/jpeg' : 'image/png',
  };
}

/** A viewport given with the action applies to this capture only; later actions see the page as before. */
export async function screenshot(ctx: ActionContext, action: ActionOf<'screenshot'>): Promise<CapturedMedia> {
  const previous = action.viewport && ctx.page.viewportSize();
  if (action.viewport) await ctx.page.setViewportSize(action.viewport);
  try {
    return await takeScreenshot(ctx.page, action, ctx.remainingMs());
  } finally {
    if (previous) await ctx.page.setViewportSize(previous);
  }
}

/** Playwright knows every format the schema allows (A0–A6, Letter, Legal, Tabloid, Ledger). */
export async function pdf(ctx: ActionContext, { format, landscape, scale }: ActionOf<'pdf'>): Promise<CapturedMedia> {
  // Backgrounds as on screen: the PDF records the page, it is not a printer-friendly version of it.
  const data = await ctx.page.pdf({ format, landscape, scale, printBackground: true });
  return { data, mimeType: 'application/pdf' };
}
