/**
 * Consensus-node contract transactions on the ledger sandbox, the way the official relay's acceptance set-up deploys
 * and calls contracts: the SDK's ContractCreateFlow (file create/append of the hex bytecode, then ContractCreate) and
 * ContractExecuteTransaction with parameters and a payable amount; then the record, the mirror node's contract results
 * and logs, and the relay's receipt and logs for the consensus-node call.
 */
import {
  AccountId,
  Client,
  ContractCreateFlow,
  ContractCreateTransaction,
  ContractExecuteTransaction,
  ContractFunctionParameters,
  Hbar,
  PrivateKey,
  Status,
  TransactionRecordQuery,
} from '@hashgraph/sdk';
import { expect } from 'chai';
import { Interface, id } from 'ethers';
import { startLedgerSandbox, type LedgerSandbox } from '../src/index.js';
import type { LedgerRelay } from '../../../src/relay/ledgerRelay.js';
import { result, sandboxRelay } from '../../../test/ledger/helpers.js';
import { greeter } from '../../../test/methods/contract.js';
import { validateMirrorResponse } from '../../../test/support/mirrorSchema.js';

const CHAIN_ID = 298;

describe('sandbox: ContractCreate and ContractCall through the consensus node', () => {
  let sandbox: LedgerSandbox;
  let client: Client;
  let relay: LedgerRelay;
  const abi = new Interface(greeter().abi);
  let contractId: string;
  let contractAddress: string;

  const mirror = async (path: string) => {
    const res = await fetch(`${sandbox.mirrorUrl}${path}`);
    const body = await res.json();
    expect(validateMirrorResponse(path, 'get', res.status, body), `${path} against the mirror-node OpenAPI document`).to.deep.equal([]);
    return body as any;
  };

  before(async () => {
    sandbox = await startLedgerSandbox({ chainId: CHAIN_ID, blockIntervalMs: 0 });
    client = Client.forNetwork(sandbox.consensus, { scheduleNetworkUpdate: false }).setOperator(
      AccountId.fromString(sandbox.operator.accountId),
      PrivateKey.fromStringDer(sandbox.operator.privateKey),
    );
    relay = sandboxRelay(CHAIN_ID, sandbox);
    const constructorParameters = new ContractFunctionParameters().addString('hello').addBytes(new Uint8Array([1, 2, 3]));
    const flow = await new ContractCreateFlow().setGas(1_000_000).setBytecode(greeter().bytecode.slice(2)).setConstructorParameters(constructorParameters).execute(client);
    const receipt = await flow.getReceipt(client);
    expect(receipt.status).to.equal(Status.Success);
    contractId = receipt.contractId!.toString();
    contractAddress = `0x${receipt.contractId!.toSolidityAddress()}`;
  });
  after(async () => {
    client?.close();
    await relay?.close();
    await sandbox?.close();
  });

  it('ContractCreateFlow deploys at the contract id\'s long-zero address, with the constructor run', async () => {
    expect(sandbox.chain.account(contractId)?.isContract).to.equal(true);
    const greeting = await result(relay, 'eth_call', [{ to: contractAddress, data: abi.encodeFunctionData('greeting') }, 'latest']);
    expect(abi.decodeFunctionResult('greeting', greeting)[0]).to.equal('hello');
    const code = await result(relay, 'eth_getCode', [contractAddress, 'latest']);
    expect(code.length).to.be.greaterThan(100);
  });

  it('deploys inline init code too, and answers the record\'s contractCreateResult', async () => {
    const response = await new ContractCreateTransaction()
      .setBytecode(Buffer.from(greeter().bytecode.slice(2), 'hex'))
      .setConstructorParameters(new ContractFunctionParameters().addString('inline').addBytes(new Uint8Array()))
      .setGas(1_000_000)
      .execute(client);
    const record = await response.getRecord(client);
    expect(record.receipt.status).to.equal(Status.Success);
    const created = record.contractFunctionResult!;
    expect(created.contractId?.toString()).to.equal(record.receipt.contractId?.toString());
    expect(Buffer.from(created.evmAddress!).toString('hex')).to.equal(record.receipt.contractId!.toSolidityAddress());
    expect(created.gasUsed.toNumber()).to.be.greaterThan(53_000);
    const hash = `0x${Buffer.from(record.transactionHash).subarray(0, 32).toString('hex')}`;
    const receipt = await result(relay, 'eth_getTransactionReceipt', [hash]);
    expect(receipt).to.include({ status: '0x1', contractAddress: `0x${record.receipt.contractId!.toSolidityAddress()}` });
    const contract = await mirror(`/api/v1/contracts/${record.receipt.contractId!.toString()}`);
    expect(contract).to.include({ evm_address: `0x${record.receipt.contractId!.toSolidityAddress()}` });
    expect(contract.bytecode.startsWith(greeter().bytecode)).to.equal(true);
    const actions = await mirror(`/api/v1/contracts/results/${hash}/actions`);
    expect(actions.actions[0]).to.include({ call_type: 'CREATE', call_operation_type: 'CREATE', to: `0x${record.receipt.contractId!.toSolidityAddress()}` });
  });

  it('charges a creation its init code by the word as the network does: calldata and 2 gas a word (EIP-3860)', async () => {
    // Init code that returns the 100 bytes after its own 12: the same run and deposit whatever trails them.
    const runtime = Buffer.alloc(100, 0x5b);
    const initcode = (trailing: number) =>
      Buffer.concat([Buffer.from('61006480600c6000396000f3', 'hex'), runtime, Buffer.alloc(trailing, 0x5b)]);
    const gasUsed = async (code: Buffer) => {
      const record = await (await new ContractCreateTransaction().setBytecode(code).setGas(200_000).execute(client)).getRecord(client);
      expect(record.receipt.status).to.equal(Status.Success);
      return record.contractFunctionResult!.gasUsed.toNumber();
    };
    // 64 more bytes: 16 gas each as calldata, and two more words of init code at 2 gas each.
    expect((await gasUsed(initcode(64))) - (await gasUsed(initcode(0)))).to.equal(64 * 16 + 2 * 2);
  });

  describe('ContractExecute with parameters and a payable amount', () => {
    let record: Awaited<ReturnType<TransactionRecordQuery['execute']>>;

    before(async () => {
      const response = await new ContractExecuteTransaction()
        .setContractId(contractId)
        .setGas(200_000)
        .setFunction('greet', new ContractFunctionParameters().addString('hi there'))
        .setPayableAmount(Hbar.fromTinybars(500))
        .execute(client);
      record = await response.getRecord(client);
    });

    it('answers a record with the function result, its log and the gas used', async () => {
      expect(record.receipt.status).to.equal(Status.Success);
      const r = record.contractFunctionResult!;
      expect(r.contractId?.toString()).to.equal(contractId);
      expect(r.logs).to.have.length(1);
      expect(Buffer.from(r.logs[0].topics[0]).toString('hex')).to.equal(id('Greeted(address,string,uint256)').slice(2));
      expect(r.gasUsed.toNumber()).to.be.greaterThan(21_000);
      expect(r.amount.toNumber()).to.equal(500);
      const greeting = await result(relay, 'eth_call', [{ to: contractAddress, data: abi.encodeFunctionData('greeting') }, 'latest']);
      expect(abi.decodeFunctionResult('greeting', greeting)[0]).to.equal('hi there');
      expect(record.transfers.find((t) => t.accountId.toString() === contractId)?.amount.toTinybars().toNumber()).to.equal(500);
    });

    it('shows on the mirror node as a contract result with from, to, parameters, amount and its log', async () => {
      const ts = `${record.consensusTimestamp.seconds}.${String(record.consensusTimestamp.nanos).padStart(9, '0')}`;
      const byTs = await mirror(`/api/v1/contracts/results?timestamp=${ts}`);
      expect(byTs.results).to.have.length(1);
      const hash = `0x${Buffer.from(record.transactionHash).subarray(0, 32).toString('hex')}`;
      const single = await mirror(`/api/v1/contracts/results/${hash}`);
      expect(single).to.include({ result: 'SUCCESS', status: '0x1', amount: 500, to: contractAddress, contract_id: contractId, hash });
      expect(single.from).to.equal(`0x${AccountId.fromString(sandbox.operator.accountId).toSolidityAddress()}`);
      expect(single.function_parameters).to.equal(abi.encodeFunctionData('greet', ['hi there']));
      expect(single.logs).to.have.length(1);
      expect(single.nonce).to.equal(null);
      // No Ethereum transaction: the real node (v0.160 on) shows its chain id, type 0 and the fee schedule's gas price
      // in tinybar, even with hbar=false, and no EIP-1559 fees or access list.
      const shape = { chain_id: `0x${CHAIN_ID.toString(16)}`, type: 0, gas_price: '0x47', max_fee_per_gas: null, max_priority_fee_per_gas: null, access_list: null };
      expect(single).to.include(shape);
      expect(await mirror(`/api/v1/contracts/results/${hash}?hbar=false`)).to.include({ ...shape, amount: 5_000_000_000_000 });
      expect(byTs.results[0]).to.include(shape);
      const txId = record.transactionId.toString().replace('@', '-').replace(/\.(\d+)$/, (_, n: string) => `-${n.padStart(9, '0')}`);
      expect((await mirror(`/api/v1/contracts/results/${txId}`)).hash).to.equal(hash);
      const listed = await mirror(`/api/v1/contracts/${contractId}/results`);
      expect(listed.results.map((r: { hash: string }) => r.hash)).to.include(hash);
      const logs = await mirror(`/api/v1/contracts/${contractId}/results/logs`);
      expect(logs.logs.map((l: { transaction_hash: string }) => l.transaction_hash)).to.include(hash);
      const actions = await mirror(`/api/v1/contracts/results/${hash}/actions`);
      expect(actions.actions[0]).to.include({ call_type: 'CALL', to: contractAddress });
    });

    it('reads through the relay: eth_getTransactionReceipt of the consensus-node call and eth_getLogs', async () => {
      const hash = `0x${Buffer.from(record.transactionHash).subarray(0, 32).toString('hex')}`;
      const receipt = await result(relay, 'eth_getTransactionReceipt', [hash]);
      expect(receipt).to.include({ status: '0x1', to: contractAddress, transactionHash: hash });
      expect(receipt.logs).to.have.length(1);
      const tx = await result(relay, 'eth_getTransactionByHash', [hash]);
      expect(tx).to.include({ hash, to: contractAddress, input: abi.encodeFunctionData('greet', ['hi there']), value: '0x48c27395000' });
      const block = await result(relay, 'eth_getBlockByNumber', [receipt.blockNumber, false]);
      expect(block.transactions).to.include(hash);
      const logs = await result(relay, 'eth_getLogs', [{ address: contractAddress, fromBlock: '0x0', toBlock: 'latest' }]);
      expect(logs.map((l: { transactionHash: string }) => l.transactionHash)).to.include(hash);
      const event = abi.parseLog(logs.at(-1))!;
      // msg.sender is the payer's EVM address; msg.value is the payable amount in weibar (500 tinybar).
      expect([event.args[0].toLowerCase(), event.args[1], event.args[2]]).to.deep.equal([`0x${AccountId.fromString(sandbox.operator.accountId).toSolidityAddress()}`, 'hi there', 5_000_000_000_000n]);
    });
  });

  describe('ContractExecute to an id without a contract, as the equivalence suite calls 0.0.556 and 0.0.751', () => {
    const execute = (id: string, gas: number, amount = 0) =>
      new ContractExecuteTransaction().setContractId(id).setGas(gas).setFunction('nxxixxkxxi').setPayableAmount(Hbar.fromTinybars(amount)).execute(client);
    const recordOf = async (response: Awaited<ReturnType<typeof execute>>) =>
      new TransactionRecordQuery().setTransactionId(response.transactionId).setValidateReceiptStatus(false).execute(client);
    const hashOf = (record: Awaited<ReturnType<typeof recordOf>>) => `0x${Buffer.from(record.transactionHash).subarray(0, 32).toString('hex')}`;
    const timestampOf = (record: Awaited<ReturnType<typeof recordOf>>) =>
      `${record.consensusTimestamp.seconds}.${String(record.consensusTimestamp.nanos).padStart(9, '0')}`;

    it('runs a system account without a precompile as an empty success that keeps the whole gas limit', async () => {
      const record = await recordOf(await execute('0.0.556', 500_000));
      expect(record.receipt.status).to.equal(Status.Success);
      expect(record.contractFunctionResult!.bytes.length).to.equal(0);
      expect(record.contractFunctionResult!.gasUsed.toNumber()).to.equal(500_000);
      const result = await mirror(`/api/v1/contracts/0.0.556/results/${timestampOf(record)}`);
      expect(result).to.include({ contract_id: '0.0.556', result: 'SUCCESS', status: '0x1', call_result: '0x', gas_used: 500_000 });
      const { actions } = await mirror(`/api/v1/contracts/results/${hashOf(record)}/actions`);
      expect(actions[0]).to.include({ call_type: 'PRECOMPILE', call_operation_type: 'CALL', result_data_type: 'OUTPUT', result_data: '0x' });
    });

    it('runs an account without code, or an id without an account, as an empty success', async () => {
      for (const id of [sandbox.accounts[2].accountId, '0.0.751', '0.0.5000']) {
        const record = await recordOf(await execute(id, 100_000));
        expect(record.receipt.status, id).to.equal(Status.Success);
        expect(record.contractFunctionResult!.gasUsed.toNumber(), id).to.be.below(100_000);
        expect((await mirror(`/api/v1/contracts/${id}/results/${timestampOf(record)}`)).result, id).to.equal('SUCCESS');
      }
    });

    it('halts value sent to an id without an account with INVALID_ALIAS_KEY, and moves none of it', async () => {
      const record = await recordOf(await execute('0.0.5001', 100_000, 500));
      expect(record.receipt.status).to.equal(Status.InvalidAliasKey);
      expect(record.contractFunctionResult!.errorMessage).to.equal('INVALID_ALIAS_KEY');
      expect(record.contractFunctionResult!.gasUsed.toNumber()).to.equal(100_000);
      expect(record.transfers.some((t) => t.amount.toTinybars().toNumber() === 500)).to.equal(false);
    });

    it('refuses at precheck a gas limit under the call\'s intrinsic gas and the id 0.0.0', async () => {
      const refusal = async (p: Promise<unknown>) => p.then(() => 'SUCCESS', (err) => String(err.status ?? err));
      expect(await refusal(execute(contractId, 21_000))).to.equal('INSUFFICIENT_GAS');
      expect(await refusal(execute('0.0.0', 100_000))).to.equal('INVALID_CONTRACT_ID');
    });
  });

  it('answers CONTRACT_REVERT_EXECUTED for a constructor that reverts, and leaves no contract', async () => {
    // PUSH1 0, PUSH1 0, REVERT
    const response = await new ContractCreateTransaction().setBytecode(Buffer.from('60006000fd', 'hex')).setGas(100_000).execute(client);
    const record = await new TransactionRecordQuery().setTransactionId(response.transactionId).setValidateReceiptStatus(false).execute(client);
    expect(record.receipt.status).to.equal(Status.ContractRevertExecuted);
    expect(record.receipt.contractId).to.equal(null);
    const hash = `0x${Buffer.from(record.transactionHash).subarray(0, 32).toString('hex')}`;
    expect(await mirror(`/api/v1/contracts/results/${hash}`)).to.include({ result: 'CONTRACT_REVERT_EXECUTED', status: '0x0' });
  });

  it('runs a call paid by an ECDSA account with its EVM address as msg.sender', async () => {
    const account = sandbox.accounts[1];
    const payer = Client.forNetwork(sandbox.consensus, { scheduleNetworkUpdate: false }).setOperator(account.accountId, PrivateKey.fromStringECDSA(account.privateKey));
    try {
      const response = await new ContractExecuteTransaction().setContractId(contractId).setGas(200_000).setFunction('greet', new ContractFunctionParameters().addString('from ecdsa')).execute(payer);
      const record = await response.getRecord(payer);
      expect(record.receipt.status).to.equal(Status.Success);
      const log = record.contractFunctionResult!.logs[0];
      expect(`0x${Buffer.from(log.topics[1]).subarray(12).toString('hex')}`).to.equal(account.address.toLowerCase());
      expect(record.contractFunctionResult!.senderAccountId?.toString()).to.equal(account.accountId);
    } finally {
      payer.close();
    }
  });

  it('answers CONTRACT_REVERT_EXECUTED for a revert, with the revert data in the record and the mirror result', async () => {
    const response = await new ContractExecuteTransaction().setContractId(contractId).setGas(100_000).setFunction('fail').execute(client);
    const record = await new TransactionRecordQuery().setTransactionId(response.transactionId).setValidateReceiptStatus(false).execute(client);
    expect(record.receipt.status).to.equal(Status.ContractRevertExecuted);
    const reason = abi.encodeErrorResult('Error', ['nope']);
    expect(record.contractFunctionResult?.errorMessage).to.equal(reason);
    const hash = `0x${Buffer.from(record.transactionHash).subarray(0, 32).toString('hex')}`;
    const single = await mirror(`/api/v1/contracts/results/${hash}`);
    expect(single).to.include({ result: 'CONTRACT_REVERT_EXECUTED', status: '0x0', error_message: reason });
  });
});
