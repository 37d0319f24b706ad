/** The teams list and a team's page: standing, usage charts, keys, plan and threat policy. */
import type { CreatedKey, TeamStanding } from '../../accounts.js';
import { describeScopes, SCOPES } from '../../auth/api-keys.js';
import type { DailyFigure } from '../../../db/repositories/daily-usage.js';
import type { MonitorRow } from '../../../db/repositories/monitors.js';
import type { RefusalTotal } from '../../../db/repositories/refusals.js';
import type { Team } from '../../../db/schema.js';
import { ENDPOINT_CLASSES } from '../../../lib/plans.js';
import type { ThreatPolicy } from '../../../lib/threat/policy.js';
import { dailyChart, lastDays } from '../chart.js';
import { html, number, when, type Html } from '../html.js';
import { csrfField } from '../layout.js';
import type { Viewer } from '../viewer.js';
import { monitorsSection } from './monitors.js';

export const USAGE_DAYS = 30;

export interface TeamSummary {
  team: Team;
  standing: TeamStanding;
}

export function teamsList(base: string, viewer: Viewer, teams: TeamSummary[]): Html {
  return html`<h1>Teams</h1>
<div class="scroll"><table class="list" data-testid="teams">
  <thead><tr><th>team</th><th class="num">credits used</th><th class="num">left</th><th class="num">concurrency</th></tr></thead>
  <tbody>${teams.map(
    ({ team, standing }) => html`<tr>
      <td><a href="${base}/teams/${team.id}">${team.name}</a></td>
      <td class="num">${number(standing.usage.used)}</td>
      <td class="num">${number(standing.creditsLeft)}</td>
      <td class="num">${standing.activeSlots} / ${standing.plan.concurrency}</td>
    </tr>`,
  )}</tbody>
</table></div>
${
  viewer.operator
    ? html`<form method="post" action="${base}/teams" class="inline card" data-testid="create-team">
  ${csrfField(viewer)}
  <label>New team <input name="name" required maxlength="100" autocomplete="off"></label>
  <button>Create team</button>
</form>`
    : ''
}`;
}

export interface KeyRow {
  id: string;
  key_prefix: string;
  scopes: string[] | null;
  created_at: Date;
  revoked_at: Date | null;
  last_used_at: Date | null;
}

export interface TeamPageData {
  team: Team;
  standing: TeamStanding;
  keys: KeyRow[];
  credits: DailyFigure[];
  tokens: DailyFigure[];
  refusals: RefusalTotal[];
  threatPolicy: ThreatPolicy;
  monitors: MonitorRow[];
  /** A key just created: shown on this page only. */
  created?: CreatedKey;
}

export function teamPage(base: string, viewer: Viewer, d: TeamPageData): Html {
  const t = `${base}/teams/${d.team.id}`;
  const { plan, usage, periodEnd, creditsLeft, activeSlots } = d.standing;
  const days = lastDays(USAGE_DAYS);
  const sumBy = (rows: DailyFigure[], keyId?: string | null) => {
    const m = new Map<string, number>();
    for (const r of rows) if (keyId === undefined || r.apiKeyId === keyId) m.set(r.day, (m.get(r.day) ?? 0) + r.value);
    return m;
  };
  const keysWithUsage = d.keys.filter((k) => !k.revoked_at || d.credits.some((c) => c.apiKeyId === k.id));
  return html`<h1>${d.team.name}</h1>
${
  d.created
    ? html`<section class="card created" data-testid="created-key">
  <h2>New key</h2>
  <p>Copy it now: it is shown only this once. Trawl stores only its hash.</p>
  <div class="copy"><code id="new-key" data-testid="new-key">${d.created.key}</code><button type="button" data-copy="new-key">Copy</button></div>
</section>`
    : ''
}
<section class="stats" data-testid="standing">
  <div><span>credits left</span><strong data-testid="credits-left">${number(creditsLeft)}</strong><small>of ${number(plan.monthlyCredits)} this month (${number(usage.used)} used, until ${when(periodEnd).slice(0, 10)})</small></div>
  <div><span>concurrency</span><strong>${activeSlots} / ${plan.concurrency}</strong><small>pages being fetched now</small></div>
  <div><span>refusals, ${USAGE_DAYS} days</span><strong data-testid="refusals">${number(d.refusals.reduce((a, r) => a + r.count, 0))}</strong><small>${
    d.refusals.length ? d.refusals.map((r) => `${r.code} ${r.count}`).join(', ') : 'no rate-limit, concurrency or credit refusals'
  }</small></div>
</section>

<section>
  <h2>Usage</h2>
  <div class="charts">
    ${dailyChart({ label: 'Credits', unit: 'credits', days, values: sumBy(d.credits) }, 'team-credits')}
    ${dailyChart({ label: 'Model tokens', unit: 'tokens', days, values: sumBy(d.tokens) }, 'team-tokens')}
  </div>
  <h3>Per key</h3>
  <div class="charts">
    ${keysWithUsage.map((k) => dailyChart({ label: `Credits of ${k.key_prefix}…`, unit: 'credits', days, values: sumBy(d.credits, k.id) }, `key-credits-${k.key_prefix}`))}
    ${d.credits.some((c) => c.apiKeyId === null) ? dailyChart({ label: 'Credits without a key', unit: 'credits', days, values: sumBy(d.credits, null) }, 'key-credits-none') : ''}
  </div>
</section>

<section>
  <h2>Keys</h2>
  <div class="scroll"><table class="list" data-testid="keys">
    <thead><tr><th>prefix</th><th>scopes</th><th>created</th><th>last used</th><th>state</th><th></th></tr></thead>
    <tbody>${d.keys.map(
      (k) => html`<tr data-key="${k.key_prefix}">
        <td><code>${k.key_prefix}…</code></td>
        <td>${describeScopes(k.scopes)}</td>
        <td>${when(k.created_at)}</td>
        <td>${when(k.last_used_at)}</td>
        <td>${k.revoked_at ? `revoked ${when(k.revoked_at)}` : 'active'}</td>
        <td>${
          k.revoked_at
            ? ''
            : html`<form method="post" action="${t}/keys/${k.id}/revoke" data-confirm="Revoke ${k.key_prefix}…? Requests with it fail at once.">${csrfField(viewer)}<button class="danger">Revoke</button></form>`
        }</td>
      </tr>`,
    )}</tbody>
  </table></div>
  <form method="post" action="${t}/keys" class="card" data-testid="create-key">
    ${csrfField(viewer)}
    <fieldset><legend>New key: scopes (none ticked: every scope)</legend>
      ${SCOPES.map((s) => html`<label class="check"><input type="checkbox" name="scopes" value="${s}"> ${s}</label>`)}
    </fieldset>
    <button>Create key</button>
  </form>
</section>

${monitorsSection(base, d.monitors)}

<section>
  <h2>Plan</h2>
  ${planForm(t, viewer, d)}
</section>

<section>
  <h2>Threat protection policy</h2>
  <form method="post" action="${t}/threat-policy" class="card">
    ${csrfField(viewer)}
    <label><span>Policy as JSON (<code>enabled</code> is the plan's threat-protection flag, as with <code>PUT /v2/team/threat-protection</code>)</span>
      <textarea name="policy" rows="6" spellcheck="false">${JSON.stringify(d.threatPolicy, null, 2)}</textarea></label>
    <button>Save policy</button>
  </form>
</section>`;
}

function planForm(t: string, viewer: Viewer, d: TeamPageData): Html {
  const { plan } = d.standing;
  const field = (name: string, label: string, value: number) =>
    html`<label>${label}<input name="${name}" inputmode="numeric" pattern="[0-9]*" value="${value}"${viewer.operator ? '' : html` readonly`}></label>`;
  const toggle = (name: string, label: string, value: boolean) =>
    html`<label>${label}<select name="${name}"${viewer.operator ? '' : html` disabled`}><option value="true"${value ? html` selected` : ''}>yes</option><option value="false"${value ? '' : html` selected`}>no</option></select></label>`;
  const fields = html`<div class="grid">
    ${field('credits', 'Credits per month', plan.monthlyCredits)}
    ${field('tokens', 'Model tokens per month', plan.monthlyTokens)}
    ${field('concurrency', 'Concurrent pages', plan.concurrency)}
    ${field('monitors', 'Monitors', plan.monitors)}
    ${field('agent-concurrency', 'Agent runs at once', plan.agentConcurrency)}
    ${field('failed-agent-pages', 'Unbilled pages of failed agent runs a month', plan.unbilledFailedAgentPages)}
    ${ENDPOINT_CLASSES.map((c) => field(`${c}-rpm`, `${c} requests/min`, plan.rateLimits[c]))}
    ${toggle('zdr', 'Zero data retention allowed', plan.zeroDataRetention)}
    ${toggle('threat-protection', 'Threat protection', plan.threatProtection)}
  </div>`;
  if (!viewer.operator) return html`<div class="card" data-testid="plan">${fields}<p class="muted">Only the operator changes plans.</p></div>`;
  return html`<form method="post" action="${t}/plan" class="card" data-testid="plan">
    ${csrfField(viewer)}
    ${fields}
    <div class="grid">
      <label>Webhook secret (${d.team.webhook_secret ? 'set' : 'not set'}; blank keeps it)<input name="webhook-secret" type="password" autocomplete="off"></label>
      <label class="check"><input type="checkbox" name="clear-webhook-secret" value="1"> remove the webhook secret</label>
    </div>
    <button>Save plan</button>
  </form>`;
}
