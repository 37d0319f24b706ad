/** The job list and a job's page: crawl progress, errors and robots-blocked URLs; an agent run's trace. */
import type { FailedDocument } from '../../../db/repositories/crawl-read.js';
import type { JobListRow, ListedKind } from '../../../db/repositories/job-list.js';
import { JOB_KINDS, JOB_STATUSES, type Job, type JobKind } from '../../../db/schema.js';
import type { JobStatusView } from '../../job-view.js';
import { duration, html, number, when, type Html } from '../html.js';

export const JOBS_PER_PAGE = 25;

/** Where the API itself answers a job's status, for the kinds that have a status route. */
const API_STATUS_PATHS: Partial<Record<JobKind, string>> = {
  scrape: '/v2/scrape',
  crawl: '/v2/crawl',
  batch_scrape: '/v2/batch/scrape',
  extract: '/v2/extract',
  agent: '/v2/agent',
};

export function apiStatusPath(job: Pick<Job, 'kind' | 'id'>): string | null {
  const prefix = API_STATUS_PATHS[job.kind];
  return prefix ? `${prefix}/${job.id}` : null;
}

export function temporalUiLink(uiUrl: string, namespace: string, workflowId: string): string {
  return `${uiUrl}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}`;
}

/** What the kind filter offers: every job kind, and monitors' checks. */
export const LISTED_KINDS = [...JOB_KINDS, 'monitor'] as const satisfies readonly ListedKind[];

export interface JobListFilter {
  team?: string;
  kind?: ListedKind;
  status?: (typeof JOB_STATUSES)[number];
  page: number;
}

export function jobsList(
  base: string,
  d: {
    jobs: JobListRow[];
    hasMore: boolean;
    filter: JobListFilter;
    teams: { id: string; name: string }[];
    showTeam: boolean;
    temporalLink: (workflowId: string) => string;
  },
): Html {
  const { filter } = d;
  const query = (page: number) => {
    const q = new URLSearchParams();
    if (filter.team) q.set('team', filter.team);
    if (filter.kind) q.set('kind', filter.kind);
    if (filter.status) q.set('status', filter.status);
    q.set('page', String(page));
    return `${base}/jobs?${q.toString()}`;
  };
  const option = (value: string, label: string, current: string | undefined) =>
    html`<option value="${value}"${current === value ? html` selected` : ''}>${label}</option>`;
  return html`<h1>Jobs</h1>
<form method="get" action="${base}/jobs" class="inline card filters" data-testid="job-filters">
  ${d.showTeam ? html`<label>Team <select name="team">${option('', 'all', filter.team ?? '')}${d.teams.map((t) => option(t.id, t.name, filter.team))}</select></label>` : ''}
  <label>Kind <select name="kind">${option('', 'all', filter.kind ?? '')}${LISTED_KINDS.map((k) => option(k, k.replace('_', ' '), filter.kind))}</select></label>
  <label>Status <select name="status">${option('', 'all', filter.status ?? '')}${JOB_STATUSES.map((s) => option(s, s, filter.status))}</select></label>
  <button>Filter</button>
</form>
<div class="scroll"><table class="list" data-testid="jobs">
  <thead><tr><th>kind</th><th>status</th>${d.showTeam ? html`<th>team</th>` : ''}<th>url</th><th class="num">pages</th><th class="num">credits</th><th>started</th><th class="num">duration</th></tr></thead>
  <tbody>${
    d.jobs.length
      ? d.jobs.map(
          (j) => html`<tr data-job="${j.id}">
      <td>${
        // A monitor's check has no page of its own here: its workflow shows what it ran.
        j.kind === 'monitor'
          ? html`monitor check${j.workflowId ? html` <a href="${d.temporalLink(j.workflowId)}" target="_blank" rel="noopener">workflow</a>` : ''}`
          : html`<a href="${base}/jobs/${j.id}">${j.kind.replace('_', ' ')}</a>`
      }</td>
      <td><span class="status ${j.status}">${j.status}</span></td>
      ${d.showTeam ? html`<td>${j.teamName}</td>` : ''}
      <td class="url">${j.url ?? '—'}</td>
      <td class="num">${number(j.pages)}</td>
      <td class="num">${number(j.credits)}</td>
      <td>${when(j.createdAt)}</td>
      <td class="num">${j.completedAt ? duration(j.completedAt.getTime() - j.createdAt.getTime()) : 'running'}</td>
    </tr>`,
        )
      : html`<tr><td colspan="8">No jobs match.</td></tr>`
  }</tbody>
</table></div>
<nav class="pager">
  ${filter.page > 1 ? html`<a href="${query(filter.page - 1)}" rel="prev">← newer</a>` : ''}
  <span>page ${filter.page}</span>
  ${d.hasMore ? html`<a href="${query(filter.page + 1)}" rel="next">older →</a>` : ''}
</nav>`;
}

export interface TraceRow {
  agent_key: string;
  seq: number;
  type: string;
  payload: Record<string, unknown>;
  occurred_at: Date;
}

export interface JobPageData {
  job: Job;
  teamName: string;
  totals: { pages: number; credits: number };
  temporalUrl: string;
  /** Crawls and batch scrapes. */
  progress?: JobStatusView;
  failed?: FailedDocument[];
  robotsBlocked?: string[];
  /** Agent runs. */
  trace?: TraceRow[];
}

export function jobPage(base: string, d: JobPageData): Html {
  const { job } = d;
  const running = job.status === 'scraping';
  const apiPath = apiStatusPath(job);
  const statusJson = `${base}/jobs/${job.id}/status.json`;
  return html`<h1>${job.kind.replace('_', ' ')} <small><code>${job.id}</code></small></h1>
<section class="stats">
  <div><span>status</span><strong data-field="status" class="status ${job.status}">${job.status}</strong><small>team ${d.teamName}</small></div>
  <div><span>pages</span><strong data-field="completed">${number(d.progress?.completed ?? d.totals.pages)}</strong><small>${d.progress ? html`of <span data-field="total">${d.progress.total}</span>` : 'stored'}</small></div>
  <div><span>credits</span><strong data-field="creditsUsed">${number(d.progress?.creditsUsed ?? d.totals.credits)}</strong><small>charged</small></div>
  <div><span>started</span><strong>${when(job.created_at).slice(11)}</strong><small>${when(job.created_at).slice(0, 10)}${job.completed_at ? `, took ${duration(job.completed_at.getTime() - job.created_at.getTime())}` : ''}</small></div>
</section>
${
  d.progress
    ? html`<div class="progress" data-testid="progress"${running ? html` data-live="${statusJson}"` : ''}>
  <progress max="${Math.max(1, d.progress.total)}" value="${d.progress.completed}"></progress>
  <span>${running ? 'running: this page follows it live' : `finished ${when(job.completed_at)}`}</span>
</div>`
    : ''
}
<p class="links">
  <a href="${statusJson}" data-testid="status-json">Status JSON</a>
  <a href="${d.temporalUrl}" target="_blank" rel="noopener" data-testid="temporal-link">Workflow <code>${job.workflow_id}</code> in the Temporal UI</a>
  ${apiPath ? html`<span class="muted">API: <code>GET ${apiPath}</code></span>` : ''}
</p>
${job.url ? html`<p>URL: <code class="url">${job.url}</code></p>` : ''}
${job.error ? html`<p class="error">Error: ${job.error}</p>` : ''}
${job.warning ? html`<p class="warning">Warning: ${job.warning}</p>` : ''}
${d.failed ? failedPages(d.failed) : ''}
${d.robotsBlocked ? robotsList(d.robotsBlocked) : ''}
${d.trace ? traceTimeline(d.trace) : ''}`;
}

function failedPages(failed: FailedDocument[]): Html {
  return html`<section><h2>Errors (${failed.length})</h2>
  ${
    failed.length
      ? html`<div class="scroll"><table class="list" data-testid="errors"><thead><tr><th>url</th><th>code</th><th>error</th><th>at</th></tr></thead><tbody>${failed.map(
          (f) => html`<tr><td class="url">${f.url}</td><td>${f.errorCode ?? ''}</td><td>${f.error ?? 'Unknown error'}</td><td>${when(f.createdAt)}</td></tr>`,
        )}</tbody></table></div>`
      : html`<p class="muted">No page failed.</p>`
  }</section>`;
}

function robotsList(urls: string[]): Html {
  return html`<section><h2>Blocked by robots.txt (${urls.length})</h2>
  ${urls.length ? html`<ul class="urls" data-testid="robots-blocked">${urls.map((u) => html`<li><code>${u}</code></li>`)}</ul>` : html`<p class="muted">None.</p>`}</section>`;
}

/** The trace as a timeline: one row per event, placed on a time axis from the run's first event. */
function traceTimeline(events: TraceRow[]): Html {
  if (events.length === 0) return html`<section><h2>Trace</h2><p class="muted">No events yet.</p></section>`;
  const start = events[0]!.occurred_at.getTime();
  const span = Math.max(1, events.at(-1)!.occurred_at.getTime() - start);
  const row = 22;
  const width = 600;
  return html`<section><h2>Trace (${events.length} events)</h2>
<div class="timeline" data-testid="trace">
  <svg viewBox="0 0 ${width} ${events.length * row}" preserveAspectRatio="none" role="img" aria-label="Trace timeline" class="timeline-axis">
    ${events.map((e, i) => {
      const x = ((e.occurred_at.getTime() - start) / span) * (width - 12) + 6;
      return html`<line x1="0" y1="${i * row + row / 2}" x2="${width}" y2="${i * row + row / 2}" class="grid"></line><circle cx="${x.toFixed(1)}" cy="${i * row + row / 2}" r="5" class="${eventClass(e.type)}"></circle>`;
    })}
  </svg>
  <ol class="events">${events.map(
    (e) => html`<li data-type="${e.type}"><span class="t">+${duration(e.occurred_at.getTime() - start)}</span> <span class="agent">${e.agent_key === '' ? 'orchestrator' : `sub-agent ${e.agent_key}`}</span> <strong>${e.type}</strong> ${eventSummary(e)}</li>`,
  )}</ol>
</div></section>`;
}

function eventClass(type: string): string {
  if (type.startsWith('error') || type === 'run.finished') return 'ev-end';
  if (type.startsWith('tool_call')) return 'ev-tool';
  return 'ev-other';
}

/** The few fields of an event a reader scans for: the tool, the outcome, the error. */
function eventSummary(e: TraceRow): string {
  const p = e.payload;
  const pick = (o: unknown, k: string) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined);
  const parts = [
    pick(p, 'toolName') ?? pick(pick(p, 'tool'), 'name') ?? pick(p, 'tool'),
    pick(p, 'outcome'),
    pick(pick(p, 'error'), 'message'),
    pick(p, 'change'),
  ].filter((v): v is string | number => typeof v === 'string' || typeof v === 'number');
  return parts.join(' · ');
}
