import { formatEther } from 'ethers/utils';
import { z } from 'zod';
import type { NetworkRef, Router } from '../../edge/route.js';
import { ToolFailure, scrub, type SelfCall } from '../selfClient.js';
import { findNetwork, requireKey, structured, type ToolDeps } from './deps.js';
import { defineTool, type ToolDefinition } from './define.js';
import { blockParam, blockRefInput, blockTagInput, chainInput, networkInput } from './inputs.js';

const jsonObject = z.record(z.string(), z.unknown());
const HASH = /^0x([0-9a-fA-F]{64}|[0-9a-fA-F]{96})$/;

/** `rpc_call` and the convenience tools built on it; all go through the network's /rpc like any client. */
export function rpcTools(router: Router): ToolDefinition[] {
  const where = { chain: chainInput(router), network: networkInput };
  const target = (deps: ToolDeps, chain: string, network: string) => ({ call: requireKey(deps), ref: findNetwork(deps.router, chain, network, 'rpc') });
  return [
    defineTool(
      'rpc_call',
      {
        title: 'Ethereum JSON-RPC call',
        description:
          'Sends one Ethereum JSON-RPC 2.0 call (eth_blockNumber, eth_call, eth_getLogs, eth_sendRawTransaction, ...) to a chain and network ' +
          'through the gateway, exactly as a client of /rpc would, and returns its result. On the ledger chain the gateway relay answers eth_* methods. ' +
          'Charged to your API key like any request; JSON-RPC errors come back as tool errors with their code.',
        inputSchema: {
          ...where,
          method: z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/, 'method must be a JSON-RPC method name such as eth_blockNumber').describe('JSON-RPC method, e.g. eth_blockNumber'),
          params: z.array(z.unknown()).default([]).describe('Positional params as a JSON array, e.g. ["0xabc...", "latest"]'),
        },
        outputSchema: { chain: z.string(), network: z.string(), method: z.string(), result: z.unknown().describe('The JSON-RPC result, as returned') },
        annotations: { readOnlyHint: false, openWorldHint: true },
      },
      async (deps, { chain, network, method, params }) => {
        const { call, ref } = target(deps, chain, network);
        const [result] = await rpcCalls(deps, ref, [{ method, params }], call);
        return structured({ chain: ref.chainName, network: ref.networkName, method, result });
      },
    ),
    defineTool(
      'get_balance',
      {
        title: 'Get native balance',
        description:
          'Returns the native-coin balance of an address (ETH, HBAR, ...) in wei and in whole coins (18 decimals; on the ledger chain the relay reports weibar, ' +
          '1 HBAR = 10^18 weibar). Accepts a 0x address, or on the ledger chain an account id such as 0.0.1234. Uses eth_getBalance via rpc.',
        inputSchema: {
          ...where,
          address: z
            .string()
            .regex(/^(0x[0-9a-fA-F]{40}|\d{1,10}\.\d{1,10}\.\d{1,19})$/, 'address must be a 0x-prefixed 20-byte hex address, or a ledger account id such as 0.0.1234')
            .describe('0x address, or ledger account id shard.realm.num'),
          block: blockTagInput.describe('Block tag or number; latest by default'),
        },
        outputSchema: {
          chain: z.string(),
          network: z.string(),
          address: z.string(),
          block: z.string(),
          wei: z.string().describe('Balance in the smallest unit, decimal'),
          formatted: z.string().describe('Balance in whole coins (wei / 10^18)'),
        },
        annotations: { readOnlyHint: true, openWorldHint: true },
      },
      async (deps, { chain, network, address, block }) => {
        const { call, ref } = target(deps, chain, network);
        if (!address.startsWith('0x') && ref.chain.kind !== 'ledger') throw new ToolFailure(`${ref.id} is an EVM chain: give a 0x address`);
        const evmAddress = address.startsWith('0x') ? address : accountIdToAddress(address);
        const [balance] = await rpcCalls(deps, ref, [{ method: 'eth_getBalance', params: [evmAddress, blockParam(block)] }], call);
        const wei = quantity(balance, 'eth_getBalance');
        return structured({ chain: ref.chainName, network: ref.networkName, address, block, wei: wei.toString(), formatted: formatEther(wei) });
      },
    ),
    defineTool(
      'get_transaction',
      {
        title: 'Get a transaction and its receipt',
        description:
          'Looks up a transaction by hash and returns it with its receipt (status, gas used, logs). Both are null when the network does not know the hash. ' +
          'Uses eth_getTransactionByHash and eth_getTransactionReceipt via rpc (charged as two calls).',
        inputSchema: {
          ...where,
          hash: z.string().regex(HASH, 'hash must be a 0x-prefixed 32-byte transaction hash (64 hex digits)').describe('Transaction hash, 0x + 64 hex digits'),
        },
        outputSchema: { chain: z.string(), network: z.string(), hash: z.string(), transaction: jsonObject.nullable(), receipt: jsonObject.nullable() },
        annotations: { readOnlyHint: true, openWorldHint: true },
      },
      async (deps, { chain, network, hash }) => {
        const { call, ref } = target(deps, chain, network);
        const lookups = [
          { method: 'eth_getTransactionByHash', params: [hash] },
          { method: 'eth_getTransactionReceipt', params: [hash] },
        ];
        const [transaction, receipt] = await rpcCalls(deps, ref, lookups, call);
        return structured({ chain: ref.chainName, network: ref.networkName, hash, transaction: objectOrNull(transaction), receipt: objectOrNull(receipt) });
      },
    ),
    defineTool(
      'get_block',
      {
        title: 'Get a block',
        description:
          'Returns a block by number, tag (latest, finalized, ...) or hash; null when it does not exist. With fullTransactions the block lists whole ' +
          'transactions instead of hashes. Uses eth_getBlockByNumber or eth_getBlockByHash via rpc.',
        inputSchema: {
          ...where,
          block: blockRefInput.describe('Block number (decimal or 0x hex), tag, or 0x block hash; latest by default'),
          fullTransactions: z.boolean().default(false).describe('true to include whole transactions rather than their hashes'),
        },
        outputSchema: { chain: z.string(), network: z.string(), block: jsonObject.nullable() },
        annotations: { readOnlyHint: true, openWorldHint: true },
      },
      async (deps, { chain, network, block, fullTransactions }) => {
        const { call, ref } = target(deps, chain, network);
        const method = block.length === 66 ? 'eth_getBlockByHash' : 'eth_getBlockByNumber';
        const [found] = await rpcCalls(deps, ref, [{ method, params: [blockParam(block), fullTransactions] }], call);
        return structured({ chain: ref.chainName, network: ref.networkName, block: objectOrNull(found) });
      },
    ),
  ];
}

/** Sends the calls (as a batch when several) and returns their results in order; a JSON-RPC error fails the tool. */
async function rpcCalls(deps: ToolDeps, ref: NetworkRef, calls: Array<{ method: string; params: unknown[] }>, call: SelfCall): Promise<unknown[]> {
  const requests = calls.map((c, i) => ({ jsonrpc: '2.0', id: i + 1, method: c.method, params: c.params }));
  const answer = await deps.client.rpc(ref.id, requests.length === 1 ? requests[0] : requests, call);
  const answers = Array.isArray(answer) ? answer : [answer];
  return requests.map((r) => {
    const a = answers.find((x) => x.id === r.id) ?? (answers.length === 1 ? answers[0] : undefined);
    if (!a) throw new ToolFailure(`${r.method} on ${ref.id}: no answer`);
    if (a.error) {
      const data = a.error.data === undefined ? '' : ` (data: ${JSON.stringify(a.error.data)})`;
      throw new ToolFailure(scrub(`${r.method} on ${ref.id} failed with JSON-RPC error ${a.error.code}: ${a.error.message}${data}`, call.key));
    }
    return a.result ?? null;
  });
}

function quantity(value: unknown, method: string): bigint {
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]+$/.test(value)) throw new ToolFailure(`${method} returned ${JSON.stringify(value)}, not a hex quantity`);
  return BigInt(value);
}

function objectOrNull(value: unknown): Record<string, unknown> | null {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

/** The ledger's long-zero EVM address of shard.realm.num: 4 bytes shard, 8 bytes realm, 8 bytes num. */
function accountIdToAddress(id: string): string {
  const [shard, realm, num] = id.split('.').map((p) => BigInt(p));
  const hex = (v: bigint, bytes: number) => v.toString(16).padStart(bytes * 2, '0');
  if (shard >= 1n << 32n || realm >= 1n << 64n || num >= 1n << 64n) throw new ToolFailure(`account id ${id} is out of range`);
  return `0x${hex(shard, 4)}${hex(realm, 8)}${hex(num, 8)}`;
}
