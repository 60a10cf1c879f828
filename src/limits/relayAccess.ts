import type { Config } from '../config/schema.js';
import { GatewayError } from '../errors.js';
import type { VerifiedKey } from '../keys/types.js';
import { countRefusal } from './metrics.js';

export const title = (plan: string) => plan.charAt(0).toUpperCase() + plan.slice(1);

/** Names a list the way a person would: "A, B and C". */
export function humanList(items: string[]): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/**
 * Who may call the ledger chain's /rpc. In `beta`, only keys flagged relay_beta (testers); in `ga`, keys on the plans
 * of `relayPlans`. The refusal says what would open it.
 */
export function checkRelayAccess(key: VerifiedKey, limits: Config['limits']): void {
  if (limits.relayPhase === 'beta') {
    if (key.relayBeta) return;
    countRefusal('plan');
    throw new GatewayError('RELAY_FORBIDDEN', 'the relay is in beta and open only to keys flagged relay_beta (testers)');
  }
  const plans = limits.relayPlans.map((p) => p.toLowerCase());
  if (plans.includes(key.planName.toLowerCase())) return;
  countRefusal('plan');
  throw new GatewayError(
    'RELAY_FORBIDDEN',
    `it is included in the ${humanList(limits.relayPlans.map(title))} plan${plans.length === 1 ? '' : 's'}; this key is on the ${title(key.planName)} plan`,
  );
}
