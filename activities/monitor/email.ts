/**
 * Monitors' email notifications, through the SMTP server of SMTP_URL (nodemailer). One email per
 * check that found something (new, changed or removed pages), to the monitor's recipients: the
 * counts in the subject, each page with its status, the goal's verdict when it was judged, and
 * the diff when `includeDiffs` asks for it. The Message-ID is the check's, so a retried send that
 * did reach the server is one message to mail clients.
 */
import { findCheck, findMonitor, listCheckPages } from '../../db/repositories/monitors.js';
import { NonRetryablePageError } from '../../lib/errors.js';
import { emailNotificationOf } from '../../lib/monitor/plan.js';
import type { ActivityDeps } from '../deps.js';

/** Pages listed in one email; the rest are counted. */
const MAX_LISTED = 50;
const MAX_DIFF_CHARS = 2_000;

export function createMonitorEmailActivity(deps: ActivityDeps) {
  return async function sendMonitorEmail(input: { monitorId: string; checkId: string }): Promise<{ sent: boolean }> {
    if (!deps.mailer) throw new NonRetryablePageError('UNSUPPORTED_OPTION', 'This worker has no SMTP_URL for email notifications');
    const monitor = await findMonitor(deps.db, input.monitorId);
    const email = emailNotificationOf(monitor?.notification);
    const check = monitor && email && (await findCheck(deps.db, monitor.id, input.checkId));
    if (!monitor || !email || !check) return { sent: false };
    const summary = check.summary;
    const found = (['changed', 'new', 'removed'] as const).filter((s) => (summary[s] ?? 0) > 0);
    if (found.length === 0) return { sent: false };

    const pages = (await listCheckPages(deps.db, check.id, { limit: MAX_LISTED * 4, skip: 0 })).filter((p) => p.status !== 'same' && p.status !== 'error').slice(0, MAX_LISTED);
    const lines = pages.flatMap((p) => {
      const judgment = p.judgment as { meaningful?: boolean; reason?: string } | null;
      const diff = (p.diff as { text?: string } | null)?.text;
      return [
        `${p.status.toUpperCase()}  ${p.url}`,
        ...(judgment?.reason ? [`  ${judgment.meaningful ? 'Matters' : 'Does not matter'} for the goal: ${judgment.reason}`] : []),
        ...(email.includeDiffs && diff ? [diff.slice(0, MAX_DIFF_CHARS).replace(/^/gm, '    ')] : []),
      ];
    });
    const listed = (summary.changed ?? 0) + (summary.new ?? 0) + (summary.removed ?? 0);
    const text = [
      `Monitor "${monitor.name}" checked its targets${monitor.goal ? ` for: ${monitor.goal}` : ''}.`,
      '',
      ...lines,
      ...(listed > pages.length ? ['', `…and ${listed - pages.length} more.`] : []),
      '',
      `Check ${check.id} of monitor ${monitor.id}: ${summary.totalPages ?? 0} pages, ${summary.same ?? 0} unchanged, ${summary.error ?? 0} errors.`,
    ].join('\n');
    await deps.mailer.send({
      to: email.recipients,
      subject: `[Trawl] ${monitor.name}: ${found.map((s) => `${summary[s]} ${s}`).join(', ')}`,
      text,
      messageId: `<check-${check.id}@trawl.monitor>`,
    });
    return { sent: true };
  };
}
