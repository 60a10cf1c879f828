import type { LRUCache } from 'lru-cache';
import { lruOf } from '../lru.js';
import { Counter } from 'prom-client';
import { GatewayError } from '../errors.js';
import { registry } from '../metrics.js';

export const keyCreations = new Counter({
  name: 'gateway_key_creations_total',
  help: 'Key-page creations: created, or refused by the per-client budget, the global budget, the per-account cap or a closed page',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

export interface CreationBudgetOptions {
  windowMs: number;
  perClient: number;
  perWindow: number;
  /** Clients remembered; the oldest are forgotten first, which only ever lets a forgotten client create again. */
  maxClients?: number;
  now?: () => number;
}

/**
 * How many keys the key page may create: per client address and in all, each a count per sliding window. The log of
 * creation times is kept per instance (creations are rare; a farm still meets both budgets on every instance).
 */
export class CreationBudget {
  private readonly clients: LRUCache<string, number[]>;
  private all: number[] = [];
  private readonly now: () => number;

  constructor(private readonly opts: CreationBudgetOptions) {
    this.clients = lruOf(opts.maxClients ?? 100_000);
    this.now = opts.now ?? Date.now;
  }

  /** Takes one creation for `client`, or throws a 429 with Retry-After when either budget is spent. */
  take(client: string): void {
    const now = this.now();
    const mine = recent(this.clients.get(client) ?? [], now, this.opts.windowMs);
    this.all = recent(this.all, now, this.opts.windowMs);
    if (mine.length >= this.opts.perClient) throw this.refusal('client', mine[0], now);
    if (this.all.length >= this.opts.perWindow) throw this.refusal('global', this.all[0], now);
    mine.push(now);
    this.all.push(now);
    this.clients.set(client, mine);
  }

  private refusal(which: 'client' | 'global', oldest: number, now: number): GatewayError {
    keyCreations.inc({ outcome: `refused_${which}` });
    const seconds = Math.max(1, Math.ceil((oldest + this.opts.windowMs - now) / 1000));
    const detail = which === 'client' ? 'from your address' : 'on this gateway';
    return new GatewayError('KEY_CREATION_LIMITED', `${detail}; try again in ${seconds} s`, undefined, { 'retry-after': String(seconds) });
  }
}

function recent(times: number[], now: number, windowMs: number): number[] {
  return times.filter((t) => t > now - windowMs);
}
