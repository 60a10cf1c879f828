/**
 * What the EVM method policy adds per call: `refusal(method)` over a mix of forwarded, closed and unknown methods
 * with the default policy, against a bare Map look-up of the same names (the least any allowlist costs). Part of
 * `npm run bench`; reports, asserts nothing.
 */
import { configSchema } from '../src/config/schema.js';
import { MethodPolicy } from '../src/rpc/methodPolicy.js';

const ROUNDS = 2_000_000;
const MIX = ['eth_call', 'eth_getBlockByNumber', 'eth_getLogs', 'eth_chainId', 'eth_sendRawTransaction', 'net_version', 'debug_traceTransaction', 'hardhat_setBalance', 'admin_peers', 'no_such_method'];

export interface PolicyCost {
  /** Per call over the whole mix, refusals included (each builds its JSON-RPC error). */
  checkNs: number;
  /** Per call that is forwarded: the price every ordinary request pays. */
  forwardedNs: number;
  mapNs: number;
}

function nsPer(started: bigint): number {
  return Number(process.hrtime.bigint() - started) / ROUNDS;
}

export function measureMethodPolicy(): PolicyCost {
  const config = configSchema.parse({ chains: {}, plans: {} });
  const policy = new MethodPolicy('ethereum', config.rpcPolicy, { methods: { open: [], close: [] } });
  const map = new Map(MIX.map((m) => [m, policy.forwards(m)]));
  // Method names as they arrive: fresh strings parsed from a body, not interned constants.
  const names = MIX.map((m) => JSON.parse(JSON.stringify(m)) as string);
  let refused = 0;
  for (let i = 0; i < ROUNDS; i++) if (policy.refusal(names[i % names.length])) refused++;
  let started = process.hrtime.bigint();
  for (let i = 0; i < ROUNDS; i++) if (policy.refusal(names[i % names.length])) refused++;
  const checkNs = nsPer(started);
  const open = names.filter((m) => policy.forwards(m));
  started = process.hrtime.bigint();
  for (let i = 0; i < ROUNDS; i++) if (policy.refusal(open[i % open.length])) refused--;
  const forwardedNs = nsPer(started);
  started = process.hrtime.bigint();
  for (let i = 0; i < ROUNDS; i++) if (!map.get(names[i % names.length])) refused++;
  const mapNs = nsPer(started);
  if (refused === 0) throw new Error('nothing refused');
  return { checkNs, forwardedNs, mapNs };
}
