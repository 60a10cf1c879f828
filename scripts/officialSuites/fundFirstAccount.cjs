/**
 * Measurement mode (--fund-first-account), loaded with mocha's --require after ts-node: the suites' runner makes its
 * first account by an HBAR transfer to an ECDSA key's EVM address (an alias transfer that creates a hollow account),
 * which the ledger sandbox cannot do yet. This replaces ServicesClient.createInitialAliasAccount, in memory only (the
 * relay's files are untouched), with:
 *   1. a prefunded sandbox account (OFFICIAL_SUITES_FUNDER_KEY) sends 1 HBAR to the new key's address in an
 *      EthereumTransaction submitted straight to the consensus node, which creates the account as the EVM sees it;
 *   2. the operator sends it the rest of the starting balance by CryptoTransfer to its account id, as the original does.
 * It returns the same AliasAccount shape. Neither relay under test is involved in the set-up.
 */
'use strict';
const path = require('node:path');
const { createRequire } = require('node:module');

const tree = process.env.OFFICIAL_SUITES_TREE;
const fromTree = createRequire(path.join(tree, 'package.json'));
const sdk = fromTree('@hiero-ledger/sdk');
const { ethers } = fromTree('ethers');
const ServicesClient = require(path.join(tree, 'tests/server/clients/servicesClient.ts')).default;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function mirrorAccount(address, attempts) {
  for (let i = 0; i < attempts; i++) {
    const res = await fetch(`${process.env.MIRROR_NODE_URL}/api/v1/accounts/${address}`);
    if (res.ok) return res.json();
    await sleep(1000);
  }
  throw new Error(`fund-first-account: the mirror node does not know ${address}`);
}

ServicesClient.prototype.createInitialAliasAccount = async function (providerUrl, chainId, initialBalance = 2000) {
  const privateKey = sdk.PrivateKey.generateECDSA();
  const wallet = new ethers.Wallet(privateKey.toStringRaw(), new ethers.JsonRpcProvider(providerUrl, new ethers.Network('Hedera', chainId)));
  const address = wallet.address;

  const funder = new ethers.Wallet(process.env.OFFICIAL_SUITES_FUNDER_KEY);
  // The mirror node's nonce trails the ledger by a block: a transaction refused for its nonce is signed again.
  for (let attempt = 1; ; attempt++) {
    const { ethereum_nonce: nonce } = await mirrorAccount(funder.address, 30);
    const signed = await funder.signTransaction({
      type: 0,
      chainId: BigInt(chainId),
      nonce,
      to: address,
      value: ethers.parseEther('1'),
      gasLimit: 30_000n,
      gasPrice: 10n ** 12n,
    });
    try {
      const response = await new sdk.EthereumTransaction().setEthereumData(ethers.getBytes(signed)).setMaxGasAllowanceHbar(new sdk.Hbar(1)).execute(this.client);
      await response.getReceipt(this.client);
      break;
    } catch (err) {
      if (attempt >= 10 || !/WRONG_NONCE/.test(String(err))) throw err;
      await sleep(2000);
    }
  }
  const accountId = sdk.AccountId.fromString((await mirrorAccount(address, 60)).account);
  const rest = new sdk.Hbar(initialBalance - 1);
  await (
    await new sdk.TransferTransaction()
      .addHbarTransfer(this._thisAccountId(), rest.negated())
      .addHbarTransfer(accountId, rest)
      .setTransactionMemo('Relay test crypto transfer')
      .execute(this.client)
  ).getReceipt(this.client);
  accountId.evmAddress = sdk.EvmAddress.fromString(address);
  return { alias: accountId, accountId, address, client: this, privateKey, wallet, keyList: sdk.KeyList.from([privateKey]) };
};
