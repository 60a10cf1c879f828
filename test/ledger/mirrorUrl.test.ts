/**
 * A ledger network's mirror URL is accepted as the mirror node's REST URL too (ending in `/api/v1`, as a mirror node's
 * docs and `npm run sandbox` print it), not only as the base the gateway adds `/api/v1` to.
 */
import { expect } from 'chai';
import { loadConfig } from '../../src/config/load.js';
import { startLedgerSandbox, type LedgerSandbox } from '../../packages/sandbox/src/index.js';
import { rpc, startTestGateway, withLedgerNetwork, type TestGateway } from '../support/gateway.js';

const CHAIN_ID = 296;

describe('ledger mirrorUrl: with or without /api/v1', function () {
  this.timeout(60_000);

  it('keeps the base URL whichever form the config gives', () => {
    const forms = ['https://mirror.internal', 'https://mirror.internal/', 'https://mirror.internal/api/v1', 'https://mirror.internal/api/v1/'];
    for (const mirrorUrl of forms) {
      const chains = withLedgerNetwork('testnet', { chainId: CHAIN_ID, ledger: { mirrorUrl, mirrorCallUrl: mirrorUrl, consensus: 'testnet' } });
      const { ledger } = loadConfig({ env: {}, overrides: { chains } }).chains.hedera.networks.testnet;
      expect([ledger!.mirrorUrl, ledger!.mirrorCallUrl], mirrorUrl).to.deep.equal(['https://mirror.internal', 'https://mirror.internal']);
    }
    // A path before /api/v1 (a mirror node behind a proxy prefix) stays.
    const chains = withLedgerNetwork('testnet', { chainId: CHAIN_ID, ledger: { mirrorUrl: 'https://proxy.internal/mirror/api/v1', consensus: 'testnet' } });
    expect(loadConfig({ env: {}, overrides: { chains } }).chains.hedera.networks.testnet.ledger!.mirrorUrl).to.equal('https://proxy.internal/mirror');
  });

  describe('a gateway given the URL the sandbox prints', () => {
    let sandbox: LedgerSandbox;
    let t: TestGateway;
    before(async () => {
      sandbox = await startLedgerSandbox({ chainId: CHAIN_ID, blockIntervalMs: 0 });
      t = await startTestGateway({
        chains: withLedgerNetwork('testnet', { chainId: CHAIN_ID, apis: ['rpc', 'rest'], ledger: { mirrorUrl: `${sandbox.mirrorUrl}/api/v1`, consensus: sandbox.consensus } }),
      });
    });
    after(async () => {
      await t?.close();
      await sandbox?.close();
    });

    it('answers JSON-RPC reads and mirror REST from it', async () => {
      const head = await rpc(`${t.gw.url}/hedera-testnet/v1/${t.key}/rpc`, { jsonrpc: '2.0', id: 1, method: 'eth_getBlockByNumber', params: ['latest', false] });
      expect(head.json.result?.number, head.text).to.match(/^0x[0-9a-f]+$/);
      const blocks = await fetch(`${t.gw.url}/hedera-testnet/v1/${t.key}/api/v1/blocks?limit=1`);
      expect(blocks.status).to.equal(200);
      expect((await blocks.json()).blocks).to.have.length(1);
    });
  });
});
