/**
 * The ledger sandbox's system contracts, as the official relay's erc20, rpc_batch3 and equivalence suites use them:
 * ethers through the gateway's relay calls a token's ERC-20/ERC-721 facade (eth_call and Ethereum transactions),
 * a contract calls 0x167 (isToken, isFrozen, isKyc), and 0x168/0x169 answer. What the EVM does comes back into the
 * ledger's token state, read here through the mirror stand-in.
 */
import {
  AccountId,
  Client,
  PrivateKey,
  TokenAssociateTransaction,
  TokenCreateTransaction,
  TokenFreezeTransaction,
  TokenMintTransaction,
  TokenType,
  type TokenId,
  type Transaction,
} from '@hashgraph/sdk';
import { expect } from 'chai';
import { Contract, ContractFactory, JsonRpcProvider, Wallet, toBeHex, zeroPadValue, type InterfaceAbi, type Log } from 'ethers';
import solc from 'solc';
import { compileSystemContracts } from '../../../scripts/compile-system-contracts.js';
import { EXCHANGE_RATE_RUNTIME, HTS_RUNTIME, PRNG_RUNTIME } from '../src/ledger/systemContractsCode.js';
import { startLedgerSandbox } from '../src/index.js';
import type { LedgerRelay } from '../../../src/relay/ledgerRelay.js';
import { sandboxRelay } from '../../../test/ledger/helpers.js';
import { serveRpc } from '../../../test/methods/rpcServer.js';

const CHAIN_ID = 298;
type Sandbox = Awaited<ReturnType<typeof startLedgerSandbox>>;

const ERC20 = [
  'function name() view returns (string)',
  'function symbol() view returns (string)',
  'function decimals() view returns (uint8)',
  'function totalSupply() view returns (uint256)',
  'function balanceOf(address) view returns (uint256)',
  'function allowance(address,address) view returns (uint256)',
  'function transfer(address,uint256) returns (bool)',
  'function approve(address,uint256) returns (bool)',
  'function transferFrom(address,address,uint256) returns (bool)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
];
const ERC721 = [
  'function ownerOf(uint256) view returns (address)',
  'function tokenURI(uint256) view returns (string)',
  'function balanceOf(address) view returns (uint256)',
  'function transferFrom(address,address,uint256)',
];
const HTS = [
  'function isToken(address) returns (int64, bool)',
  'function isFrozen(address,address) returns (int64, bool)',
  'function isKyc(address,address) returns (int64, bool)',
  'function getTokenType(address) returns (int64, int32)',
];

/** Calls 0x167 and 0x168 from a contract, as HederaTokenServiceImpl and EquivalenceContract in the official suites do. */
const CALLER = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract HtsCaller {
  function isTokenAddress(address token) external returns (bool) {
    (bool ok, bytes memory out) = address(0x167).call(abi.encodeWithSignature("isToken(address)", token));
    require(ok, "call failed");
    (int32 code, bool flag) = abi.decode(out, (int32, bool));
    require(code == 22, "not SUCCESS");
    return flag;
  }
  function rateByDelegatecall(uint256 tinycents) external returns (uint256) {
    (bool ok, bytes memory out) = address(0x168).delegatecall(abi.encodeWithSignature("tinycentsToTinybars(uint256)", tinycents));
    require(ok, "delegatecall failed");
    return abi.decode(out, (uint256));
  }
}`;

function compileCaller(): { abi: InterfaceAbi; bytecode: string } {
  const input = { language: 'Solidity', sources: { 'C.sol': { content: CALLER } }, settings: { outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } } };
  const out = JSON.parse(solc.compile(JSON.stringify(input))).contracts['C.sol'].HtsCaller;
  return { abi: out.abi, bytecode: `0x${out.evm.bytecode.object}` };
}

const longZero = (id: TokenId | AccountId) => zeroPadValue(toBeHex(id.num.toNumber()), 20);

describe('sandbox: system contracts (token facade, 0x167, 0x168, 0x169) through the relay', function () {
  this.timeout(120_000);
  let sandbox: Sandbox;
  let relay: LedgerRelay;
  let server: { url: string; close: () => Promise<void> };
  let provider: JsonRpcProvider;
  let owner: Wallet;
  let spender: Wallet;
  let outsider: Wallet;
  let ownerClient: Client;
  const clients: Client[] = [];
  let fungible: TokenId;
  let nft: TokenId;
  let erc20: Contract;
  const freezeKey = PrivateKey.generateED25519();

  const sdk = (accountId: string, key: string) => {
    const c = Client.forNetwork(sandbox.consensus, { scheduleNetworkUpdate: false }).setOperator(AccountId.fromString(accountId), PrivateKey.fromStringECDSA(key));
    clients.push(c);
    return c;
  };
  async function submit(tx: Transaction, client: Client, ...keys: PrivateKey[]) {
    tx.freezeWith(client);
    for (const k of keys) await tx.sign(k);
    return (await tx.execute(client)).getReceipt(client);
  }
  async function mirror(path: string): Promise<any> {
    return (await fetch(`${sandbox.mirrorUrl}${path}`)).json();
  }

  before(async () => {
    sandbox = await startLedgerSandbox({ chainId: CHAIN_ID, blockIntervalMs: 0 });
    relay = sandboxRelay(CHAIN_ID, sandbox);
    server = await serveRpc(relay);
    provider = new JsonRpcProvider(server.url, CHAIN_ID, { staticNetwork: true, cacheTimeout: -1, pollingInterval: 50 });
    const [a, b, c] = sandbox.accounts;
    owner = new Wallet(a.privateKey, provider);
    spender = new Wallet(b.privateKey, provider);
    outsider = new Wallet(c.privateKey, provider);
    ownerClient = sdk(a.accountId, a.privateKey);

    const created = await submit(
      new TokenCreateTransaction().setTokenName('Facade Coin').setTokenSymbol('FAC').setDecimals(18).setInitialSupply(10_000).setTreasuryAccountId(a.accountId).setFreezeKey(freezeKey.publicKey),
      ownerClient,
    );
    fungible = created.tokenId!;
    await submit(new TokenAssociateTransaction().setAccountId(b.accountId).setTokenIds([fungible]), sdk(b.accountId, b.privateKey));
    erc20 = new Contract(longZero(fungible), ERC20, owner);

    const supplyKey = PrivateKey.generateED25519();
    const art = await submit(
      new TokenCreateTransaction().setTokenName('Facade Art').setTokenSymbol('FART').setTokenType(TokenType.NonFungibleUnique).setTreasuryAccountId(a.accountId).setSupplyKey(supplyKey.publicKey),
      ownerClient,
    );
    nft = art.tokenId!;
    await submit(new TokenMintTransaction().setTokenId(nft).setMetadata([Buffer.from('ipfs://one')]), ownerClient, supplyKey);
  });

  after(async () => {
    for (const c of clients) c.close();
    provider?.destroy();
    await server?.close();
    await relay?.close();
    await sandbox?.close();
  });

  it('answers the ERC-20 views of an HTS token at its long-zero address', async () => {
    expect(await erc20.name()).to.equal('Facade Coin');
    expect(await erc20.symbol()).to.equal('FAC');
    expect(await erc20.decimals()).to.equal(18n);
    expect(await erc20.totalSupply()).to.equal(10_000n);
    expect(await erc20.balanceOf(owner.address)).to.equal(10_000n);
    expect(await erc20.balanceOf(spender.address)).to.equal(0n);
  });

  it('transfers through the facade with a Transfer log, and the ledger sees the new balances', async () => {
    const receipt = await (await erc20.transfer(spender.address, 100n)).wait();
    expect(receipt!.status).to.equal(1);
    const log = (receipt!.logs as Log[]).map((l) => erc20.interface.parseLog(l)).find((l) => l?.name === 'Transfer');
    expect(log?.args.map(String)).to.deep.equal([owner.address, spender.address, '100']);
    expect(await erc20.balanceOf(spender.address)).to.equal(100n);
    // The mirror node names the token as the contract called and as the logs' emitter.
    const result = await mirror(`/api/v1/contracts/results/${receipt!.hash}`);
    expect(result).to.include({ contract_id: fungible.toString(), to: longZero(fungible) });
    expect(result.logs.map((l: any) => l.contract_id)).to.deep.equal([fungible.toString()]);
    const balances = await mirror(`/api/v1/tokens/${fungible}/balances`);
    const ids = Object.fromEntries(balances.balances.map((b: any) => [b.account, b.balance]));
    expect(ids).to.deep.equal({ [sandbox.accounts[0].accountId]: 9_900, [sandbox.accounts[1].accountId]: 100 });
  });

  it('approves and spends an allowance through the facade, and the ledger keeps what remains', async () => {
    expect((await (await erc20.approve(spender.address, 50n)).wait())!.status).to.equal(1);
    expect(await erc20.allowance(owner.address, spender.address)).to.equal(50n);
    const asSpender = erc20.connect(spender) as Contract;
    expect((await (await asSpender.transferFrom(owner.address, spender.address, 30n)).wait())!.status).to.equal(1);
    expect(await erc20.allowance(owner.address, spender.address)).to.equal(20n);
    const allowances = await mirror(`/api/v1/accounts/${sandbox.accounts[0].accountId}/allowances/tokens`);
    expect(allowances.allowances.map((a: any) => [a.spender, a.amount, a.amount_granted])).to.deep.equal([[sandbox.accounts[1].accountId, 20, 50]]);
    const error = await asSpender.transferFrom.staticCall(owner.address, spender.address, 21n).catch((e) => e);
    expect(error.reason).to.equal('AMOUNT_EXCEEDS_ALLOWANCE');
  });

  it('reverts a transfer to an account not associated with the token', async () => {
    const error = await erc20.transfer.staticCall(outsider.address, 1n).catch((e) => e);
    expect(error.reason).to.equal('TOKEN_NOT_ASSOCIATED_TO_ACCOUNT');
  });

  it('answers the ERC-721 views of an NFT token (tokenURI is the metadata)', async () => {
    const erc721 = new Contract(longZero(nft), ERC721, provider);
    expect(await erc721.ownerOf(1n)).to.equal(owner.address);
    expect(await erc721.tokenURI(1n)).to.equal('ipfs://one');
    expect(await erc721.balanceOf(owner.address)).to.equal(1n);
  });

  it('answers 0x167 directly and from inside a contract, 0x168 through DELEGATECALL, and refuses value (INVALID_FEE_SUBMITTED)', async () => {
    const hts = new Contract('0x0000000000000000000000000000000000000167', HTS, provider);
    expect((await hts.isToken.staticCall(longZero(fungible))).map(String)).to.deep.equal(['22', 'true']);
    expect((await hts.isToken.staticCall(owner.address)).map(String)).to.deep.equal(['22', 'false']);
    expect((await hts.getTokenType.staticCall(longZero(nft))).map(String)).to.deep.equal(['22', '1']);
    expect((await hts.isFrozen.staticCall(longZero(fungible), spender.address)).map(String)).to.deep.equal(['22', 'false']);
    expect((await hts.isKyc.staticCall(longZero(fungible), spender.address)).map(String)).to.deep.equal(['22', 'true']);

    const { abi, bytecode } = compileCaller();
    const caller = await new ContractFactory(abi, bytecode, owner).deploy();
    await caller.waitForDeployment();
    expect(await (caller as Contract).isTokenAddress.staticCall(longZero(fungible))).to.equal(true);
    expect(await (caller as Contract).isTokenAddress.staticCall(await caller.getAddress())).to.equal(false);
    expect(await (caller as Contract).rateByDelegatecall.staticCall(1_200n)).to.equal(100n);
    const paid = await owner.call({ to: '0x0000000000000000000000000000000000000167', value: 10n ** 10n, data: hts.interface.encodeFunctionData('isToken', [longZero(fungible)]) }).catch((e) => e);
    expect(paid.reason).to.equal('INVALID_FEE_SUBMITTED');
  });

  // rpc_batch3 gives a contract that asks 0x167 isToken an eth_call of 30,000 gas: on the network the system
  // contract charges a view's fixed gas, far from what walking the token's storage in EVM code would cost.
  it('answers isToken from inside a contract within an eth_call of 30,000 gas', async () => {
    const { abi, bytecode } = compileCaller();
    const caller = (await (await new ContractFactory(abi, bytecode, owner).deploy()).waitForDeployment()) as Contract;
    const ask = (token: string) => provider.call({ to: caller.target, gasLimit: 30_000n, data: caller.interface.encodeFunctionData('isTokenAddress', [token]) });
    expect(BigInt(await ask(longZero(fungible)))).to.equal(1n);
    expect(BigInt(await ask(owner.address))).to.equal(0n);
  });

  it('sees a freeze made through the consensus node, in 0x167 and in the facade', async () => {
    await submit(new TokenFreezeTransaction().setTokenId(fungible).setAccountId(sandbox.accounts[1].accountId), ownerClient, freezeKey);
    const hts = new Contract('0x0000000000000000000000000000000000000167', HTS, provider);
    expect((await hts.isFrozen.staticCall(longZero(fungible), spender.address)).map(String)).to.deep.equal(['22', 'true']);
    const error = await erc20.transfer.staticCall(spender.address, 1n).catch((e) => e);
    expect(error.reason).to.equal('ACCOUNT_FROZEN_FOR_TOKEN');
  });

  it('runs the code its Solidity source compiles to (the generated module is current)', () => {
    expect(compileSystemContracts()).to.deep.equal({ hts: HTS_RUNTIME, exchangeRate: EXCHANGE_RATE_RUNTIME, prng: PRNG_RUNTIME });
  });

  it('converts at the ledger exchange rate on 0x168 and gives a seed on 0x169', async () => {
    const rate = new Contract('0x0000000000000000000000000000000000000168', ['function tinycentsToTinybars(uint256) view returns (uint256)', 'function tinybarsToTinycents(uint256) view returns (uint256)'], provider);
    // Receipts carry 1 hbar = 12 cents.
    expect(await rate.tinycentsToTinybars(1_200n)).to.equal(100n);
    expect(await rate.tinybarsToTinycents(100n)).to.equal(1_200n);
    const prng = new Contract('0x0000000000000000000000000000000000000169', ['function getPseudorandomSeed() view returns (bytes32)'], provider);
    expect(await prng.getPseudorandomSeed()).to.match(/^0x[0-9a-f]{64}$/).and.not.equal(`0x${'0'.repeat(64)}`);
  });
});
