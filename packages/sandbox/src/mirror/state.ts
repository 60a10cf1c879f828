/**
 * Account state now or as of a past consensus timestamp. Balances live in the EVM (weibar), which keeps every
 * block's state, so a historical balance is the EVM's balance at the last block closed by then.
 */
import type { LedgerAccount, LedgerBlock, LedgerView } from '../ledger/view.js';
import { hexNumber, hexQuantity, timestampNanos, tinybarNumber } from './format.js';
import type { Filter } from './query.js';

export interface Snapshot {
  /** The consensus timestamp the state is as of; null before the first block. */
  timestamp: string | null;
  /** EVM block tag to read state at. */
  tag: string;
}

/** The newest block, or undefined before the first one closes. */
function newestBlock(view: LedgerView): LedgerBlock | undefined {
  return view.blocks().at(-1);
}

/** The consensus time the newest data is as of: the end of the newest block, else now. */
export function latestTimestamp(view: LedgerView): string {
  const block = newestBlock(view);
  if (block) return block.timestampTo;
  const ms = Date.now();
  return `${Math.floor(ms / 1000)}.${String((ms % 1000) * 1_000_000).padStart(9, '0')}`;
}

/** The inclusive nanosecond range a set of timestamp filters admits; open ends are undefined. */
export function timestampRange(filters: readonly Filter[] | undefined): { earliest?: bigint; latest?: bigint } {
  let earliest: bigint | undefined;
  let latest: bigint | undefined;
  for (const f of filters ?? []) {
    const t = timestampNanos(f.value);
    if (f.op === 'gt' || f.op === 'gte' || f.op === 'eq') {
      const from = f.op === 'gt' ? t + 1n : t;
      if (earliest === undefined || from > earliest) earliest = from;
    }
    if (f.op === 'lt' || f.op === 'lte' || f.op === 'eq') {
      const to = f.op === 'lt' ? t - 1n : t;
      if (latest === undefined || to < latest) latest = to;
    }
  }
  return { earliest, latest };
}

/**
 * The snapshot a `timestamp` filter asks for: its upper bound (lt, lte or eq) picks the last block closed by then;
 * without one, the newest state. A bound before the first block yields no snapshot.
 */
export function snapshotFor(view: LedgerView, filters: readonly Filter[] | undefined): Snapshot | undefined {
  const limit = timestampRange(filters).latest;
  if (limit === undefined) return { timestamp: newestBlock(view)?.timestampTo ?? null, tag: 'latest' };
  const blocks = view.blocks();
  let block: LedgerBlock | undefined;
  for (let i = blocks.length - 1; i >= 0 && !block; i--) if (timestampNanos(blocks[i].timestampTo) <= limit) block = blocks[i];
  return block && { timestamp: block.timestampTo, tag: hexQuantity(BigInt(block.number)) };
}

export async function balanceAt(view: LedgerView, account: LedgerAccount, snapshot: Snapshot): Promise<number> {
  if (snapshot.tag === 'latest') return Number(await view.balanceTinybar(account));
  return tinybarNumber((await view.evm.request({ method: 'eth_getBalance', params: [account.evmAddress, snapshot.tag] })) as string);
}

export async function nonceAt(view: LedgerView, account: LedgerAccount, snapshot: Snapshot): Promise<number> {
  return hexNumber((await view.evm.request({ method: 'eth_getTransactionCount', params: [account.evmAddress, snapshot.tag] })) as string);
}

/** EIP-7702: the code `0xef0100 ‖ address` designates the account's delegate. */
const DELEGATION_PREFIX = '0xef0100';

/** The address an EOA delegates its code to (EIP-7702), or null; the real node lists it on each account. */
export async function delegationAt(view: LedgerView, account: LedgerAccount, snapshot: Snapshot): Promise<string | null> {
  if (account.isContract) return null;
  const code = ((await view.evm.request({ method: 'eth_getCode', params: [account.evmAddress, snapshot.tag] })) as string).toLowerCase();
  return code.startsWith(DELEGATION_PREFIX) && code.length === DELEGATION_PREFIX.length + 40 ? `0x${code.slice(DELEGATION_PREFIX.length)}` : null;
}
