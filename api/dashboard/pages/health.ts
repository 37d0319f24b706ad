/** /health, as a page: the same report, from the same function. */
import type { HealthReport } from '../../routes/health.js';
import { html, type Html } from '../html.js';

export function healthPage(report: HealthReport): Html {
  const row = (name: string, ok: boolean, detail: string) =>
    html`<tr data-check="${name}"><td>${name}</td><td><span class="status ${ok ? 'completed' : 'failed'}">${ok ? 'ok' : 'down'}</span></td><td>${detail}</td></tr>`;
  const { checks, model, search } = report;
  return html`<h1>Health <span class="status ${report.success ? 'completed' : 'failed'}" data-testid="verdict">${report.status}</span></h1>
${report.error ? html`<p class="error">${report.error}</p>` : ''}
<div class="scroll"><table class="list" data-testid="health">
  <thead><tr><th>part</th><th>state</th><th>detail</th></tr></thead>
  <tbody>
    ${row('postgres', checks.database.ok, checks.database.ok ? '' : checks.database.error)}
    ${row('temporal', checks.temporal.ok, checks.temporal.ok ? '' : checks.temporal.error)}
    ${row('workers', checks.workers.ok, checks.workers.ok ? 'polling the task queue' : checks.workers.error)}
    ${row('model', model.ok, model.configured ? `${model.name ?? ''}${model.ok ? '' : `: ${model.error}`}` : model.ok ? '' : model.error)}
    <tr data-check="search"><td>search provider</td><td><span class="status completed">${search.provider}</span></td><td>${
      search.provider === 'index' ? 'the team’s stored pages, in Postgres' : `SearXNG at ${search.endpoint ?? ''}`
    }</td></tr>
  </tbody>
</table></div>
<p class="muted">The model and the search provider are reported but do not decide the verdict, as in <code>GET /health</code>.</p>`;
}
