import * as grpc from '@grpc/grpc-js';
import {
  AccountBalanceQuery,
  AccountId,
  Client,
  EthereumTransaction,
  FileAppendTransaction,
  FileContentsQuery,
  FileCreateTransaction,
  Hbar,
  PrecheckStatusError,
  PrivateKey,
  ReceiptStatusError,
  Status,
  Timestamp,
  TransactionId,
  TransactionRecordQuery,
} from '@hashgraph/sdk';
import { proto } from '@hashgraph/proto';
import { expect } from 'chai';
import { Transaction, Wallet, getCreateAddress, type TransactionRequest } from 'ethers';
import { startLedgerSandbox, type LedgerSandbox } from '../src/index.js';
import { ANSWER_RUNTIME, deploymentOfSize } from '../src/initcode.js';
import { submitSigned } from './submitSigned.js';

const CHAIN_ID = 298;
/** Init code of a contract whose runtime returns 42 for any call, and nothing more. */
const RETURNS_42 = deploymentOfSize(22);
const GAS_PRICE = 710_000_000_000n; // the ledger's 71 tinybar per gas, in weibar

function sdkClient(sandbox: LedgerSandbox, accountId: string, key: PrivateKey): Client {
  return Client.forNetwork(sandbox.consensus, { scheduleNetworkUpdate: false }).setOperator(AccountId.fromString(accountId), key);
}

async function statusOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'SUCCESS';
  } catch (err) {
    if (err instanceof PrecheckStatusError || err instanceof ReceiptStatusError) return `${err.constructor.name}:${err.status.toString()}`;
    throw err;
  }
}

describe('sandbox: ledger consensus node with the real SDK', () => {
  let sandbox: LedgerSandbox;
  let client: Client;
  let wallet: Wallet;
  let nonce = 0;

  const sign = (tx: TransactionRequest) =>
    wallet.signTransaction({ type: 2, chainId: CHAIN_ID, nonce: nonce++, gasLimit: 200_000, maxFeePerGas: GAS_PRICE, maxPriorityFeePerGas: 0, ...tx });
  const ethereumTransaction = (raw: string) => new EthereumTransaction().setEthereumData(Buffer.from(raw.slice(2), 'hex')).setMaxGasAllowanceHbar(new Hbar(1));

  before(async () => {
    sandbox = await startLedgerSandbox({ chainId: CHAIN_ID, blockIntervalMs: 0 });
    client = sdkClient(sandbox, sandbox.operator.accountId, PrivateKey.fromStringDer(sandbox.operator.privateKey));
    wallet = new Wallet(sandbox.accounts[0].privateKey);
  });
  after(async () => {
    client?.close();
    await sandbox?.close();
  });

  it('executes a contract deployment signed with ethers and answers SUCCESS with the new contract id', async () => {
    const raw = await sign({ data: RETURNS_42 });
    const response = await ethereumTransaction(raw).execute(client);
    const receipt = await response.getReceipt(client);
    expect(receipt.status).to.equal(Status.Success);
    const address = getCreateAddress({ from: wallet.address, nonce: nonce - 1 });
    expect(receipt.contractId?.toString()).to.equal(sandbox.chain.account(address)?.id);
    const code = await sandbox.chain.evm.request({ method: 'eth_getCode', params: [address, 'latest'] });
    expect(code).to.equal(`0x${ANSWER_RUNTIME}`);
    const recorded = sandbox.chain.transactionByEthHash(Transaction.from(raw).hash!);
    expect(recorded).to.include({ name: 'ETHEREUMTRANSACTION', result: 'SUCCESS', payerAccountId: sandbox.operator.accountId });
    expect(sandbox.chain.blockByNumber(recorded!.blockNumber)?.hash.slice(0, 66)).to.equal(
      ((await sandbox.chain.evm.request({ method: 'eth_getBlockByNumber', params: [`0x${recorded!.blockNumber.toString(16)}`, false] })) as { hash: string }).hash,
    );
  });

  it('takes large call data through the file service (create, append) and executes it', async () => {
    const data = `0x${'5a'.repeat(10_000)}`;
    // Prague prices call data at a floor of 40 gas per non-zero byte.
    const raw = await sign({ to: sandbox.accounts[1].address, data, gasLimit: 500_000 });
    const hex = data.slice(2);
    const created = await (await new FileCreateTransaction().setKeys([client.operatorPublicKey!]).setContents(hex.slice(0, 4_000)).execute(client)).getReceipt(client);
    const fileId = created.fileId!;
    const appended = await (await new FileAppendTransaction().setFileId(fileId).setContents(hex.slice(4_000)).execute(client)).getReceipt(client);
    expect(appended.status).to.equal(Status.Success);
    const contents = await new FileContentsQuery().setFileId(fileId).execute(client);
    expect(Buffer.from(contents).toString()).to.equal(hex);

    const stripped = Transaction.from(raw);
    stripped.data = '0x';
    const response = await ethereumTransaction(stripped.serialized).setCallDataFileId(fileId).execute(client);
    expect((await response.getReceipt(client)).status).to.equal(Status.Success);
    const record = await response.getRecord(client);
    const ethHash = `0x${Buffer.from(record.ethereumHash!).toString('hex')}`;
    expect(ethHash).to.equal(Transaction.from(raw).hash);
    const mined = (await sandbox.chain.evm.request({ method: 'eth_getTransactionByHash', params: [ethHash] })) as { input: string };
    expect(mined.input).to.equal(data);
  });

  it('answers INVALID_SIGNATURE when the payer signature does not verify', async () => {
    const impostor = sdkClient(sandbox, sandbox.operator.accountId, PrivateKey.generateED25519());
    try {
      const raw = await wallet.signTransaction({ type: 2, chainId: CHAIN_ID, nonce, gasLimit: 100_000, maxFeePerGas: GAS_PRICE, to: sandbox.accounts[1].address });
      expect(await statusOf(ethereumTransaction(raw).execute(impostor))).to.equal('PrecheckStatusError:INVALID_SIGNATURE');
    } finally {
      impostor.close();
    }
  });

  it('answers WRONG_NONCE in the receipt for a wrong Ethereum nonce', async () => {
    const raw = await wallet.signTransaction({ type: 2, chainId: CHAIN_ID, nonce: nonce + 5, gasLimit: 100_000, maxFeePerGas: GAS_PRICE, to: sandbox.accounts[1].address });
    const response = await ethereumTransaction(raw).execute(client);
    expect(await statusOf(response.getReceipt(client))).to.equal('ReceiptStatusError:WRONG_NONCE');
    expect(sandbox.chain.transactionByEthHash(Transaction.from(raw).hash!)).to.include({ result: 'WRONG_NONCE', evmExecuted: false });
  });

  it('takes consecutive nonces sent at once in the order they arrive, and fails the one that arrives before its predecessor', async () => {
    const signAt = (n: number) => wallet.signTransaction({ type: 2, chainId: CHAIN_ID, nonce: n, gasLimit: 100_000, maxFeePerGas: GAS_PRICE, to: sandbox.accounts[1].address });
    const inOrder = await Promise.all([0, 1, 2, 3].map((i) => signAt(nonce + i)));
    // Submitted in one go, straight to the node so that they arrive in this order (an SDK client's first request can
    // reach the node after later ones): every precheck answers OK, and each finds its predecessor handled before it.
    expect(await Promise.all(inOrder.map((raw) => submitSigned(sandbox.chain, raw)))).to.deep.equal(['OK', 'OK', 'OK', 'OK']);
    await sandbox.chain.closePending();
    expect(inOrder.map((raw) => sandbox.chain.transactionByEthHash(Transaction.from(raw).hash!)?.result)).to.deep.equal(['SUCCESS', 'SUCCESS', 'SUCCESS', 'SUCCESS']);
    nonce += 4;
    // The later nonce first: the precheck does not read nonces, handling does, in arrival order.
    const [early, late] = [await signAt(nonce + 1), await signAt(nonce)];
    const ahead = await ethereumTransaction(early).execute(client);
    const behind = await ethereumTransaction(late).execute(client);
    expect(await statusOf(ahead.getReceipt(client))).to.equal('ReceiptStatusError:WRONG_NONCE');
    expect(await statusOf(behind.getReceipt(client))).to.equal('SUCCESS');
    nonce += 1;
  });

  it('refuses at precheck what the ingest\'s pure checks refuse: a gas limit under the intrinsic gas, value to the zero address', async () => {
    const base = { type: 2, chainId: CHAIN_ID, nonce, maxFeePerGas: GAS_PRICE };
    // 21,000 and 16 a non-zero byte of call data: 21,063 is one short for four such bytes.
    const short = await wallet.signTransaction({ ...base, to: sandbox.accounts[1].address, data: '0x01020304', gasLimit: 21_063 });
    expect(await statusOf(ethereumTransaction(short).execute(client))).to.equal('PrecheckStatusError:INSUFFICIENT_GAS');
    const toZero = await wallet.signTransaction({ ...base, to: `0x${'0'.repeat(40)}`, value: 1n, gasLimit: 100_000 });
    expect(await statusOf(ethereumTransaction(toZero).execute(client))).to.equal('PrecheckStatusError:INVALID_SOLIDITY_ADDRESS');
    // Neither was recorded, so the nonce is still free.
    expect(sandbox.chain.transactionByEthHash(Transaction.from(short).hash!)).to.equal(undefined);
    const next = await sign({ to: sandbox.accounts[1].address, data: '0x01020304', gasLimit: 30_000 });
    expect(await statusOf((await ethereumTransaction(next).execute(client)).getReceipt(client))).to.equal('SUCCESS');
  });

  it('reports an exceptional halt as CONTRACT_EXECUTION_EXCEPTION with the halt reason, and running out of gas as INSUFFICIENT_GAS', async () => {
    const mirrorResult = async (hash: string) => (await (await fetch(`${sandbox.mirrorUrl}/api/v1/contracts/results/${hash}`)).json()) as Record<string, unknown>;
    // ADD with an empty stack: the consensus node's INSUFFICIENT_STACK_ITEMS halt, all gas used.
    const underflow = await sign({ data: '0x01121212', gasLimit: 300_000 });
    const response = await ethereumTransaction(underflow).execute(client);
    expect(await statusOf(response.getReceipt(client))).to.equal('ReceiptStatusError:CONTRACT_EXECUTION_EXCEPTION');
    const record = await new TransactionRecordQuery().setTransactionId(response.transactionId).setValidateReceiptStatus(false).execute(client);
    expect(record.contractFunctionResult?.errorMessage).to.equal('INSUFFICIENT_STACK_ITEMS');
    expect(await mirrorResult(Transaction.from(underflow).hash!)).to.include({
      result: 'CONTRACT_EXECUTION_EXCEPTION',
      error_message: 'INSUFFICIENT_STACK_ITEMS',
      gas_used: 300_000,
      status: '0x0',
    });
    // Its action carries the halt reason too, as the consensus node's ActionStack records it.
    const { actions } = (await (await fetch(`${sandbox.mirrorUrl}/api/v1/contracts/results/${Transaction.from(underflow).hash}/actions`)).json()) as any;
    expect(actions[0]).to.include({ result_data_type: 'ERROR', result_data: `0x${Buffer.from('INSUFFICIENT_STACK_ITEMS').toString('hex')}` });
    // 0xfe, the designated invalid opcode.
    const invalid = await sign({ data: '0xfe', gasLimit: 100_000 });
    await statusOf((await ethereumTransaction(invalid).execute(client)).getReceipt(client));
    expect(await mirrorResult(Transaction.from(invalid).hash!)).to.include({ result: 'CONTRACT_EXECUTION_EXCEPTION', error_message: 'INVALID_OPERATION' });
    // JUMPDEST; JUMP(0) forever.
    const loop = await sign({ data: '0x5b600056', gasLimit: 100_000 });
    expect(await statusOf((await ethereumTransaction(loop).execute(client)).getReceipt(client))).to.equal('ReceiptStatusError:INSUFFICIENT_GAS');
    expect(await mirrorResult(Transaction.from(loop).hash!)).to.include({ result: 'INSUFFICIENT_GAS', error_message: 'INSUFFICIENT_GAS', gas_used: 100_000 });
  });

  it('charges gas in whole tinybars, so a balance rolled back through the record transfers matches the balance history', async () => {
    const payer = sandbox.accounts[4];
    const mirror = async (path: string) => (await (await fetch(`${sandbox.mirrorUrl}${path}`)).json()) as any;
    const before = (await mirror(`/api/v1/blocks?limit=1&order=desc`)).blocks[0].timestamp.to as string;
    // An EIP-1559 price a weibar above the network's: the EVM takes gas × price in exact weibar, not whole tinybars.
    const price = GAS_PRICE + 1n;
    const raw = await new Wallet(payer.privateKey).signTransaction({ type: 2, chainId: CHAIN_ID, nonce: 0, gasLimit: 21_000, maxFeePerGas: price, maxPriorityFeePerGas: price, to: sandbox.accounts[5].address, value: 10n ** 10n });
    expect((await (await ethereumTransaction(raw).execute(client)).getReceipt(client)).status).to.equal(Status.Success);
    const weibar = BigInt((await sandbox.chain.evm.request({ method: 'eth_getBalance', params: [payer.address, 'latest'] })) as string);
    expect(weibar % 10_000_000_000n).to.equal(0n);
    // The official relay's eth_getBalance at a recent block: today's balance less the transfers since.
    const account = await mirror(`/api/v1/accounts/${payer.accountId}?transactions=true`);
    const since = account.transactions
      .filter((t: any) => t.consensus_timestamp > before)
      .flatMap((t: any) => t.transfers.filter((m: any) => m.account === payer.accountId))
      .reduce((sum: number, m: any) => sum + m.amount, 0);
    const history = await mirror(`/api/v1/balances?account.id=${payer.accountId}&timestamp=${before}`);
    expect(account.balance.balance - since).to.equal(history.balances[0].balance);
  });

  it('files a contract result with the signed call data and gas limit for a transaction the EVM never ran', async () => {
    // A zero gas price with no gas allowance: INSUFFICIENT_TX_FEE before execution (the official relay's paymaster case).
    const data = '0xabcdef01';
    const raw = await wallet.signTransaction({ type: 2, chainId: CHAIN_ID, nonce, gasLimit: 50_000, maxFeePerGas: 0, maxPriorityFeePerGas: 0, to: sandbox.accounts[1].address, data });
    const response = await new EthereumTransaction().setEthereumData(Buffer.from(raw.slice(2), 'hex')).setMaxGasAllowanceHbar(new Hbar(0)).execute(client);
    expect(await statusOf(response.getReceipt(client))).to.equal('ReceiptStatusError:INSUFFICIENT_TX_FEE');
    const result = (await (await fetch(`${sandbox.mirrorUrl}/api/v1/contracts/results/${Transaction.from(raw).hash}`)).json()) as Record<string, unknown>;
    expect(result).to.include({ result: 'INSUFFICIENT_TX_FEE', function_parameters: data, call_result: '0x', gas_limit: 50_000, gas_used: 0 });
  });

  it('prefunds the local node\'s published accounts after its own and the relay operator, which keep their ids', async () => {
    expect(sandbox.accounts.map((a) => a.accountId)).to.deep.equal(Array.from({ length: 10 }, (_, i) => `0.0.${1001 + i}`));
    expect(sandbox.operator.accountId).to.equal('0.0.1011');
    expect(sandbox.localNodeAccounts.map((a) => a.accountId)).to.deep.equal(['0.0.1012', '0.0.1013', '0.0.1014']);
    // The official relay's conformity suites send from this one (localNodeAccountPrivateKey).
    const conformity = sandbox.localNodeAccounts.find((a) => a.address === '0xc37f417fa09933335240fca72dd257bfbde9c275')!;
    expect(conformity.privateKey).to.equal('0x6e9d61a325be3f6675cf8b7676c70e4a004d2308e3e182370a41f5653d52c6bd');
    const account = (await (await fetch(`${sandbox.mirrorUrl}/api/v1/accounts/${conformity.address}`)).json()) as any;
    expect(account).to.include({ account: conformity.accountId, evm_address: conformity.address });
    expect(account.balance.balance).to.equal(10_000 * 100_000_000);
    const raw = await new Wallet(conformity.privateKey).signTransaction({ type: 2, chainId: CHAIN_ID, nonce: 0, gasLimit: 21_000, maxFeePerGas: GAS_PRICE, to: sandbox.accounts[1].address, value: 10n ** 10n });
    expect((await (await ethereumTransaction(raw).execute(client)).getReceipt(client)).status).to.equal(Status.Success);
  });

  it('answers INSUFFICIENT_PAYER_BALANCE when the payer cannot pay the fee', async () => {
    const poor = sandbox.accounts[9];
    await sandbox.chain.evm.request({ method: 'hardhat_setBalance', params: [poor.address, '0x0'] });
    const poorClient = sdkClient(sandbox, poor.accountId, PrivateKey.fromStringECDSA(poor.privateKey));
    try {
      expect((await new AccountBalanceQuery().setAccountId(poor.accountId).execute(poorClient)).hbars.toTinybars().toNumber()).to.equal(0);
      const raw = await wallet.signTransaction({ type: 2, chainId: CHAIN_ID, nonce, gasLimit: 100_000, maxFeePerGas: GAS_PRICE, to: sandbox.accounts[1].address });
      expect(await statusOf(ethereumTransaction(raw).execute(poorClient))).to.equal('PrecheckStatusError:INSUFFICIENT_PAYER_BALANCE');
    } finally {
      poorClient.close();
    }
  });

  it('answers garbage with a status, not a crash, and keeps serving', async () => {
    expect(await statusOf(new EthereumTransaction().setEthereumData(Buffer.from('not an ethereum transaction')).execute(client))).to.equal(
      'PrecheckStatusError:INVALID_ETHEREUM_TRANSACTION',
    );
    const [address] = Object.keys(sandbox.consensus);
    const raw = new grpc.Client(address, grpc.credentials.createInsecure());
    try {
      const call = (path: string, bytes: Buffer) =>
        new Promise<{ err: grpc.ServiceError | null; res?: Buffer }>((resolve) =>
          raw.makeUnaryRequest(path, (b: Buffer) => b, (b: Buffer) => b, bytes, (err, res) => resolve({ err, res })),
        );
      const garbage = Buffer.from([0xff, 0xff, 0xff, 0x07, 0x01, 0x02]);
      const tx = await call('/proto.SmartContractService/callEthereum', garbage);
      expect(proto.ResponseCodeEnum[proto.TransactionResponse.decode(tx.res!).nodeTransactionPrecheckCode]).to.equal('INVALID_TRANSACTION');
      const query = await call('/proto.CryptoService/getTransactionReceipts', garbage);
      expect(query.err?.code).to.equal(grpc.status.INVALID_ARGUMENT);
    } finally {
      raw.close();
    }
    const balance = await new AccountBalanceQuery().setAccountId(sandbox.accounts[0].accountId).execute(client);
    expect(balance.hbars.toTinybars().toNumber()).to.be.greaterThan(0);
  });

  it('spells transaction ids as the mirror node does (9-digit nanos) and finds them by either spelling', async () => {
    const validStart = new Timestamp(Math.floor(Date.now() / 1000) - 5, 1_234);
    const raw = await sign({ to: sandbox.accounts[3].address, value: 1n, gasLimit: 21_000 });
    const response = await ethereumTransaction(raw)
      .setTransactionId(TransactionId.withValidStart(AccountId.fromString(sandbox.operator.accountId), validStart))
      .execute(client);
    await response.getReceipt(client);
    const padded = `${sandbox.operator.accountId}-${validStart.seconds.toString()}-000001234`;
    expect(sandbox.chain.transactionById(padded)?.transactionId).to.equal(padded);
    expect(sandbox.chain.transactionById(`${sandbox.operator.accountId}-${validStart.seconds.toString()}-1234`)?.transactionId).to.equal(padded);
  });

  it('keeps the ledger record of fees and transfers', async () => {
    const raw = await sign({ to: sandbox.accounts[2].address, value: 10n ** 18n, gasLimit: 21_000 });
    const response = await ethereumTransaction(raw).execute(client);
    const record = await new TransactionRecordQuery().setTransactionId(response.transactionId).execute(client);
    expect(record.receipt.status).to.equal(Status.Success);
    const recorded = sandbox.chain.transactionById(response.transactionId.toString().replace('@', '-').replace(/\.(\d+)$/, '-$1'));
    expect(recorded?.transfers).to.deep.include({ account: sandbox.accounts[2].accountId, amount: 100_000_000 });
    expect(recorded?.chargedTxFeeTinybar).to.be.greaterThan(0);
  });
});
