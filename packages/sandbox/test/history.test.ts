/**
 * The sandboxes' starting history, through the gateway as a new user meets it: on the ledger accounts created, HBAR
 * and HTS token transfers, an ERC-20 with Transfer events and a reverted call, visible over REST, GraphQL, JSON-RPC
 * and MCP; the same ERC-20 on an EVM devnet. The consensus stand-in answers receipts for every transaction the mirror
 * lists, so the history went through the consensus path, not into the records directly.
 */
import { Client, PrivateKey, TransactionId, TransactionReceiptQuery } from '@hashgraph/sdk';
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { Interface, id as eventId, zeroPadValue } from 'ethers';
import { sandboxAccounts } from '../src/accounts.js';
import { ERC20_SUPPLY, ERC20_TRANSFERS } from '../src/history/erc20.js';
import { HTS_SUPPLY, HTS_SYMBOL, HTS_TRANSFER } from '../src/history/ledger.js';
import { SANDBOX_TOKEN_ABI } from '../src/history/sandboxToken.js';
import type { LedgerSandbox } from '../src/index.js';
import { callTool, connectClient } from '../../../test/mcp/client.js';
import { validateMirrorResponse } from '../../../test/support/mirrorSchema.js';
import { rpc, startTestGateway, type TestGateway } from '../../../test/support/gateway.js';

const TRANSFER = eventId('Transfer(address,address,uint256)');
const [deployer, first, second] = sandboxAccounts(3);

describe('sandbox history (ledger and EVM devnet, through the gateway)', function () {
  let t: TestGateway;
  let sandbox: LedgerSandbox;
  let ledger: string;

  const rest = async (path: string) => {
    const res = await fetch(`${ledger}${path}`, { headers: { 'x-api-key': t.key } });
    const body = await res.json();
    expect(res.status, path).to.equal(200);
    expect(validateMirrorResponse(path, 'get', 200, body), path).to.deep.equal([]);
    return body;
  };
  const call = async (network: string, method: string, params: unknown[]) => {
    const { json } = await rpc(`${t.gw.url}/${network}/v1/${t.key}/rpc`, { jsonrpc: '2.0', id: 1, method, params });
    if (json.error) throw new Error(`${method}: ${json.error.message}`);
    return json.result;
  };
  /**
   * The ERC-20's deployment: the only contract the history deploys, listed by the mirror node beside the synthetic
   * row of the earlier HTS transfer (a mirror node from v0.158 lists those too).
   */
  const erc20Deployment = async () => (await rest('/api/v1/contracts/results?order=asc&limit=10')).results.find((r: any) => r.created_contract_ids.length > 0);
  const erc20OnLedger = async () => (await erc20Deployment()).address as string;

  before(async () => {
    // The default record-file interval, as `npm start` runs it.
    t = await startTestGateway({ sandbox: { history: true, blockIntervalMs: 2_000 } });
    sandbox = await t.gw.local!.ledger(t.gw.router.network('hedera-testnet')!);
    ledger = `${t.gw.url}/hedera-testnet`;
  });

  after(async () => t?.close());

  it('REST: several blocks (with links.next), created accounts, HBAR and token transfers, a token, a revert', async () => {
    const blocks = await rest('/api/v1/blocks?limit=2');
    expect(blocks.blocks).to.have.length(2);
    expect(blocks.links.next).to.match(/^\/api\/v1\/blocks\?limit=2&block\.number=lt:\d+$/);

    const { transactions } = await rest('/api/v1/transactions?limit=25&order=asc');
    const kinds = transactions.map((tx: any) => `${tx.name} ${tx.result}`);
    for (const kind of ['CRYPTOCREATEACCOUNT SUCCESS', 'CRYPTOTRANSFER SUCCESS', 'TOKENCREATION SUCCESS', 'TOKENASSOCIATE SUCCESS', 'ETHEREUMTRANSACTION SUCCESS', 'ETHEREUMTRANSACTION CONTRACT_REVERT_EXECUTED']) {
      expect(kinds, kind).to.include(kind);
    }
    const firstId = sandbox.accounts[1].accountId;
    const hbar = transactions.find((tx: any) => tx.name === 'CRYPTOTRANSFER' && tx.transfers.some((m: any) => m.account === firstId && m.amount === 1_000_000_000));
    expect(hbar, '10 HBAR to prefunded account 1').to.not.equal(undefined);
    const created = transactions.filter((tx: any) => tx.name === 'CRYPTOCREATEACCOUNT').map((tx: any) => tx.entity_id);
    expect(created).to.have.length(2);
    const account = await rest(`/api/v1/accounts/${created[1]}`);
    expect(account.balance.balance).to.equal(100 * 1e8);

    const { tokens } = await rest('/api/v1/tokens');
    expect(tokens.map((x: any) => x.symbol)).to.deep.equal([HTS_SYMBOL]);
    const token = await rest(`/api/v1/tokens/${tokens[0].token_id}`);
    expect(token).to.include({ total_supply: HTS_SUPPLY.toString(), treasury_account_id: sandbox.operator.accountId, type: 'FUNGIBLE_COMMON' });
    const { balances } = await rest(`/api/v1/tokens/${tokens[0].token_id}/balances`);
    expect(balances).to.deep.include({ account: firstId, balance: Number(HTS_TRANSFER), decimals: 2 });
    const moved = transactions.find((tx: any) => tx.name === 'CRYPTOTRANSFER' && tx.token_transfers.length > 0);
    expect(moved.token_transfers).to.deep.include({ token_id: tokens[0].token_id, account: firstId, amount: Number(HTS_TRANSFER), is_approval: false });
  });

  it('went through the consensus node: it answers the receipt of every transaction the mirror node lists', async () => {
    const { transactions } = await rest('/api/v1/transactions?limit=25&order=asc');
    const client = Client.forNetwork(sandbox.consensus).setOperator(sandbox.operator.accountId, PrivateKey.fromStringDer(sandbox.operator.privateKey));
    try {
      for (const tx of transactions) {
        const [payer, seconds, nanos] = tx.transaction_id.split('-');
        const txId = TransactionId.fromString(`${payer}@${seconds}.${nanos}`);
        const receipt = await new TransactionReceiptQuery().setTransactionId(txId).setValidateStatus(false).execute(client);
        expect(receipt.status.toString(), tx.transaction_id).to.equal(tx.result);
      }
    } finally {
      client.close();
    }
  });

  it('GraphQL: the README query returns the newest transaction', async () => {
    const res = await fetch(`${ledger}/v1/graphql`, {
      method: 'POST',
      headers: { 'x-api-key': t.key, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ transaction(limit: 1, order_by: {consensus_timestamp: desc}) { consensus_timestamp } }' }),
    });
    const body = await res.json();
    expect(body.data.transaction).to.have.length(1);
    expect(body.data.transaction[0].consensus_timestamp).to.match(/^\d{19}$/);
  });

  it('eth_getLogs: the ERC-20 mint and two transfers, and the reverted transfer has status 0', async () => {
    const address = await erc20OnLedger();
    const logs = await call('hedera-testnet', 'eth_getLogs', [{ address, fromBlock: '0x0', toBlock: 'latest', topics: [TRANSFER] }]);
    const word = (a: string) => zeroPadValue(a, 32).toLowerCase();
    expect(logs.map((l: any) => [l.topics[1], l.topics[2], BigInt(l.data)])).to.deep.equal([
      [word('0x00'), word(deployer.address), ERC20_SUPPLY],
      [word(deployer.address), word(first.address), ERC20_TRANSFERS[0]],
      [word(deployer.address), word(second.address), ERC20_TRANSFERS[1]],
    ]);
    const { results } = await rest(`/api/v1/contracts/results?order=asc&limit=10`);
    const reverted = results.find((r: any) => r.result === 'CONTRACT_REVERT_EXECUTED');
    expect((await call('hedera-testnet', 'eth_getTransactionReceipt', [reverted.hash])).status).to.equal('0x0');
    // The README's debug_traceTransaction example names this transaction: the history is the same on every start.
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    expect(/"method":"debug_traceTransaction",\s*"params":\["(0x[0-9a-f]{64})"/.exec(readme)?.[1]).to.equal(reverted.hash);
  });

  it('MCP: the tools find the history (a token over REST, the ERC-20 deployment by hash)', async () => {
    const client = await connectClient(`${t.gw.url}/mcp`, t.key);
    try {
      const tokens = await callTool(client, 'ledger_rest_get', { network: 'testnet', path: '/api/v1/tokens' });
      expect(JSON.stringify(tokens.structuredContent)).to.include(HTS_SYMBOL);
      const tx = await callTool(client, 'get_transaction', { chain: 'hedera', network: 'testnet', hash: (await erc20Deployment()).hash });
      expect(tx.isError ?? false).to.equal(false);
      expect(JSON.stringify(tx.structuredContent)).to.include(deployer.address);
    } finally {
      await client.close();
    }
  });

  it('the EVM devnet has the same ERC-20: Transfer logs, balances and the reverted call', async () => {
    const logs = await call('ethereum-sepolia', 'eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest', topics: [TRANSFER] }]);
    expect(logs).to.have.length(3);
    const token = new Interface(SANDBOX_TOKEN_ABI);
    const balance = await call('ethereum-sepolia', 'eth_call', [{ to: logs[0].address, data: token.encodeFunctionData('balanceOf', [first.address]) }, 'latest']);
    expect(BigInt(balance)).to.equal(ERC20_TRANSFERS[0]);
    const block = await call('ethereum-sepolia', 'eth_getBlockByNumber', ['0x4', false]);
    const receipt = await call('ethereum-sepolia', 'eth_getTransactionReceipt', [block.transactions[0]]);
    expect(receipt.status).to.equal('0x0');
  });
});
