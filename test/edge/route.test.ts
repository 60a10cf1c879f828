import { expect } from 'chai';
import { Pool } from 'undici';
import { loadConfig } from '../../src/config/load.js';
import { Router } from '../../src/edge/route.js';
import { GatewayError } from '../../src/errors.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

const config = loadConfig({ env: {} });
const router = new Router(config);

function resolveError(host: string, url: string): GatewayError {
  try {
    router.resolve(host, url);
  } catch (err) {
    return err as GatewayError;
  }
  throw new Error(`expected ${host}${url} to be refused`);
}

describe('host routing', () => {
  it('serves 20 chains, each with a mainnet, and the four test networks', () => {
    const chains = Object.keys(config.chains);
    expect(chains).to.have.length(20);
    const ids = router.networks().map((n) => n.id);
    expect(ids).to.include.members(['hedera', 'hedera-testnet', 'ethereum', 'ethereum-sepolia', 'ethereum-hoodi', 'base', 'base-sepolia']);
    expect(ids).to.have.length(24);
  });

  describe('every network of the catalogue routes by host and by bare-domain path', () => {
    for (const network of new Router(config).networks()) {
      it(`${network.id} (chain id ${network.network.chainId})`, () => {
        const byHost = router.resolve(`${network.id}.localhost:8080`, '/rpc');
        expect(byHost.api).to.equal('rpc');
        expect(byHost.network?.id).to.equal(network.id);
        const byPath = router.resolve('localhost:8080', `/${network.id}/rpc`);
        expect(byPath.network?.id).to.equal(network.id);
        expect(byPath.apiPath).to.equal('/rpc');
        for (const ip of ['127.0.0.1:8080', '[::1]:8080']) expect(router.resolve(ip, `/${network.id}/rpc`).network?.id).to.equal(network.id);
      });
    }
  });

  it('uses the real chain ids', () => {
    const id = (n: string) => router.network(n)!.network.chainId;
    expect([id('hedera'), id('hedera-testnet'), id('ethereum'), id('ethereum-sepolia'), id('ethereum-hoodi'), id('base-sepolia')]).to.deep.equal([
      295, 296, 1, 11155111, 560048, 84532,
    ]);
  });

  it('maps the ledger legacy hosts to the current networks', () => {
    for (const suffix of config.server.legacyDomains) {
      expect(router.resolve(`mainnet.hedera.api.${suffix}`, '/v1/graphql').network?.id).to.equal('hedera');
      expect(router.resolve(`testnet.hedera.api.${suffix}`, '/api/v1/blocks?limit=1')).to.include({ api: 'rest', apiPath: '/api/v1/blocks?limit=1' });
    }
  });

  it('selects the API by path, keeping the query string', () => {
    expect(router.resolve('hedera.localhost', '/api/v1/accounts/0.0.2?limit=1')).to.include({ api: 'rest', apiPath: '/api/v1/accounts/0.0.2?limit=1' });
    expect(router.resolve('hedera.localhost', '/v1/graphql').api).to.equal('graphql');
    expect(router.resolve('ethereum.localhost', '/beta/graphql').api).to.equal('beta-graphql');
    expect(router.resolve('mcp.localhost', '/mcp').api).to.equal('mcp');
    expect(router.resolve('localhost', '/mcp').api).to.equal('mcp');
    expect(router.resolve('app.localhost', '/keys/new?name=x').api).to.equal('keys');
    expect(router.resolve('anything.example', '/healthz').api).to.equal('ops');
    expect(router.resolve('ethereum.localhost', '/rpc/').api).to.equal('rpc');
    expect(router.resolve('hedera.localhost', '/v1/graphql/')).to.include({ api: 'graphql', pathKey: undefined });
    expect(router.resolve('localhost', '/hedera/v1/pk_prod_abc/graphql/').api).to.equal('graphql');
  });

  it('takes the key from /v1/<key>/ and maps /v1/<key>/graphql to /v1/graphql', () => {
    expect(router.resolve('hedera-testnet.localhost', '/v1/pk_prod_abc/rpc')).to.include({ apiPath: '/rpc', pathKey: 'pk_prod_abc', publicPrefix: '/v1/***' });
    expect(router.resolve('hedera-testnet.localhost', '/v1/pk_prod_abc/graphql')).to.include({ api: 'graphql', apiPath: '/v1/graphql' });
    expect(router.resolve('hedera-testnet.localhost', '/v1/pk_prod_abc/api/v1/accounts')).to.include({ api: 'rest', apiPath: '/api/v1/accounts' });
    expect(router.resolve('localhost', '/hedera-testnet/v1/pk_prod_abc/rpc')).to.include({ apiPath: '/rpc', pathKey: 'pk_prod_abc', publicPrefix: '/hedera-testnet/v1/***' });
  });

  it('answers unknown hosts, chains, networks and paths with 404 that never echo a key', () => {
    expect(resolveError('example.com', '/rpc').http).to.equal(404);
    expect(resolveError('dogecoin.localhost', '/rpc').message).to.contain('dogecoin');
    expect(resolveError('ethereum-goerli.localhost', '/rpc').http).to.equal(404);
    const unknownPath = resolveError('ethereum.localhost', '/v1/pk_prod_secret123/nope');
    expect(unknownPath.http).to.equal(404);
    expect(unknownPath.message).not.to.contain('pk_prod_secret123');
    expect(resolveError('localhost', '/rpc').message).to.contain('/hedera-testnet/rpc');
  });

  it('names a mistyped network and suggests the closest ones (mainnet has no suffix)', () => {
    const typo = resolveError('localhost', '/etherium-sepolia/rpc');
    expect(typo.http).to.equal(404);
    expect(typo.message).to.contain('no network "etherium-sepolia"; did you mean ethereum-sepolia?');
    expect(resolveError('localhost', '/ethereum-mainnet/rpc').message).to.contain('did you mean ethereum?');
    expect(resolveError('hedera-testnett.localhost', '/rpc').message).to.contain('did you mean hedera-testnet');
    // A key put where the network goes is never named back.
    expect(resolveError('localhost', '/pk_prod_secret123456/rpc').message).not.to.contain('pk_prod');
  });

  it('says which APIs a network offers when asked for one it does not', () => {
    const err = resolveError('ethereum-sepolia.localhost', '/api/v1/blocks');
    expect(err.http).to.equal(404);
    expect(err.message).to.contain('offers rpc');
    expect(resolveError('base.localhost', '/v1/graphql').message).to.contain('base offers rpc');
  });
});

describe('redacting path-auth URLs', () => {
  it('masks the key segment wherever path auth puts it, and nothing else', async () => {
    const { redactPath } = await import('../../src/edge/route.js');
    expect(redactPath('/v1/pk_prod_secret/rpc')).to.equal('/v1/***/rpc');
    expect(redactPath('/hedera-testnet/v1/pk_prod_secret/api/v1/accounts?limit=1')).to.equal('/hedera-testnet/v1/***/api/v1/accounts?limit=1');
    expect(redactPath('/v1/pk_prod_secret')).to.equal('/v1/***');
    expect(redactPath('/hedera-testnet/api/v1/accounts/0.0.2')).to.equal('/hedera-testnet/api/v1/accounts/0.0.2');
    expect(redactPath('/api/v1/blocks?limit=1')).to.equal('/api/v1/blocks?limit=1');
    expect(redactPath('/hedera/v1/graphql')).to.equal('/hedera/v1/graphql');
  });
});

describe('routes on one keep-alive connection', () => {
  let t: TestGateway;
  before(async () => (t = await startTestGateway()));
  after(() => t?.close());

  it('each request is routed by its own host and path, whatever the connection asked before', async () => {
    // One connection: the edge keeps the last route resolved on it, and must not answer a new path with it.
    const pool = new Pool(t.gw.url, { connections: 1 });
    const ask = async (path: string, headers: Record<string, string> = {}) => {
      const res = await pool.request({ method: 'POST', path, headers: { 'content-type': 'application/json', ...headers }, body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}' });
      const text = await res.body.text();
      return `${res.statusCode} ${res.statusCode === 200 ? JSON.parse(text).result : ''}`.trim();
    };
    const key = { 'x-api-key': t.key };
    try {
      for (let round = 0; round < 2; round++) {
        expect(await ask('/ethereum-sepolia/rpc', key)).to.equal('200 0xaa36a7');
        expect(await ask('/ethereum-sepolia/rpc', key)).to.equal('200 0xaa36a7');
        expect(await ask('/ethereum/rpc', key)).to.equal('200 0x1');
        expect(await ask('/etherium/rpc', key)).to.equal('404');
        expect(await ask(`/ethereum/v1/${t.key}/rpc`)).to.equal('200 0x1');
        expect(await ask('/ethereum/v1/pk_test_notakey0000000000/rpc')).to.equal('401');
        expect(await ask('/ethereum/rpc', { ...key, host: `ethereum-sepolia.${t.gw.config.server.serviceDomain}` })).to.equal('404');
        expect(await ask('/rpc', { ...key, host: `ethereum-sepolia.${t.gw.config.server.serviceDomain}` })).to.equal('200 0xaa36a7');
      }
    } finally {
      await pool.close();
    }
  });
});
