import { esc, layout } from '../keys/pageHtml.js';
import { colourOf, hourlyChart, LIMITED_COLOUR, quotaBar } from './chart.js';
import type { UsageReport } from './report.js';

/** The charts are 960 px wide: the page widens the key page's column for them. */
const WIDE = '<style>body{max-width:62rem}table{border-collapse:collapse;margin:1rem 0}th,td{padding:.25rem .75rem;text-align:left;border-bottom:1px solid #e2e8f0}td.n{text-align:right}.swatch{display:inline-block;width:.8rem;height:.8rem;margin:0 .3rem 0 1rem;vertical-align:-.05rem}svg{max-width:100%;height:auto}</style>';

/** The key goes in a password field and is POSTed: never in a URL, a history entry or a referrer. */
function form(message = ''): string {
  return `<form method="post" action="/keys/usage">
<label for="key">API key</label><input id="key" name="key" type="password" autocomplete="off" required maxlength="128">
<button type="submit">Show usage</button>${message ? `<p class="error" id="form-error">${esc(message)}</p>` : ''}
</form>`;
}

export function usageFormPage(message?: string): string {
  return layout('API key usage', `${WIDE}<h1>API key usage</h1>
<p>See this month's requests against your plan's quota, and the last 48 hours by API, with refusals (429).</p>${form(message)}`);
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

export function usagePage(r: UsageReport): string {
  const share = r.quota.limit ? ((r.quota.used / r.quota.limit) * 100).toFixed(2) : '100.00';
  const apis = [...new Set(r.series.map((s) => s.api))];
  const legend = [...apis.map((api) => [colourOf(api), api]), [LIMITED_COLOUR, '429 refused']]
    .map(([colour, label]) => `<span class="swatch" style="background:${colour}"></span>${esc(label)}`)
    .join('');
  const rows = r.series
    .map(
      (s) =>
        `<tr data-api="${esc(s.api)}" data-network="${esc(s.network)}"><td>${esc(s.api)}</td><td>${esc(s.network || '-')}</td><td class="n requests">${sum(s.requests)}</td><td class="n limited">${sum(s.limited)}</td></tr>`,
    )
    .join('');
  return layout(
    'API key usage',
    `${WIDE}<h1>API key usage</h1>
<p>Key <code id="key-id">${esc(r.keyId)}</code> (${esc(r.name)}), plan <b id="plan">${esc(r.plan)}</b>: ${r.requestsPerSecond} requests per second.</p>
<h2>This month (${esc(r.month)}, UTC)</h2>
<p><span id="quota-used">${r.quota.used}</span> of <span id="quota-limit">${r.quota.limit}</span> requests (${share} %); the quota renews ${esc(r.quota.resetsAt.slice(0, 10))}.</p>
${quotaBar(r)}
<h2>Requests per hour, last ${r.hours.length} hours (UTC)</h2>
<p id="legend">${legend}</p>
${hourlyChart(r)}
<table id="by-api"><thead><tr><th>API</th><th>Network</th><th>Requests</th><th>429</th></tr></thead><tbody>${rows}</tbody>
<tfoot><tr><th colspan="2">Last ${r.hours.length} hours</th><td class="n" id="total-requests">${sum(r.totals.requests)}</td><td class="n" id="total-limited">${sum(r.totals.limited)}</td></tr></tfoot></table>
<p class="note">Requests count what they were charged (a JSON-RPC batch of 10 counts 10, as against the quota); a 429 counts once.
Traffic through other gateway instances shows up within about a second.</p>
${hbarSection(r)}
${form()}`,
  );
}

const HBAR = (tinybar: number) => `${(tinybar / 1e8).toFixed(8).replace(/\.?0+$/, '')} ℏ`;

/** What the operator paid for the key's ledger writes this window, network by network, against the key's budget. */
function hbarSection(r: UsageReport): string {
  if (!r.hbar) return '';
  const { limitTinybar, resetsAt, spent } = r.hbar;
  const rows = spent
    .map((s) => `<tr data-network="${esc(s.network)}"><td>${esc(s.network)}</td><td class="n hbar-spent">${HBAR(s.tinybar)}</td><td class="n hbar-left">${HBAR(Math.max(0, limitTinybar - s.tinybar))}</td></tr>`)
    .join('');
  return `<h2>Hbar spent on your ledger writes</h2>
<p>Every write you send to a ledger network is paid by the gateway's operator; your key may cost it <span id="hbar-limit">${HBAR(limitTinybar)}</span> per network until <span id="hbar-resets">${esc(resetsAt.replace('T', ' ').slice(0, 16))}</span> UTC, when the budget renews. A write is refused (JSON-RPC error -32606) when its largest possible fee no longer fits.</p>
<table id="hbar"><thead><tr><th>Network</th><th>Spent</th><th>Left</th></tr></thead><tbody>${rows}</tbody></table>`;
}
