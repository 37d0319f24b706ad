/**
 * A team's monitors on the dashboard: the list on its team page, and a page per monitor with its
 * schedule and, for an adaptive one, each URL's pace and the evidence behind it (the same
 * figures as GET /v2/monitor/{id}, from api/monitor/view.ts).
 */
import type { MonitorRow } from '../../../db/repositories/monitors.js';
import type { ResolvedSchedule } from '../../../lib/monitor/schedule.js';
import { html, type Html } from '../html.js';

const minutes = (ms: number) => (ms >= 3_600_000 ? `${Math.round((ms / 3_600_000) * 10) / 10} h` : `${Math.round(ms / 60_000)} min`);

function scheduleText(schedule: ResolvedSchedule): string {
  if (schedule.adaptive) return `adaptive, every ${minutes(schedule.adaptive.minIntervalMs)} to ${minutes(schedule.adaptive.maxIntervalMs)}`;
  return schedule.text ?? `${schedule.cron} (${schedule.timezone})`;
}

export function monitorsSection(base: string, monitors: readonly MonitorRow[]): Html {
  if (monitors.length === 0) return html``;
  return html`<section>
  <h2>Monitors</h2>
  <div class="scroll"><table class="list" data-testid="monitors">
    <thead><tr><th>name</th><th>status</th><th>schedule</th><th>last run</th></tr></thead>
    <tbody>${monitors.map(
      (m) =>
        html`<tr><td><a href="${base}/monitors/${m.id}">${m.name}</a></td><td>${m.status}</td><td>${scheduleText(m.schedule as unknown as ResolvedSchedule)}</td><td>${
          m.last_run_at?.toISOString().slice(0, 16).replace('T', ' ') ?? 'never'
        }</td></tr>`,
    )}</tbody>
  </table></div>
</section>`;
}

export function monitorPage(base: string, monitor: MonitorRow, teamName: string, urls: Record<string, unknown>[] | undefined): Html {
  const schedule = monitor.schedule as unknown as ResolvedSchedule;
  return html`<h1>${monitor.name}</h1>
<p>Monitor of <a href="${base}/teams/${monitor.team_id}">${teamName}</a> · ${monitor.status} · ${scheduleText(schedule)}</p>
${
  urls
    ? html`<section>
  <h2>Each URL's pace</h2>
  <p class="muted">Checked when due: every (span + 1) / (changes + 1) checks, halved after a change, within the schedule's bounds.</p>
  <div class="scroll"><table class="list" data-testid="adaptive-urls">
    <thead><tr><th>url</th><th>interval</th><th>changes / day</th><th>checks</th><th>changes</th><th>last checked</th><th>next check</th></tr></thead>
    <tbody>${urls.map(
      (u) =>
        html`<tr><td>${String(u.url)}</td><td>${minutes(Number(u.estimatedIntervalMs))}</td><td>${Number(u.changesPerDay).toFixed(2)}</td><td>${String(u.checks)}</td><td>${String(
          u.changes,
        )}</td><td>${typeof u.lastCheckedAt === 'string' ? u.lastCheckedAt.slice(0, 16).replace('T', ' ') : 'never'}</td><td>${u.dueAtNextCheck ? 'fetches it' : 'skips it'}</td></tr>`,
    )}</tbody>
  </table></div>
</section>`
    : html`<p class="muted">Every URL of every target is checked at every run.</p>`
}`;
}
