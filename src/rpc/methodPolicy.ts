import type { Config, NetworkConfig } from '../config/schema.js';
import { GatewayError } from '../errors.js';

interface Rule {
  /** The method, or the prefix of a pattern that ended in `*`. */
  text: string;
  prefix: boolean;
  open: boolean;
  /** Network rules beat the gateway-wide ones of equal specificity. */
  fromNetwork: boolean;
}

/**
 * Distinct method names remembered per network, and the longest name remembered: beyond either (clients inventing
 * names) decisions are recomputed. Real method names are under 64 characters; a name is whatever the client sent, up
 * to the body limit, so without the length bound the memo could hold 4,096 names of megabytes each.
 */
const MEMO_LIMIT = 4_096;
const MEMO_NAME_MAX = 64;

function rules(patterns: readonly string[], open: boolean, fromNetwork: boolean): Rule[] {
  return patterns.map((p) => ({ text: p.endsWith('*') ? p.slice(0, -1) : p, prefix: p.endsWith('*'), open, fromNetwork }));
}

/** Exact names beat every prefix, then longer prefixes beat shorter; a closing rule wins a tie with an opening one. */
function specificity(rule: Rule): number {
  return (rule.prefix ? rule.text.length : 1_000_000) * 4 + (rule.fromNetwork ? 2 : 0) + (rule.open ? 0 : 1);
}

/**
 * Which methods one EVM network forwards upstream. Everything the policy does not open is answered -32601 by the
 * gateway without an upstream call, so an operator's node never shows its admin, key-holding or dev-node methods to
 * key holders. Plan gating of debug_ and trace_ happens before this (src/limits/debugAccess.ts).
 */
export class MethodPolicy {
  private readonly rules: Rule[];
  private readonly memo = new Map<string, boolean>();

  constructor(
    private readonly networkId: string,
    policy: Config['rpcPolicy'],
    network: Pick<NetworkConfig, 'methods'>,
  ) {
    this.rules = [
      ...rules(policy.forwarded, true, false),
      ...rules(policy.closed, false, false),
      ...rules(network.methods.open, true, true),
      ...rules(network.methods.close, false, true),
    ].sort((a, b) => specificity(b) - specificity(a));
  }

  forwards(method: string): boolean {
    let open = this.memo.get(method);
    if (open === undefined) {
      open = this.rules.find((r) => (r.prefix ? method.startsWith(r.text) : method === r.text))?.open ?? false;
      if (this.memo.size < MEMO_LIMIT && method.length <= MEMO_NAME_MAX) this.memo.set(method, open);
    }
    return open;
  }

  /** The refusal for a method this network does not forward; undefined when it may go upstream. */
  refusal(method: string): GatewayError | undefined {
    if (this.forwards(method)) return undefined;
    // Named, but bounded: a method name is whatever the client sent.
    const name = method.length > 100 ? `${method.slice(0, 100)}...` : method;
    return new GatewayError('METHOD_NOT_FOUND', `${name} is not available on ${this.networkId}`);
  }
}
