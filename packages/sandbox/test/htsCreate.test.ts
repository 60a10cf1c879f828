/**
 * Token creation through the token service system contract (0x167, HIP-358) from the EVM, the way the official relay's
 * equivalence set-up and debug suite create tokens: a contract calls createFungibleToken with hbar for the fee (through
 * an Ethereum transaction and through ContractExecute), and an account calls 0x167 directly. Then value sent to a
 * system account (0.0.1 to 0.0.750), which the network halts with INVALID_CONTRACT_ID, from the transaction itself or
 * from inside a contract.
 */
import { AccountId, Client, ContractCreateFlow, ContractExecuteTransaction, ContractFunctionParameters, Hbar, PrivateKey, Status } from '@hashgraph/sdk';
import { expect } from 'chai';
import { Contract, JsonRpcProvider, Wallet, ZeroAddress, type InterfaceAbi } from 'ethers';
import solc from 'solc';
import { startLedgerSandbox, type LedgerSandbox } from '../src/index.js';
import type { LedgerRelay } from '../../../src/relay/ledgerRelay.js';
import { sandboxRelay } from '../../../test/ledger/helpers.js';
import { serveRpc } from '../../../test/methods/rpcServer.js';

const CHAIN_ID = 298;
const WEIBAR_PER_TINYBAR = 10n ** 10n;
/** The sandbox's TokenCreate price (1 HBAR) plus 20%, less 100,000 gas at 71 tinybar (ClassicCreatesCall). */
const CREATE_FEE_TINYBAR = 120_000_000n - 7_100_000n;

const HEDERA_TOKEN = `(string,string,address,string,bool,int64,bool,(uint256,(bool,address,bytes,bytes,address))[],(uint32,address,uint32))`;
const HTS = [`function createFungibleToken(${HEDERA_TOKEN} token, uint64 initialTotalSupply, uint32 decimals) payable returns (int64, address)`];

/** A contract that creates a fungible token it holds the treasury and keys of, and forwards value anywhere. */
const MAKER = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
interface TokenService {
  struct KeyValue { bool inheritAccountKey; address contractId; bytes ed25519; bytes ECDSA_secp256k1; address delegatableContractId; }
  struct TokenKey { uint256 keyType; KeyValue key; }
  struct Expiry { uint32 second; address autoRenewAccount; uint32 autoRenewPeriod; }
  struct HederaToken { string name; string symbol; address treasury; string memo; bool tokenSupplyType; int64 maxSupply; bool freezeDefault; TokenKey[] tokenKeys; Expiry expiry; }
  function createFungibleToken(HederaToken memory token, uint64 initialTotalSupply, uint32 decimals) external payable returns (int64, address);
}
contract Maker {
  event Made(address token);
  function make(string calldata symbol) external payable returns (address) {
    TokenService.TokenKey[] memory keys = new TokenService.TokenKey[](1);
    keys[0] = TokenService.TokenKey(1 | 16, TokenService.KeyValue(true, address(0), "", "", address(0)));
    TokenService.HederaToken memory token = TokenService.HederaToken(
      "Made Coin", symbol, address(this), "made in a contract", true, 5000, false, keys, TokenService.Expiry(0, address(this), 7776000));
    (int64 code, address made) = TokenService(address(0x167)).createFungibleToken{value: msg.value}(token, 1000, 4);
    require(code == 22, "not created");
    emit Made(made);
    return made;
  }
  function forward(address to) external payable returns (bool ok) {
    (ok, ) = to.call{value: msg.value}("");
  }
}`;

function compileMaker(): { abi: InterfaceAbi; bytecode: string } {
  const input = { language: 'Solidity', sources: { 'M.sol': { content: MAKER } }, settings: { optimizer: { enabled: true }, outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } } };
  const out = JSON.parse(solc.compile(JSON.stringify(input))).contracts['M.sol'].Maker;
  return { abi: out.abi, bytecode: out.evm.bytecode.object };
}

describe('sandbox: token creation through 0x167 and value sent to system accounts', function () {
  this.timeout(120_000);
  let sandbox: LedgerSandbox;
  let relay: LedgerRelay;
  let server: { url: string; close: () => Promise<void> };
  let provider: JsonRpcProvider;
  let client: Client;
  let wallet: Wallet;
  let maker: Contract;
  let makerId: string;
  const { abi, bytecode } = compileMaker();

  const mirror = async (path: string): Promise<any> => (await fetch(`${sandbox.mirrorUrl}/api/v1${path}`)).json();
  const balance = async (address: string) => BigInt(await provider.getBalance(address));

  before(async () => {
    sandbox = await startLedgerSandbox({ chainId: CHAIN_ID, blockIntervalMs: 0 });
    // Generous mirror timeouts: tracing each EVM transaction makes its block close later on a busy machine.
    relay = sandboxRelay(CHAIN_ID, sandbox, { mirrorTimeoutMs: 10_000, mirrorTotalMs: 30_000 });
    server = await serveRpc(relay);
    provider = new JsonRpcProvider(server.url, CHAIN_ID, { staticNetwork: true, cacheTimeout: -1, pollingInterval: 50 });
    wallet = new Wallet(sandbox.accounts[0].privateKey, provider);
    client = Client.forNetwork(sandbox.consensus, { scheduleNetworkUpdate: false }).setOperator(
      AccountId.fromString(sandbox.operator.accountId),
      PrivateKey.fromStringDer(sandbox.operator.privateKey),
    );
    const receipt = await (await new ContractCreateFlow().setGas(2_000_000).setBytecode(bytecode).execute(client)).getReceipt(client);
    makerId = receipt.contractId!.toString();
    maker = new Contract(`0x${receipt.contractId!.toSolidityAddress()}`, abi, wallet);
  });

  after(async () => {
    client?.close();
    provider?.destroy();
    await server?.close();
    await relay?.close();
    await sandbox?.close();
  });

  it('creates a token from a contract in an Ethereum transaction: the contract is treasury, pays the fee and keeps the rest', async () => {
    const sent = 50n * 10n ** 18n;
    const receipt = await (await maker.make('MADE', { value: sent, gasLimit: 1_000_000 })).wait();
    expect(receipt!.status).to.equal(1);
    const made = maker.interface.parseLog(receipt!.logs[0])!.args[0] as string;
    const tokenId = `0.0.${BigInt(made)}`;
    const token = await mirror(`/tokens/${tokenId}`);
    expect(token).to.include({ name: 'Made Coin', symbol: 'MADE', decimals: '4', total_supply: '1000', treasury_account_id: makerId, supply_type: 'FINITE', max_supply: '5000', memo: 'made in a contract' });
    expect(token.admin_key._type).to.equal('ProtobufEncoded');
    expect(token.supply_key).to.deep.equal(token.admin_key);
    const balances = await mirror(`/tokens/${tokenId}/balances`);
    expect(balances.balances).to.deep.equal([{ account: makerId, balance: 1000, decimals: 4 }]);
    // The network only collects the fee from the value: the rest stays with the contract, not at 0x167.
    expect(await balance(await maker.getAddress())).to.equal(sent - CREATE_FEE_TINYBAR * WEIBAR_PER_TINYBAR);
    expect(await balance('0x0000000000000000000000000000000000000167')).to.equal(0n);
    // The creation is a following child of the transaction, and the contract result is the transaction's.
    const result = await mirror(`/contracts/results/${receipt!.hash}`);
    expect(result).to.include({ result: 'SUCCESS', contract_id: makerId });
    const children = await mirror(`/transactions?timestamp=gt:${result.timestamp}&limit=1&order=asc`);
    expect(children.transactions[0]).to.include({ name: 'TOKENCREATION', nonce: 1, entity_id: tokenId, result: 'SUCCESS' });
    // The token is usable once its block is closed: its facade answers.
    const erc20 = new Contract(made, ['function symbol() view returns (string)', 'function balanceOf(address) view returns (uint256)'], provider);
    expect(await erc20.symbol()).to.equal('MADE');
    expect(await erc20.balanceOf(await maker.getAddress())).to.equal(1000n);
  });

  it('creates a token from a contract in a ContractExecute paying hbar', async () => {
    const record = await (
      await new ContractExecuteTransaction()
        .setContractId(makerId)
        .setGas(1_000_000)
        .setPayableAmount(new Hbar(20))
        .setFunction('make', new ContractFunctionParameters().addString('EXEC'))
        .execute(client)
    ).getRecord(client);
    expect(record.receipt.status).to.equal(Status.Success);
    const made = `0x${Buffer.from(record.contractFunctionResult!.getAddress(0), 'hex').toString('hex')}`;
    const token = await mirror(`/tokens/0.0.${BigInt(made)}`);
    expect(token).to.include({ symbol: 'EXEC', treasury_account_id: makerId });
  });

  it('answers INSUFFICIENT_TX_FEE from 0x167 for value below the fee, and an unknown treasury reverts', async () => {
    const hts = new Contract('0x0000000000000000000000000000000000000167', HTS, wallet);
    const token = (treasury: string) => ['Direct', 'DIR', treasury, '', false, 0, false, [], [0, ZeroAddress, 0]];
    const [code, address] = await hts.createFungibleToken.staticCall(token(wallet.address), 100, 2, { value: WEIBAR_PER_TINYBAR });
    expect([code, address]).to.deep.equal([9n, ZeroAddress]);
    const error = await hts.createFungibleToken.staticCall(token(Wallet.createRandom().address), 100, 2, { value: 10n ** 19n }).catch((e) => e);
    expect(Buffer.from(error.data.slice(2), 'hex').toString()).to.equal('INVALID_ACCOUNT_ID');
  });

  it('creates a token when an account calls 0x167 directly, as its treasury', async () => {
    const hts = new Contract('0x0000000000000000000000000000000000000167', HTS, wallet);
    const token = ['Direct', 'DIR', wallet.address, 'memo', true, 1_000_000, false, [], [0, wallet.address, 8_000_000]];
    const receipt = await (await hts.createFungibleToken(token, 100, 18, { value: 35n * 10n ** 18n, gasLimit: 1_000_000 })).wait();
    expect(receipt!.status).to.equal(1);
    // The creation costs 100,000 gas (ClassicCreatesCall), on top of the transaction's 21,000 and its call data.
    expect(Number(receipt!.gasUsed)).to.be.within(121_000, 140_000);
    const created = await mirror(`/transactions?timestamp=gt:${(await mirror(`/contracts/results/${receipt!.hash}`)).timestamp}&limit=1&order=asc`);
    const tokenId = created.transactions[0].entity_id;
    expect(await mirror(`/tokens/${tokenId}`)).to.include({ symbol: 'DIR', treasury_account_id: sandbox.accounts[0].accountId, total_supply: '100' });
  });

  describe('value sent to a system account halts the transaction with INVALID_CONTRACT_ID', () => {
    const SHA256 = '0x0000000000000000000000000000000000000002';

    it('in an Ethereum transaction to 0.0.2 (the SHA-256 precompile): the whole gas limit is charged and no value moves', async () => {
      const treasuryBefore = await balance(SHA256);
      const before = await balance(wallet.address);
      const tx = await wallet.sendTransaction({ to: SHA256, value: WEIBAR_PER_TINYBAR, gasLimit: 30_000 });
      const receipt = await tx.wait().catch((e) => e.receipt);
      expect(receipt.status).to.equal(0);
      const result = await mirror(`/contracts/results/${tx.hash}`);
      expect(result).to.include({ result: 'INVALID_CONTRACT_ID', error_message: 'INVALID_CONTRACT_ID', gas_used: 30_000 });
      expect(await balance(SHA256)).to.equal(treasuryBefore);
      expect(before - (await balance(wallet.address))).to.equal(30_000n * 71n * WEIBAR_PER_TINYBAR);
    });

    it('from inside a contract, even when the contract carries on: the halt propagates to the transaction', async () => {
      // A contract with nothing of its own, which passes on what it is sent.
      const receipt0 = await (await new ContractCreateFlow().setGas(2_000_000).setBytecode(bytecode).execute(client)).getReceipt(client);
      const forwarder = new Contract(`0x${receipt0.contractId!.toSolidityAddress()}`, abi, wallet);
      const before = await balance(wallet.address);
      const tx = await forwarder.forward(SHA256, { value: WEIBAR_PER_TINYBAR, gasLimit: 100_000 });
      const receipt = await tx.wait().catch((e: any) => e.receipt);
      expect(receipt.status).to.equal(0);
      const result = await mirror(`/contracts/results/${tx.hash}`);
      expect(result).to.include({ result: 'INVALID_CONTRACT_ID', error_message: 'INVALID_CONTRACT_ID' });
      expect(await balance(await forwarder.getAddress())).to.equal(0n);
      expect(before - (await balance(wallet.address))).to.equal(100_000n * 71n * WEIBAR_PER_TINYBAR);
      // The call that sent the value halted, and so did the contract's frame above it.
      const { actions } = await mirror(`/contracts/results/${tx.hash}/actions`);
      const outcomes = actions.map((a: any) => [a.call_depth, a.result_data_type, Buffer.from(a.result_data.slice(2), 'hex').toString()]);
      expect(outcomes).to.deep.equal([
        [0, 'ERROR', 'INVALID_CONTRACT_ID'],
        [1, 'ERROR', 'INVALID_CONTRACT_ID'],
      ]);
    });

    it('in a transaction without a chain id (pre-EIP-155), as the official debug suite sends it', async () => {
      const unprotected = async (to: string) => {
        const nonce = await provider.getTransactionCount(wallet.address, 'pending');
        const raw = await wallet.signTransaction({ to, value: WEIBAR_PER_TINYBAR, gasLimit: 30_000, gasPrice: 710_000_000_000n, nonce });
        const hash = (await provider.send('eth_sendRawTransaction', [raw])) as string;
        return { hash, receipt: (await provider.waitForTransaction(hash))! };
      };
      const halted = await unprotected(SHA256);
      expect(halted.receipt.status).to.equal(0);
      expect(await mirror(`/contracts/results/${halted.hash}`)).to.include({ result: 'INVALID_CONTRACT_ID', error_message: 'INVALID_CONTRACT_ID' });
      // Such a transaction runs as any other, and shows as signed: no chain id, v 27 or 28.
      const sent = await unprotected(Wallet.createRandom().address);
      expect(sent.receipt.status).to.equal(1);
      const result = await mirror(`/contracts/results/${sent.hash}`);
      expect(result).to.include({ result: 'SUCCESS', chain_id: '0x', hash: sent.hash });
      expect([27, 28]).to.include(result.v);
    });

    it('leaves value sent to an account past 0.0.750 alone', async () => {
      const tx = await maker.forward(wallet.address, { value: WEIBAR_PER_TINYBAR, gasLimit: 100_000 });
      expect((await tx.wait())!.status).to.equal(1);
    });
  });
});
