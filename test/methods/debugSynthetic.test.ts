/**
 * debug_trace* of a synthetic transaction: an HTS token transfer, which the ledger runs outside the EVM and the mirror
 * node shows only as Transfer logs, without a contract result. The official relay's debug acceptance suite traces one
 * (its "Synthetic HTS Transactions" tests): a single CALL frame from the sender to the recipient that used no gas, an
 * empty prestate and an empty struct log. Driven here with the SDK on the ledger sandbox, read through the gateway.
 */
import { AccountId, Client, PrivateKey, TokenAssociateTransaction, TokenCreateTransaction, TransferTransaction } from '@hashgraph/sdk';
import { expect } from 'chai';
import type { LedgerSandbox } from '../../packages/sandbox/src/index.js';
import { rpc, startTestGateway, type TestGateway } from '../support/gateway.js';

const NETWORK = 'hedera-testnet';

describe('debug_trace* of a synthetic HTS transfer (through the gateway, on the sandbox)', function () {
  let t: TestGateway;
  let sandbox: LedgerSandbox;
  let url: string;
  const clients: Client[] = [];
  let transferHash: string;
  let transferBlock: number;
  /** A transfer to two recipients: two Transfer logs, one transaction. */
  let splitLogs: Array<{ transaction_hash: string; block_number: number; topics: string[] }>;

  const traced = async (method: string, params: unknown[]) => {
    const { json } = await rpc(url, { jsonrpc: '2.0', id: 1, method, params });
    if (json.error) throw new Error(`${method}: ${json.error.code} ${json.error.message}`);
    return json.result;
  };

  const clientOf = (account: { accountId: string; privateKey: string }) => {
    const client = Client.forNetwork(sandbox.consensus, { scheduleNetworkUpdate: false }).setOperator(
      AccountId.fromString(account.accountId),
      PrivateKey.fromStringECDSA(account.privateKey),
    );
    clients.push(client);
    return client;
  };

  before(async () => {
    t = await startTestGateway();
    const network = t.gw.router.network(NETWORK)!;
    sandbox = await t.gw.local!.ledger(network);
    url = `${t.gw.url}/${NETWORK}/v1/${t.key}/rpc`;
    const [sender, recipient, third] = sandbox.accounts;
    const senderClient = clientOf(sender);
    const created = await new TokenCreateTransaction().setTokenName('Synthetic').setTokenSymbol('SYN').setTreasuryAccountId(sender.accountId).setInitialSupply(1000).execute(senderClient);
    const tokenId = (await created.getReceipt(senderClient)).tokenId!;
    for (const account of [recipient, third]) {
      const client = clientOf(account);
      await (await new TokenAssociateTransaction().setAccountId(account.accountId).setTokenIds([tokenId]).execute(client)).getReceipt(client);
    }
    /** The mirror node's logs of a transfer, found as the official suite finds them: by its consensus timestamp. */
    const send = async (transfer: TransferTransaction) => {
      const record = await (await transfer.execute(senderClient)).getRecord(senderClient);
      const timestamp = `${record.consensusTimestamp.seconds}.${String(record.consensusTimestamp.nanos).padStart(9, '0')}`;
      const { logs } = await (await fetch(`${sandbox.mirrorUrl}/api/v1/contracts/results/logs?timestamp=${timestamp}&order=asc`)).json();
      const { status } = await fetch(`${sandbox.mirrorUrl}/api/v1/contracts/results/${logs[0].transaction_hash}`);
      expect(status, 'a synthetic transaction has no contract result').to.equal(404);
      return logs;
    };
    const [log] = await send(new TransferTransaction().addTokenTransfer(tokenId, sender.accountId, -100).addTokenTransfer(tokenId, recipient.accountId, 100));
    transferHash = log.transaction_hash;
    transferBlock = log.block_number;
    splitLogs = await send(
      new TransferTransaction().addTokenTransfer(tokenId, sender.accountId, -30).addTokenTransfer(tokenId, recipient.accountId, 10).addTokenTransfer(tokenId, third.accountId, 20),
    );
    expect(splitLogs.map((l) => `0x${l.topics[2].slice(-40)}`)).to.have.members([recipient.address, third.address]);
  });

  after(async () => {
    for (const c of clients) c.close();
    await t?.close();
  });

  /** The frame the official relay answers: the Transfer log's sender and recipient (their EVM aliases), no gas used. */
  const transferFrame = () => ({
    type: 'CALL',
    from: sandbox.accounts[0].address,
    to: sandbox.accounts[1].address,
    gas: '0x61a80',
    gasUsed: '0x0',
    value: '0x0',
    input: '0x',
    output: '0x',
    calls: [],
  });

  it('callTracer gives one CALL frame from the token sender to the recipient, with or without onlyTopCall', async () => {
    expect(await traced('debug_traceTransaction', [transferHash, { tracer: 'callTracer', tracerConfig: { onlyTopCall: false } }])).to.deep.equal(transferFrame());
    expect(await traced('debug_traceTransaction', [transferHash, { tracer: 'callTracer', tracerConfig: { onlyTopCall: true } }])).to.deep.equal(transferFrame());
    // As geth's top frame carries the transaction's gas limit.
    expect((await traced('eth_getTransactionByHash', [transferHash])).gas).to.equal(transferFrame().gas);
  });

  it('prestateTracer gives an empty prestate, and the opcode logger (the default) an empty struct log', async () => {
    expect(await traced('debug_traceTransaction', [transferHash, { tracer: 'prestateTracer' }])).to.deep.equal({});
    const empty = { gas: 0, failed: false, returnValue: '', structLogs: [] };
    expect(await traced('debug_traceTransaction', [transferHash])).to.deep.equal(empty);
    expect(await traced('debug_traceTransaction', [transferHash, { tracer: 'opcodeLogger' }])).to.deep.equal(empty);
  });

  it('debug_traceBlockByNumber and ByHash trace every transaction the block lists, the synthetic one included', async () => {
    const block = await traced('eth_getBlockByNumber', [`0x${transferBlock.toString(16)}`, false]);
    expect(block.transactions).to.include(transferHash);
    const byNumber = await traced('debug_traceBlockByNumber', [`0x${transferBlock.toString(16)}`, { tracer: 'callTracer' }]);
    expect(byNumber.map((trace: { txHash: string }) => trace.txHash)).to.deep.equal(block.transactions);
    expect(byNumber.find((trace: { txHash: string }) => trace.txHash === transferHash).result).to.deep.equal(transferFrame());
    expect(await traced('debug_traceBlockByHash', [block.hash, { tracer: 'callTracer' }])).to.deep.equal(byNumber);
    const prestate = await traced('debug_traceBlockByHash', [block.hash, { tracer: 'prestateTracer' }]);
    expect(prestate.find((trace: { txHash: string }) => trace.txHash === transferHash).result).to.deep.equal({});
  });

  it('a transfer with two Transfer logs traces from its first, in a block trace as on its own', async () => {
    const [{ transaction_hash: hash, block_number: number, topics }] = splitLogs;
    const own = await traced('debug_traceTransaction', [hash, { tracer: 'callTracer' }]);
    expect(own).to.deep.equal({ ...transferFrame(), to: `0x${topics[2].slice(-40)}` });
    const inBlock = await traced('debug_traceBlockByNumber', [`0x${number.toString(16)}`, { tracer: 'callTracer' }]);
    expect(inBlock.find((trace: { txHash: string }) => trace.txHash === hash).result).to.deep.equal(own);
  });
});
