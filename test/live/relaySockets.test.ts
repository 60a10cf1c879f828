/**
 * The ledger's JSON-RPC WebSocket against what the official relay's WebSocket suites check (its
 * tests/ws-server/acceptance: validations, batchRequest, subscribe, subscribeNewHeads), through a real gateway on the
 * sandbox: logs by a contract's long-zero address, newHeads with their transactions, and the official codes and words
 * (`[Request ID: <uuid>] ...`) for invalid requests, unknown methods and subscriptions it does not offer.
 */
import { expect } from 'chai';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { deployCounter, valueOf, type DeployedCounter } from './counter.js';
import { Client } from './wsClient.js';
import { OFFICIAL_BATCH_DISALLOWED_METHODS } from '../../src/config/schema.js';

/** The official suites' `requestIdRegex`: the message after a request id, as its tests match it. */
const named = (message: string) => new RegExp(`^\\[Request ID: [0-9a-fA-F-]{36}\\] ${message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`);

describe('ledger JSON-RPC over WebSocket, as the official relay answers it', function () {
  this.timeout(120_000);
  let t: TestGateway;
  let ws: string;
  let counter: DeployedCounter;
  let longZero: string;

  before(async () => {
    // The official relay's defaults where ours differ: traces and filters refused in batches, one address per logs subscription.
    t = await startTestGateway({ live: { pollIntervalMs: 50 }, relay: { batchDisallowedMethods: OFFICIAL_BATCH_DISALLOWED_METHODS, subscriptionMaxAddresses: 1 } });
    ws = `${t.gw.url.replace(/^http/, 'ws')}/hedera-testnet/v1/${t.key}/rpc`;
    counter = await deployCounter(`${t.gw.url}/hedera-testnet/v1/${t.key}/rpc`, 1);
    const res = await fetch(`${t.gw.url}/hedera-testnet/api/v1/contracts/${counter.address}`, { headers: { 'x-api-key': t.key } });
    const contract = (await res.json()) as { contract_id: string };
    longZero = `0x${BigInt(contract.contract_id.split('.')[2]).toString(16).padStart(40, '0')}`;
  });
  after(async () => {
    counter?.close();
    await t?.close();
  });

  it("logs by the contract's long-zero address deliver its logs; a block range is accepted and dropped", async () => {
    expect(longZero).not.to.equal(counter.address);
    const client = await Client.open(ws);
    try {
      const byLongZero = await client.call('eth_subscribe', ['logs', { address: longZero }]);
      const withRange = await client.call('eth_subscribe', ['logs', { address: counter.address, fromBlock: '0x1', toBlock: 'latest', topics: [counter.topic] }]);
      expect(byLongZero.result).to.match(/^0x[0-9a-f]{32}$/);
      expect(withRange.result).to.match(/^0x[0-9a-f]{32}$/);
      await counter.set(41n);
      await client.until(() => (client.notifications(byLongZero.result).length > 0 && client.notifications(withRange.result).length > 0 ? true : undefined));
      const [log] = client.notifications(byLongZero.result);
      expect(valueOf(log)).to.equal(41n);
      expect(log.address).to.equal(counter.address);
      expect(client.notifications(withRange.result).map(valueOf)).to.deep.equal([41n]);
    } finally {
      client.close();
    }
  });

  it('logs filters that are malformed or name neither a contract nor a token are refused with the official words', async () => {
    const client = await Client.open(ws);
    const nobody = '0x00000000000000000000000000000000000fffff';
    const refusals: Array<[unknown, string]> = [
      [{ address: nobody }, `Invalid parameter filters.address: ${nobody} is not a valid contract or token type or does not exists`],
      [
        { address: '0x12' },
        "Invalid parameter 'address' for EthSubscribeLogsParamsObject: Expected 0x prefixed string representing the address (20 bytes) or an array of addresses, value: 0x12",
      ],
      [
        { topics: ['0x12'] },
        'Invalid parameter \'topics\' for EthSubscribeLogsParamsObject: Expected an array or array of arrays containing Expected 0x prefixed string representing the hash (32 bytes) of a topic, value: ["0x12"]',
      ],
    ];
    refusals.push([{ address: [counter.address, longZero] }, 'Invalid parameter filters.address: Only one contract address is allowed']);
    expect((await client.call('eth_subscribe', ['logs', { address: [counter.address, counter.address] }])).result).to.match(/^0x[0-9a-f]{32}$/);
    for (const [filter, message] of refusals) {
      const { error } = await client.call('eth_subscribe', ['logs', filter]);
      expect(error.code, message).to.equal(-32602);
      expect(error.message).to.match(named(message));
    }
    client.close();
  });

  it('eth_unsubscribe of an unknown id answers false, as the official relay does', async () => {
    const client = await Client.open(ws);
    expect((await client.call('eth_unsubscribe', ['0x1234'])).result).to.equal(false);
    const id = (await client.call('eth_subscribe', ['newHeads'])).result;
    expect((await client.call('eth_unsubscribe', [id])).result).to.equal(true);
    expect((await client.call('eth_unsubscribe', [id])).result).to.equal(false);
    client.close();
  });

  it('newHeads carry the block with its transaction hashes, and with includeTransactions the transactions in full', async () => {
    const client = await Client.open(ws);
    try {
      const hashes = (await client.call('eth_subscribe', ['newHeads'])).result;
      const full = (await client.call('eth_subscribe', ['newHeads', { includeTransactions: true }])).result;
      const plain = (await client.call('eth_subscribe', ['newHeads', { includeTransactions: false }])).result;
      const { blockHash } = await counter.set(42n);
      const withBlock = (id: string) => client.notifications(id).find((b) => b.hash === blockHash);
      await client.until(() => (withBlock(hashes) && withBlock(full) && withBlock(plain) ? true : undefined));
      const [tx] = withBlock(full).transactions;
      expect(withBlock(hashes).transactions).to.deep.equal([tx.hash]);
      expect(withBlock(plain)).to.deep.equal(withBlock(hashes));
      expect(tx).to.include.keys('hash', 'nonce', 'blockHash', 'blockNumber', 'transactionIndex', 'from', 'to', 'value', 'gas', 'gasPrice', 'input', 'v', 'r', 's', 'type', 'chainId');
      expect(tx.blockHash).to.equal(blockHash);
      expect(withBlock(hashes)).to.include.keys('number', 'parentHash', 'timestamp', 'logsBloom', 'miner', 'gasLimit', 'gasUsed', 'receiptsRoot', 'stateRoot', 'transactionsRoot');
    } finally {
      client.close();
    }
  });

  it('newPendingTransactions and unknown kinds are -32601 "Unsupported JSON-RPC method"', async () => {
    const client = await Client.open(ws);
    for (const kind of ['newPendingTransactions', 'other']) {
      const { error } = await client.call('eth_subscribe', [kind]);
      expect(error.code, kind).to.equal(-32601);
      expect(error.message, kind).to.match(named('Unsupported JSON-RPC method'));
    }
    client.close();
  });

  it('invalid requests are -32600 "Invalid Request", unknown methods -32601 "Method <name> not found", each naming its request', async () => {
    const client = await Client.open(ws);
    for (const request of [
      { id: '1', method: 'eth_blockNumber', params: [] },
      { id: '1', jsonrpc: '2.0', params: [] },
      { id: '1', jsonrpc: 'hedera', method: 'eth_blockNumber', params: [] },
    ]) {
      const answer = await client.send(request);
      expect(answer.error.code, JSON.stringify(request)).to.equal(-32600);
      expect(answer.error.message, JSON.stringify(request)).to.match(named('Invalid Request'));
    }
    for (const method of ['eth_getChainId', 'getLogs', 'ethCall', 'blockNum', 'getGasPrice']) {
      const { error } = await client.call(method, []);
      expect(error).to.deep.include({ code: -32601 });
      expect(error.message).to.match(named(`Method ${method} not found`));
    }
    const ids = new Set<string>();
    for (let i = 0; i < 3; i++) ids.add((await client.call('getLogs', [])).error.message.slice(0, 50));
    expect(ids.size, 'each message has its own request id').to.equal(3);
    client.close();
  });

  it('a batch answers each call as the call alone would, request ids aside', async () => {
    const client = await Client.open(ws);
    const calls = [
      ['eth_chainId', []],
      ['eth_gasPrice', []],
      ['eth_getBalance', [counter.address, 'latest']],
      ['eth_getBalance', ['0xhedera', 'latest']],
      ['getLogs', []],
    ] as const;
    const batch = await client.send(calls.map(([method, params]) => ({ jsonrpc: '2.0', id: 1, method, params })));
    const alone = [];
    for (const [method, params] of calls) alone.push(await client.call(method, [...params]));
    const withoutId = (a: any) => (a.error ? { code: a.error.code, message: a.error.message.replace(/^\[Request ID: [^\]]+\] /, '') } : a.result);
    expect(batch.map(withoutId)).to.deep.equal(alone.map(withoutId));
    expect(batch.filter((a: any) => a.error)).to.have.length(2);
    client.close();
  });

  it('methods set as relay.batchDisallowedMethods are -32007 in a batch, in the official words; alone they are answered', async () => {
    const client = await Client.open(ws);
    const methods = OFFICIAL_BATCH_DISALLOWED_METHODS;
    const batch = await client.send([...methods.map((method, id) => ({ jsonrpc: '2.0', id, method, params: [] })), { jsonrpc: '2.0', id: 99, method: 'eth_chainId', params: [] }]);
    methods.forEach((method, i) => {
      expect(batch[i].id).to.equal(i);
      expect(batch[i].error.code, method).to.equal(-32007);
      expect(batch[i].error.message).to.match(named(`Method ${method} is not permitted as part of batch requests`));
    });
    expect(batch[methods.length]).to.deep.include({ id: 99, result: '0x128' });
    expect((await client.call('eth_newBlockFilter', [])).result).to.match(/^0x[0-9a-f]+$/);
    client.close();
  });
});
