/**
 * Hand-written SVG charts: a day-by-day bar chart with the figures beside it. No chart library:
 * thirty rectangles need none, and the page then needs no script to draw them.
 */
import { html, number, type Html } from './html.js';

/** The last `days` UTC days, oldest first, as YYYY-MM-DD. */
export function lastDays(days: number, now = new Date()): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: days }, (_, i) => new Date(today - (days - 1 - i) * 86_400_000).toISOString().slice(0, 10));
}

export interface DailySeries {
  /** Shown above the chart; also the chart's accessible name. */
  label: string;
  unit: string;
  days: string[];
  /** Value per day; absent days are zero. */
  values: ReadonlyMap<string, number>;
}

const W = 600;
const H = 120;

export function dailyChart(series: DailySeries, testId: string): Html {
  const values = series.days.map((d) => series.values.get(d) ?? 0);
  const total = values.reduce((a, b) => a + b, 0);
  const max = Math.max(1, ...values);
  const slot = W / series.days.length;
  const bars = series.days.map((day, i) => {
    const v = values[i]!;
    const h = v === 0 ? 0 : Math.max(2, (v / max) * (H - 16));
    return html`<rect x="${(i * slot + 1).toFixed(1)}" y="${(H - h).toFixed(1)}" width="${(slot - 2).toFixed(1)}" height="${h.toFixed(1)}" data-day="${day}" data-value="${v}"><title>${day}: ${number(v)} ${series.unit}</title></rect>`;
  });
  const used = series.days.map((day, i) => [day, values[i]!] as const).filter(([, v]) => v > 0).reverse();
  return html`<figure class="chart" data-testid="${testId}" data-total="${total}">
  <figcaption>${series.label}: <strong>${number(total)}</strong> ${series.unit} in ${series.days.length} days</figcaption>
  <div class="chart-body">
    <svg viewBox="0 0 ${W} ${H}" preserveAspectRatio="none" role="img" aria-label="${series.label} per day">
      <line x1="0" y1="${H - 0.5}" x2="${W}" y2="${H - 0.5}" class="axis"></line>
      ${bars}
    </svg>
    <table class="figures">
      <thead><tr><th>day</th><th>${series.unit}</th></tr></thead>
      <tbody>${used.length ? used.map(([d, v]) => html`<tr><td>${d}</td><td class="num">${number(v)}</td></tr>`) : html`<tr><td colspan="2">none</td></tr>`}</tbody>
    </table>
  </div>
</figure>`;
}
