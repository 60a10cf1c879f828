import type { LRUCache } from 'lru-cache';
import { lruOf } from '../lru.js';
import { burstRefusal, fromGcra } from './decision.js';
import { burstMs, gcra, intervalMs } from './gcra.js';
import { refusalError } from './headers.js';
import { countRefusal } from './metrics.js';
import type { LimitDecision } from './types.js';

export interface ClientBudgetOptions {
  perSecond: number;
  /** Addresses remembered; forgetting one only ever gives it a full budget again. */
  maxClients?: number;
  now?: () => number;
}

/**
 * The budget of requests that carry no key, per client address: the plans' GCRA at `perSecond`, so an address gets a
 * second's worth at once and then that rate, and a request of more than a second's worth is never admitted. Kept in
 * this instance's memory, not shared: behind a balancer over N instances one address gets up to N times the rate. An
 * address not charged for a burst's length is forgotten, when its budget would be full again anyway.
 */
export class ClientBudget {
  private readonly tats: LRUCache<string, number>;
  private readonly interval: number;
  private readonly now: () => number;

  constructor(private readonly opts: ClientBudgetOptions) {
    this.interval = intervalMs(opts.perSecond);
    this.now = opts.now ?? Date.now;
    this.tats = lruOf(opts.maxClients ?? 100_000, { ttlMs: burstMs(this.interval), now: this.now });
  }

  /**
   * Charges `cost` requests to `client`, of which `prepaid` were charged already (a request is charged one before its
   * body is read, the rest once the body says how many messages it holds). Throws a 429 with Retry-After when refused.
   */
  charge(client: string, cost: number, prepaid = 0): void {
    const refused = this.tryCharge(client, cost, prepaid);
    if (refused) throw refusalError(refused);
  }

  /** `charge` for a caller that answers a refusal itself (a refused handshake, with an answer made once): the refusal, or undefined when charged. */
  tryCharge(client: string, cost: number, prepaid = 0): LimitDecision | undefined {
    let refusal = burstRefusal(cost, this.opts.perSecond, 'keyless');
    if (!refusal) {
      const outcome = gcra(this.tats.get(client) ?? 0, this.now(), this.interval, cost - prepaid);
      if (outcome.allowed) {
        this.tats.set(client, outcome.tat);
        return undefined;
      }
      refusal = fromGcra(outcome, this.opts.perSecond, 'keyless');
    }
    countRefusal('keyless');
    return refusal;
  }
}
