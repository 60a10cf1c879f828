import type { Config } from '../config/schema.js';
import { GatewayError } from '../errors.js';
import type { VerifiedKey } from '../keys/types.js';
import { countRefusal } from './metrics.js';
import { humanList, title } from './relayAccess.js';

/** The namespaces a plan opens with `debugMethods`: geth's `debug_` and Parity/Erigon's `trace_`. */
export function isDebugMethod(method: string): boolean {
  return method.startsWith('debug_') || method.startsWith('trace_');
}

/** The plans that open the debug namespaces, for the refusal to name. */
export function debugPlans(plans: Config['plans']): string[] {
  return Object.entries(plans)
    .filter(([, plan]) => plan.debugMethods)
    .map(([name]) => name);
}

/** A refusal for a debug call the key's plan does not include; undefined when the call may go on. */
export function debugRefusal(method: string, key: VerifiedKey, plans: string[]): GatewayError | undefined {
  if (!isDebugMethod(method) || key.plan.debugMethods) return undefined;
  countRefusal('plan');
  const opens = plans.length === 0 ? 'no plan on this gateway includes them' : `they are included in the ${humanList(plans.map(title))} plan${plans.length === 1 ? '' : 's'}`;
  return new GatewayError('DEBUG_FORBIDDEN', `${method}: ${opens}; this key is on the ${title(key.planName)} plan`);
}
