import type { UsageReport } from './report.js';

/** Each API's colour in the charts; refusals are red on top of their hour's bar. */
export const API_COLOURS: Record<string, string> = {
  rpc: '#2563eb',
  rest: '#16a34a',
  graphql: '#9333ea',
  'beta-graphql': '#db2777',
  mcp: '#ea580c',
};
export const OTHER_COLOUR = '#64748b';
export const LIMITED_COLOUR = '#dc2626';
export const QUOTA_COLOURS = { used: '#0d9488', nearly: '#d97706', spent: LIMITED_COLOUR, free: '#e2e8f0' };

const WIDTH = 960;
const HEIGHT = 260;
const PLOT = { left: 56, right: 8, top: 12, bottom: 28 };

export function colourOf(api: string): string {
  return API_COLOURS[api] ?? OTHER_COLOUR;
}

/** 1, 2, 5, 10, 20, 50, ...: the smallest at or above `n`, so the axis reads in round numbers. */
function niceCeiling(n: number): number {
  if (n <= 1) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(n));
  for (const step of [1, 2, 5, 10]) if (step * magnitude >= n) return step * magnitude;
  return 10 * magnitude;
}

const num = (n: number) => n.toLocaleString('en-US');

/**
 * Requests per hour as stacked bars, one colour per API (networks of one API share its colour), refusals (429) in red
 * on top. Server-rendered SVG: no script, crisp edges so a bar's pixels can be counted.
 */
export function hourlyChart(report: UsageReport): string {
  const plotW = WIDTH - PLOT.left - PLOT.right;
  const plotH = HEIGHT - PLOT.top - PLOT.bottom;
  const slots = report.hours.length;
  const slotW = plotW / slots;
  const barW = Math.max(1, Math.floor(slotW) - 4);
  const byApi = new Map<string, number[]>();
  for (const s of report.series) {
    const counts = byApi.get(s.api) ?? new Array<number>(slots).fill(0);
    s.requests.forEach((c, i) => (counts[i] += c));
    byApi.set(s.api, counts);
  }
  const peak = niceCeiling(Math.max(0, ...report.hours.map((_, i) => report.totals.requests[i] + report.totals.limited[i])));
  const scale = plotH / peak;
  const parts: string[] = [];
  for (let i = 0; i < slots; i++) {
    const x = Math.round(PLOT.left + i * slotW + (slotW - barW) / 2);
    let y = PLOT.top + plotH;
    const segments: Array<[string, number, string]> = [...byApi].map(([api, counts]) => [colourOf(api), counts[i], api]);
    segments.push([LIMITED_COLOUR, report.totals.limited[i], '429']);
    for (const [colour, count, label] of segments) {
      if (count === 0) continue;
      const h = Math.max(1, Math.round(count * scale));
      y -= h;
      parts.push(`<rect x="${x}" y="${y}" width="${barW}" height="${h}" fill="${colour}"><title>${report.hours[i].slice(11, 16)} UTC: ${num(count)} ${label}</title></rect>`);
    }
    if (i % 6 === 0 || i === slots - 1) {
      parts.push(`<text x="${x + barW / 2}" y="${HEIGHT - 8}" text-anchor="middle">${i === slots - 1 ? 'now' : report.hours[i].slice(11, 16)}</text>`);
    }
  }
  const axis = [0, peak / 2, peak].map((v) => {
    const y = Math.round(PLOT.top + plotH - v * scale);
    return `<line x1="${PLOT.left}" x2="${WIDTH - PLOT.right}" y1="${y}" y2="${y}" stroke="#cbd5e1"/><text x="${PLOT.left - 6}" y="${y + 4}" text-anchor="end">${num(v)}</text>`;
  });
  return `<svg id="hourly-chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" role="img" aria-label="Requests per hour, last ${slots} hours, stacked by API; refusals in red" shape-rendering="crispEdges" font-family="system-ui,sans-serif" font-size="12" fill="#334155">
${axis.join('')}${parts.join('')}</svg>`;
}

/** This month's count against the quota: a bar filled in proportion, amber from 80 %, red when spent. */
export function quotaBar(report: UsageReport): string {
  const { used, limit } = report.quota;
  const share = limit > 0 ? Math.min(1, used / limit) : 1;
  const fill = Math.round(share * WIDTH);
  const colour = share >= 1 ? QUOTA_COLOURS.spent : share >= 0.8 ? QUOTA_COLOURS.nearly : QUOTA_COLOURS.used;
  return `<svg id="quota-bar" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} 24" width="${WIDTH}" height="24" role="img" aria-label="${num(used)} of ${num(limit)} requests this month" shape-rendering="crispEdges">
<rect x="0" y="0" width="${WIDTH}" height="24" fill="${QUOTA_COLOURS.free}"/>${fill > 0 ? `<rect x="0" y="0" width="${fill}" height="24" fill="${colour}"/>` : ''}</svg>`;
}
