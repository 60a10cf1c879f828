/**
 * `POST /api/v1/contracts/call`: read-only execution and gas estimation on the sandbox's EVM. Without `to` the data
 * is init code: the real node simulates and estimates contract creations that way (its OpenAPI document marks `to`
 * required, its web3 service does not), and relays rely on it to estimate deployments. A revert answers 400
 * with the real node's body: `message: CONTRACT_REVERT_EXECUTED`, the decoded reason as `detail`, the revert data
 * as `data`.
 */
import { AbiCoder, dataSlice } from 'ethers';
import { badRequest, contractRevert, invalidParameter } from './errors.js';
import type { LedgerView } from '../ledger/view.js';
import { WEIBAR_PER_TINYBAR, hexQuantity } from './format.js';
import type { Route } from './http.js';

const ADDRESS = /^(0x)?[A-Fa-f0-9]{40}$/;
const DATA = /^(0x)?([0-9a-fA-F]{2}){0,131072}$/;
const BLOCK = /^((0x)?[0-9a-fA-F]+|earliest|pending|latest|safe|finalized)$/;
/** The mirror node's default gas for calls. */
const DEFAULT_GAS = 15_000_000;
/** The sandbox EVM's block gas limit: a call cannot use more, so larger requests run with this much. */
const MAX_GAS = 30_000_000;
/** Selector of Solidity's `Error(string)`. */
const ERROR_STRING = '0x08c379a0';

interface CallRequest {
  to?: string | null;
  data?: string | null;
  from?: string | null;
  gas?: number | null;
  gasPrice?: number | null;
  value?: number | null;
  estimate?: boolean | null;
  block?: string | null;
}

interface CallFrame {
  output?: string;
  error?: string;
}

const prefixed = (hex: string) => (hex.startsWith('0x') ? hex : `0x${hex}`).toLowerCase();
const isCount = (v: unknown) => v === undefined || v === null || (Number.isSafeInteger(v) && (v as number) >= 0);
const matchesOrAbsent = (v: unknown, re: RegExp) => v === undefined || v === null || (typeof v === 'string' && re.test(v));

function validate(body: unknown): CallRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('Bad request: the body must be a JSON object');
  const b = body as Record<string, unknown>;
  const checks: Array<[string, boolean]> = [
    ['to', matchesOrAbsent(b.to, ADDRESS)],
    ['from', matchesOrAbsent(b.from, ADDRESS)],
    ['data', matchesOrAbsent(b.data, DATA)],
    ['block', matchesOrAbsent(b.block, BLOCK)],
    ['gas', isCount(b.gas)],
    ['gasPrice', isCount(b.gasPrice)],
    ['value', isCount(b.value)],
    ['estimate', b.estimate === undefined || b.estimate === null || typeof b.estimate === 'boolean'],
  ];
  // A creation needs init code; a call to nothing without data has nothing to run.
  if ((b.to === undefined || b.to === null) && !(typeof b.data === 'string' && b.data.replace(/^0x/, '') !== '')) checks[0][1] = false;
  const errors = checks.filter(([, ok]) => !ok).map(([name]) => invalidParameter(name));
  if (errors.length > 0) throw new AggregateError(errors, 'invalid call');
  return b as unknown as CallRequest;
}

/** The EVM block tag for the request's `block`; unprefixed digits are a decimal number, as the real node reads them. */
function blockTag(view: LedgerView, block: string | null | undefined, estimate: boolean): string {
  const b = (block ?? 'latest').toLowerCase();
  if (['latest', 'pending', 'safe', 'finalized'].includes(b)) return 'latest';
  // Gas estimation runs against the newest state only.
  if (estimate) throw invalidParameter('block');
  if (b === 'earliest') return b;
  const n = b.startsWith('0x') ? BigInt(b) : /^\d+$/.test(b) ? BigInt(b) : undefined;
  const newest = view.blocks().at(-1)?.number ?? 0;
  if (n === undefined || n > BigInt(newest)) throw invalidParameter('block');
  return hexQuantity(n);
}

function revertReason(data: string): string {
  if (!data.startsWith(ERROR_STRING)) return '';
  try {
    return AbiCoder.defaultAbiCoder().decode(['string'], dataSlice(data, 4))[0] as string;
  } catch {
    return '';
  }
}

export function callRoutes(view: LedgerView): Route[] {
  return [
    {
      method: 'POST',
      pattern: /^\/api\/v1\/contracts\/call$/,
      async handle(req) {
        const call = validate(req.body);
        const estimate = call.estimate === true;
        const tag = blockTag(view, call.block, estimate);
        // gasPrice is accepted for compatibility; read-only execution charges nothing, so it changes nothing.
        const tx = {
          ...(call.to ? { to: prefixed(call.to) } : {}),
          ...(call.from ? { from: prefixed(call.from) } : {}),
          ...(call.data ? { data: prefixed(call.data) } : {}),
          gas: hexQuantity(BigInt(Math.min(call.gas ?? DEFAULT_GAS, MAX_GAS))),
          ...(call.value ? { value: hexQuantity(BigInt(call.value) * WEIBAR_PER_TINYBAR) } : {}),
        };
        let frame: CallFrame;
        try {
          frame = (await view.evm.request({ method: 'debug_traceCall', params: [tx, tag, { tracer: 'callTracer' }] })) as CallFrame;
        } catch (err) {
          throw badRequest(`Bad request: ${(err as Error).message}`);
        }
        const output = frame.output ?? '0x';
        if (frame.error) {
          throw contractRevert({
            detail: revertReason(output) || (frame.error === 'execution reverted' ? '' : frame.error),
            // The spec's pattern wants at least one hex digit; a revert without data leaves `data` out.
            ...(output !== '0x' ? { data: output } : {}),
          });
        }
        if (!estimate) return { result: output };
        const gas = await view.evm.request({ method: 'eth_estimateGas', params: [tx, 'latest'] });
        return { result: gas };
      },
    },
  ];
}
