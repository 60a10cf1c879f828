import { isLongZero } from '../ledger/addresses.js';
import { address, blockNumberOrTagOrHash, positional } from './params.js';
import { stateTimestamp } from './shared.js';
import type { MethodEnv } from './types.js';

/** The ledger's system contracts (token service, schedule service): precompiles, which have no bytecode to show. */
const HTS = '0x0000000000000000000000000000000000000167';
const HSS = '0x000000000000000000000000000000000000016b';
/** What an Ethereum node answers for an address whose code it cannot show: the INVALID opcode. */
const INVALID_OPCODE = '0xfe';

/** An EIP-7702 delegation designator: the code of an address that runs another address's code. */
function delegationTo(target: string): string {
  return `0xef0100${target.slice(2).toLowerCase()}`;
}

interface Entity {
  created_timestamp?: string | null;
}

/**
 * Mirror: GET /api/v1/contracts/{address} (runtime_bytecode); for a long-zero address that is no contract,
 * GET /api/v1/tokens/{id} (an HTS token's ERC-20/721 facade: a delegation to the token service, 0x167) and
 * GET /api/v1/schedules/{id} (a delegation to the schedule service, 0x16b); otherwise GET /api/v1/accounts/{address}
 * (an EIP-7702 delegated account's designator). The system contracts themselves answer 0xfe. Before the entity's
 * creation, or no entity, is 0x.
 */
export async function eth_getCode(params: unknown[], env: MethodEnv): Promise<string> {
  const [addr, ref] = positional(params, 1, 2);
  const who = address(addr, 0);
  const at = await stateTimestamp(env, blockNumberOrTagOrHash(ref, 1));
  if (who === HTS || who === HSS) return INVALID_OPCODE;
  const existed = (entity: Entity) => at === undefined || !entity.created_timestamp || Number(entity.created_timestamp) <= Number(at);
  const get = <T>(path: string) => env.reads.mirror.get<T & Entity>(path);

  const contract = await get<{ runtime_bytecode: string | null }>(`/api/v1/contracts/${who}`);
  if (contract) return contract.runtime_bytecode && contract.runtime_bytecode !== '0x' && existed(contract) ? contract.runtime_bytecode.toLowerCase() : '0x';
  if (isLongZero(who)) {
    const id = `0.0.${BigInt(who)}`;
    const token = await get<object>(`/api/v1/tokens/${id}`);
    if (token) return existed(token) ? delegationTo(HTS) : '0x';
    const schedule = await get<{ consensus_timestamp?: string }>(`/api/v1/schedules/${id}`);
    if (schedule) return existed({ created_timestamp: schedule.consensus_timestamp }) ? delegationTo(HSS) : '0x';
  }
  const account = await get<{ delegation_address?: string | null }>(`/api/v1/accounts/${who}?transactions=false`);
  const delegate = account?.delegation_address;
  return delegate && /^0x[0-9a-fA-F]{40}$/.test(delegate) && delegate !== `0x${'0'.repeat(40)}` && existed(account) ? delegationTo(delegate) : '0x';
}
