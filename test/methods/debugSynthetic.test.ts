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
    const [sender, recipient] = sandbox.accounts;
    const senderClient = clientOf(sender);
    const created = await new TokenCreateTransaction().setTokenName('Synthetic').setTokenSymbol('SYN').setTreasuryAccountId(sender.accountId).setInitialSupply(1000).execute(senderClient);
    const tokenId = (await created.getReceipt(senderClient)).tokenId!;
    const recipientClient = clientOf(recipient);
    await (await new TokenAssociateTransaction().setAccountId(recipient.accountId).setTokenIds([tokenId]).execute(recipientClient)).getReceipt(recipientClient);
    const transfer = await new TransferTransaction()
      .addTokenTransfer(tokenId, sender.accountId, -100)
      .addTokenTransfer(tokenId, recipient.accountId, 100)
      .execute(senderClient);
    const record = await transfer.getRecord(senderClient);
    // The hash as the official suite finds it: the mirror node's logs at the transfer's consensus timestamp.
    const timestamp = `${record.consensusTimestamp.seconds}.${String(record.consensusTimestamp.nanos).padStart(9, '0')}`;
    const { logs } = await (await fetch(`${sandbox.mirrorUrl}/api/v1/contracts/results/logs?timestamp=${timestamp}`)).json();
    expect(logs).to.have.length(1);
    transferHash = logs[0].transaction_hash;
    transferBlock = logs[0].block_number;
    const { status } = await fetch(`${sandbox.mirrorUrl}/api/v1/contracts/results/${transferHash}`);
    expect(status, 'a synthetic transaction has no contract result').to.equal(404);
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
});
