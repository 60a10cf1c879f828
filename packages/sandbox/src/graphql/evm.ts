/**
 * The beta GraphQL stand-in of an EVM chain: a subset of the EIP-1767 schema (what geth serves on /graphql) over a
 * devnet's JSON-RPC, so `/beta/graphql` works offline. Quantities are 0x-hex strings as EIP-1767 outputs them; Long
 * arguments take numbers, decimal strings or 0x-hex.
 */
import { buildSchema } from 'graphql';
import { serveGraphql, type StandIn } from './server.js';

const SDL = /* GraphQL */ `
  scalar Bytes32
  scalar Address
  scalar Bytes
  scalar BigInt
  scalar Long

  type Account { address: Address! balance: BigInt! transactionCount: Long! code: Bytes! }
  type Log { index: Long! account: Account! topics: [Bytes32!]! data: Bytes! transaction: Transaction! }
  type Transaction {
    hash: Bytes32! nonce: Long! index: Long from: Account! to: Account value: BigInt! gasPrice: BigInt gas: Long!
    inputData: Bytes! block: Block status: Long gasUsed: Long createdContract: Account logs: [Log!]
  }
  input BlockFilterCriteria { addresses: [Address!] topics: [[Bytes32!]!] }
  type Block {
    number: Long! hash: Bytes32! parent: Block timestamp: Long! gasLimit: Long! gasUsed: Long! baseFeePerGas: BigInt
    miner: Account! transactionCount: Long transactions: [Transaction!] transactionAt(index: Long!): Transaction
    logs(filter: BlockFilterCriteria!): [Log!]!
  }
  input FilterCriteria { fromBlock: Long toBlock: Long addresses: [Address!] topics: [[Bytes32!]!] }
  type Query {
    block(number: Long, hash: Bytes32): Block
    blocks(from: Long, to: Long): [Block!]!
    transaction(hash: Bytes32!): Transaction
    logs(filter: FilterCriteria!): [Log!]!
    chainID: BigInt!
    gasPrice: BigInt!
  }
`;

/** The most blocks one `blocks` query walks; local EVM nodes are not hardened against huge ranges. */
const MAX_BLOCK_RANGE = 100;

type Rpc = <T>(method: string, params?: unknown[]) => Promise<T>;
type Json = Record<string, any>;

function rpcClient(url: string): Rpc {
  let id = 0;
  return async <T>(method: string, params: unknown[] = []) => {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }) });
    const body = (await res.json()) as { result?: T; error?: { message: string } };
    if (body.error) throw new Error(body.error.message);
    return body.result as T;
  };
}

function quantity(v: unknown): string {
  if (typeof v === 'number' || (typeof v === 'string' && /^\d+$/.test(v))) return `0x${BigInt(v).toString(16)}`;
  if (typeof v === 'string' && /^0x[0-9a-f]+$/i.test(v)) return v.toLowerCase();
  throw new TypeError(`Long expects a number, a decimal string or 0x-hex, got ${JSON.stringify(v)}`);
}

function account(rpc: Rpc, address: string, blockTag = 'latest') {
  return {
    address,
    balance: () => rpc<string>('eth_getBalance', [address, blockTag]),
    transactionCount: () => rpc<string>('eth_getTransactionCount', [address, blockTag]),
    code: () => rpc<string>('eth_getCode', [address, blockTag]),
  };
}

function log(rpc: Rpc, l: Json): Json {
  return {
    index: l.logIndex,
    account: account(rpc, l.address),
    topics: l.topics,
    data: l.data,
    transaction: () => transaction(rpc, l.transactionHash),
  };
}

async function transaction(rpc: Rpc, hash: string): Promise<Json | null> {
  const tx = await rpc<Json | null>('eth_getTransactionByHash', [hash]);
  if (!tx) return null;
  const receipt = () => rpc<Json | null>('eth_getTransactionReceipt', [hash]);
  return {
    hash: tx.hash,
    nonce: tx.nonce,
    index: tx.transactionIndex,
    from: account(rpc, tx.from),
    to: tx.to ? account(rpc, tx.to) : null,
    value: tx.value,
    gasPrice: tx.gasPrice,
    gas: tx.gas,
    inputData: tx.input,
    block: () => (tx.blockHash ? block(rpc, ['eth_getBlockByHash', tx.blockHash]) : null),
    status: async () => (await receipt())?.status ?? null,
    gasUsed: async () => (await receipt())?.gasUsed ?? null,
    createdContract: async () => {
      const address = (await receipt())?.contractAddress;
      return address ? account(rpc, address) : null;
    },
    logs: async () => ((await receipt())?.logs ?? []).map((l: Json) => log(rpc, l)),
  };
}

async function block(rpc: Rpc, [method, id]: ['eth_getBlockByNumber' | 'eth_getBlockByHash', string]): Promise<Json | null> {
  const b = await rpc<Json | null>(method, [id, false]);
  if (!b) return null;
  const hashes = b.transactions as string[];
  return {
    number: b.number,
    hash: b.hash,
    parent: () => (BigInt(b.number) === 0n ? null : block(rpc, ['eth_getBlockByHash', b.parentHash])),
    timestamp: b.timestamp,
    gasLimit: b.gasLimit,
    gasUsed: b.gasUsed,
    baseFeePerGas: b.baseFeePerGas ?? null,
    miner: account(rpc, b.miner, b.number),
    transactionCount: `0x${hashes.length.toString(16)}`,
    transactions: () => Promise.all(hashes.map((h) => transaction(rpc, h))),
    transactionAt: ({ index }: { index: unknown }) => {
      const h = hashes[Number(BigInt(quantity(index)))];
      return h ? transaction(rpc, h) : null;
    },
    logs: async ({ filter }: { filter: Json }) =>
      (await rpc<Json[]>('eth_getLogs', [{ blockHash: b.hash, address: filter.addresses, topics: filter.topics }])).map((l) => log(rpc, l)),
  };
}

function rootValue(rpc: Rpc) {
  return {
    block: ({ number, hash }: { number?: unknown; hash?: string }) =>
      hash ? block(rpc, ['eth_getBlockByHash', hash]) : block(rpc, ['eth_getBlockByNumber', number == null ? 'latest' : quantity(number)]),
    blocks: async ({ from, to }: { from?: unknown; to?: unknown }) => {
      const latest = BigInt(await rpc<string>('eth_blockNumber'));
      const end = to == null ? latest : BigInt(quantity(to)) < latest ? BigInt(quantity(to)) : latest;
      const start = from == null ? end : BigInt(quantity(from));
      if (end - start >= BigInt(MAX_BLOCK_RANGE)) throw new Error(`at most ${MAX_BLOCK_RANGE} blocks per query`);
      const numbers: bigint[] = [];
      for (let n = start; n <= end; n++) numbers.push(n);
      return Promise.all(numbers.map((n) => block(rpc, ['eth_getBlockByNumber', `0x${n.toString(16)}`])));
    },
    transaction: ({ hash }: { hash: string }) => transaction(rpc, hash),
    logs: async ({ filter }: { filter: Json }) => {
      const query = {
        fromBlock: filter.fromBlock == null ? 'latest' : quantity(filter.fromBlock),
        toBlock: filter.toBlock == null ? 'latest' : quantity(filter.toBlock),
        address: filter.addresses,
        topics: filter.topics,
      };
      return (await rpc<Json[]>('eth_getLogs', [query])).map((l) => log(rpc, l));
    },
    chainID: () => rpc<string>('eth_chainId'),
    gasPrice: () => rpc<string>('eth_gasPrice'),
  };
}

/** Serves the EIP-1767 subset for the devnet at `rpcUrl` on `/beta/graphql`; `url` is the full endpoint. */
export async function startEvmGraphql(rpcUrl: string, opts: { host?: string; port?: number } = {}): Promise<StandIn> {
  return serveGraphql(buildSchema(SDL), '/beta/graphql', opts, rootValue(rpcClient(rpcUrl)));
}
