import { defaultPlans } from '../../src/config/catalogue.js';
import type { ConfigInput } from '../../src/config/schema.js';

/**
 * The catalogue's plans plus `tiny`: a burst of 20 and a quota of 12 a month, so a test can be refused by the rate
 * (a batch larger than the burst) and by the quota without depending on timing.
 */
export function plansWithTiny(): ConfigInput['plans'] {
  return { ...defaultPlans(), tiny: { requestsPerSecond: 20, monthlyQuota: 12, apis: ['rpc', 'rest', 'graphql', 'beta-graphql', 'mcp'] } };
}

/** Sends traffic for one key and returns what the gateway answered: admitted requests by API and network, and 429s. */
export class Traffic {
  readonly admitted = new Map<string, number>();
  readonly limited = new Map<string, number>();

  constructor(
    private readonly base: string,
    private readonly key: string,
  ) {}

  /** A JSON-RPC batch of `calls` eth_chainId calls (a single call when 1). */
  async rpc(network: string, calls = 1): Promise<number> {
    const one = (id: number) => ({ jsonrpc: '2.0', id, method: 'eth_chainId', params: [] });
    const body = calls === 1 ? one(1) : Array.from({ length: calls }, (_, i) => one(i));
    const res = await fetch(`${this.base}/${network}/rpc`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': this.key }, body: JSON.stringify(body) });
    await res.arrayBuffer();
    this.count('rpc', network, res.status, calls);
    return res.status;
  }

  async rest(network: string): Promise<number> {
    const res = await fetch(`${this.base}/${network}/api/v1/network/exchangerate`, { headers: { 'x-api-key': this.key } });
    await res.arrayBuffer();
    this.count('rest', network, res.status, 1);
    return res.status;
  }

  private count(api: string, network: string, status: number, calls: number): void {
    const at = `${api} ${network}`;
    if (status === 429) this.limited.set(at, (this.limited.get(at) ?? 0) + 1);
    else if (status === 200) this.admitted.set(at, (this.admitted.get(at) ?? 0) + calls);
    else throw new Error(`${api} on ${network} answered ${status}`);
  }
}
