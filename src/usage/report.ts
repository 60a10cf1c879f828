import type { VerifiedKey } from '../keys/types.js';
import type { HbarBudgets } from '../limits/hbarBudgets.js';
import { monthOf } from '../limits/calendar.js';
import type { UsageDelta, UsageHistory, UsageStore } from '../limits/types.js';
import { hourOf } from '../limits/usageRecorder.js';

export const REPORT_HOURS = 48;
const HOUR_MS = 3_600_000;

/** One API on one network, hour by hour (oldest first, as `UsageReport.hours`). */
export interface UsageSeries {
  api: string;
  /** Empty for MCP, which has no network. */
  network: string;
  /** Requests admitted, as charged against the quota (a JSON-RPC batch of 10 counts 10). */
  requests: number[];
  /** Requests refused with 429 (budget or quota). */
  limited: number[];
}

/** What `GET /v1/<key>/usage` answers and the usage page draws. Never the key itself. */
export interface UsageReport {
  keyId: string;
  name: string;
  plan: string;
  requestsPerSecond: number;
  month: string;
  quota: { used: number; limit: number; remaining: number; resetsAt: string };
  /** Start of each hour, ISO 8601 UTC; the last one is the current hour. */
  hours: string[];
  series: UsageSeries[];
  totals: { requests: number[]; limited: number[] };
  /**
   * What the operator paid for the key's ledger writes this window, per ledger network, against the key's hbar budget
   * (each network has its own); absent where the gateway has no hbar limits.
   */
  hbar?: { windowMs: number; resetsAt: string; limitTinybar: number; spent: Array<{ network: string; tinybar: number }> };
}

export interface UsageSources {
  store: UsageStore & UsageHistory;
  /** This instance's counts not yet in the store, so the report includes the last second's traffic. */
  unflushed?: (keyId: string) => UsageDelta[];
  /** The hbar limits, and the ledger networks whose spend the report shows. */
  hbar?: { budgets: Pick<HbarBudgets, 'keySpend'>; networks: string[] };
}

/**
 * The key's usage from the same records as its quota: this month's count against the plan's quota, and the last 48
 * hours by API and network with refusals apart. Counts other instances have not flushed yet (at most
 * `limits.quotaFlushMs` old) are missing.
 */
export async function usageReport(key: VerifiedKey, sources: UsageSources, now = Date.now()): Promise<UsageReport> {
  const month = monthOf(now);
  const first = hourOf(now) - (REPORT_HOURS - 1) * HOUR_MS;
  const [stored, rows, hbar] = await Promise.all([
    sources.store.usage(key.id, month),
    sources.store.hourlyUsage(key.id, first),
    sources.hbar?.budgets.keySpend(key, sources.hbar.networks),
  ]);
  const pending = sources.unflushed?.(key.id) ?? [];
  const used = stored + pending.filter((d) => d.outcome === 'ok' && monthOf(d.hour) === month).reduce((sum, d) => sum + d.count, 0);

  const series = new Map<string, UsageSeries>();
  const totals = { requests: new Array<number>(REPORT_HOURS).fill(0), limited: new Array<number>(REPORT_HOURS).fill(0) };
  for (const d of [...rows, ...pending]) {
    const slot = Math.floor((d.hour - first) / HOUR_MS);
    if (slot < 0 || slot >= REPORT_HOURS || d.count === 0) continue;
    const id = `${d.api}\n${d.network}`;
    let s = series.get(id);
    if (!s) {
      s = { api: d.api, network: d.network, requests: new Array<number>(REPORT_HOURS).fill(0), limited: new Array<number>(REPORT_HOURS).fill(0) };
      series.set(id, s);
    }
    const field = d.outcome === 'ok' ? 'requests' : 'limited';
    s[field][slot] += d.count;
    totals[field][slot] += d.count;
  }
  const limit = key.plan.monthlyQuota;
  const next = new Date(now);
  return {
    keyId: key.id,
    name: key.name,
    plan: key.planName,
    requestsPerSecond: key.plan.requestsPerSecond,
    month,
    quota: {
      used,
      limit,
      remaining: Math.max(0, limit - used),
      resetsAt: new Date(Date.UTC(next.getUTCFullYear(), next.getUTCMonth() + 1, 1)).toISOString(),
    },
    hours: Array.from({ length: REPORT_HOURS }, (_, i) => new Date(first + i * HOUR_MS).toISOString()),
    series: [...series.values()].sort((a, b) => a.api.localeCompare(b.api) || a.network.localeCompare(b.network)),
    totals,
    ...(hbar ? { hbar } : {}),
  };
}
