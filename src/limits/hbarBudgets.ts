/**
 * Hbar spending limits: what the operator account may pay for the ledger writes the relay submits. Before a write is
 * submitted, its largest possible fee is reserved against the operator's budget of the network, the key's plan's
 * (when the plan has one for all its keys together) and the key's own; a write that does not fit is refused before it
 * costs anything. Once its records are in, the reservation is settled to what they charged the operator.
 *
 * Follows the official relay's HbarLimitService (a total budget per HBAR_RATE_LIMIT_DURATION, and a limit per spending
 * plan), with our keys and plans in place of its EVM-address and IP spending plans.
 */
import type { Logger } from 'pino';
import type { Config } from '../config/schema.js';
import { GatewayError } from '../errors.js';
import type { VerifiedKey } from '../keys/types.js';
import { hbarRefusals, hbarSpent, trackOperatorBudgets, type OperatorBudget } from '../metrics.js';
import { windowOf, type HbarSpendStore } from './hbarSpend.js';
import { LocalReservations, RedisReservations, type HbarReservations, type HeldBudget } from './hbarReservations.js';

export type BudgetKind = 'operator' | 'plan' | 'key';

interface Budget extends HeldBudget {
  kind: BudgetKind;
}

/** A write's reservation: settle it once with what its records charged the operator (the reservation, if unknown). */
export interface HbarReservation {
  readonly tinybar: number;
  settle(chargedTinybar: number): Promise<void>;
}

export interface HbarBudgetsOptions {
  limits: Config['hbarLimits'];
  plans: Config['plans'];
  store: HbarSpendStore;
  reservations: HbarReservations;
  logger?: Logger;
  /** Clock in ms; tests inject one to cross a window. */
  now?: () => number;
}

/** The gateway's hbar limits: reservations shared through Redis when `redisUrl` is set, else in this instance. */
export async function createHbarBudgets(opts: Omit<HbarBudgetsOptions, 'reservations'> & { redisUrl?: string }): Promise<HbarBudgets> {
  const { redisUrl, ...rest } = opts;
  const reservations = redisUrl
    ? await RedisReservations.connect({ url: redisUrl, outageInFlight: opts.limits.outageInFlight, logger: opts.logger })
    : new LocalReservations();
  return new HbarBudgets({ ...rest, reservations });
}

export class HbarBudgets {
  private readonly now: () => number;
  /** Reading settled spend and holding against it (and settling, then giving back) take turns in this instance. */
  private turn: Promise<unknown> = Promise.resolve();
  private readonly networks = new Set<string>();
  private readonly untrack: () => void;

  constructor(private readonly opts: HbarBudgetsOptions) {
    this.now = opts.now ?? Date.now;
    this.untrack = trackOperatorBudgets(() => this.operatorBudgets());
  }

  /**
   * Reserves `tinybar` for one write on `network` by `key` (none for the relay's own calls), or throws HBAR_LIMITED
   * naming the first budget without room and when it resets.
   */
  async reserve(network: string, key: VerifiedKey | undefined, tinybar: number): Promise<HbarReservation> {
    this.networks.add(network);
    const now = this.now();
    const window = windowOf(now, this.opts.limits.windowMs);
    const budgets = this.budgetsOf(network, key);
    const result = await this.inTurn(async () => {
      const settled = await this.opts.store.hbarSpend(
        budgets.map((b) => b.scope),
        window,
      );
      budgets.forEach((b, i) => (b.settled = settled[i]));
      return this.opts.reservations.hold(budgets, window, tinybar);
    });
    if (!result.held) {
      const budget = budgets[result.index];
      hbarRefusals.inc({ network, budget: budget.kind });
      throw refusal(budget, key, network, result.used, tinybar, window + this.opts.limits.windowMs);
    }
    const planLabel = key?.planName ?? 'none';
    let settled = false;
    return {
      tinybar,
      settle: async (charged) => {
        if (settled) return;
        settled = true;
        const rows = charged > 0 ? budgets.map((b) => ({ scope: b.scope, window, tinybar: charged })) : [];
        try {
          await this.inTurn(async () => {
            await this.opts.store.addHbarSpend(rows);
            await result.release();
          });
          hbarSpent.inc({ network, plan: planLabel }, charged);
        } catch (err) {
          // The reservation stays held (until Redis expires it, or this instance restarts): it errs on the operator's side.
          this.opts.logger?.error({ err, network, chargedTinybar: charged }, 'hbar spend could not be persisted; its reservation stays held');
        }
      },
    };
  }

  /** What a key has settled this window on each network, against its own budget: for its usage report. */
  async keySpend(key: VerifiedKey, networks: string[]): Promise<{ windowMs: number; resetsAt: string; limitTinybar: number; spent: Array<{ network: string; tinybar: number }> }> {
    const window = windowOf(this.now(), this.opts.limits.windowMs);
    const spent = await this.opts.store.hbarSpend(
      networks.map((n) => keyScope(key.id, n)),
      window,
    );
    return {
      windowMs: this.opts.limits.windowMs,
      resetsAt: new Date(window + this.opts.limits.windowMs).toISOString(),
      limitTinybar: keyLimit(key),
      spent: networks.map((network, i) => ({ network, tinybar: spent[i] })),
    };
  }

  async close(): Promise<void> {
    this.untrack();
    await this.opts.reservations.close();
  }

  private budgetsOf(network: string, key: VerifiedKey | undefined): Budget[] {
    const budgets: Budget[] = [{ kind: 'operator', scope: `operator:${network}`, limit: this.opts.limits.operatorTinybar, settled: 0 }];
    if (!key) return budgets;
    const planTotal = this.opts.plans[key.planName]?.hbarPerPlanTinybar;
    if (planTotal !== undefined) budgets.push({ kind: 'plan', scope: `plan:${key.planName}:${network}`, limit: planTotal, settled: 0 });
    budgets.push({ kind: 'key', scope: keyScope(key.id, network), limit: keyLimit(key), settled: 0 });
    return budgets;
  }

  private async operatorBudgets(): Promise<OperatorBudget[]> {
    const networks = [...this.networks];
    const limit = this.opts.limits.operatorTinybar;
    const spent = await this.opts.store.hbarSpend(
      networks.map((n) => `operator:${n}`),
      windowOf(this.now(), this.opts.limits.windowMs),
    );
    return networks.map((network, i) => ({ network, limitTinybar: limit, remainingTinybar: Math.max(0, limit - spent[i]) }));
  }

  private inTurn<T>(work: () => Promise<T>): Promise<T> {
    const next = this.turn.then(work);
    this.turn = next.catch(() => undefined);
    return next;
  }
}

const keyScope = (keyId: string, network: string) => `key:${keyId}:${network}`;
const keyLimit = (key: VerifiedKey) => key.hbarLimitTinybar ?? key.plan.hbarPerKeyTinybar;

function refusal(budget: Budget, key: VerifiedKey | undefined, network: string, used: number, needed: number, resetsAt: number): GatewayError {
  const whose =
    budget.kind === 'operator'
      ? `the operator's hbar budget on ${network}`
      : budget.kind === 'plan'
        ? `the hbar budget of plan "${key!.planName}" (all its keys together) on ${network}`
        : `this key's hbar budget on ${network}${key!.hbarLimitTinybar === undefined ? ` (plan "${key!.planName}")` : ' (set for this key)'}`;
  const reset = new Date(resetsAt).toISOString();
  return new GatewayError(
    'HBAR_LIMITED',
    `${whose} has ${Math.max(0, budget.limit - used)} of ${budget.limit} tinybar left this window, and this write may cost up to ${needed}; it resets at ${reset}`,
    { budget: budget.kind, network, ...(budget.kind === 'operator' ? {} : { plan: key!.planName }), limitTinybar: budget.limit, usedTinybar: used, neededTinybar: needed, resetsAt: reset },
  );
}
