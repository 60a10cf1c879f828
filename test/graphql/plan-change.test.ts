/**
 * A key's plan changed while its GraphQL subscription socket is open (key sent in connection_init): the next
 * subscription meets the new plan's bounds, and a plan without GraphQL closes the socket with 4403.
 */
import { expect } from 'chai';
import { defaultPlans } from '../../src/config/catalogue.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { modernClient } from './clients.js';

/** Seven levels: within the Developer plan's depth of 10, past the Free plan's 6. */
const DEEP = 'subscription { a { b { c { d { e { f { g } } } } } } }';

describe('GraphQL subscriptions follow a plan change', () => {
  let gw: TestGateway;
  let url: string;

  before(async () => {
    // The key is checked again every keys.cacheTtlMs.
    gw = await startTestGateway({
      keys: { cacheTtlMs: 200, dataDir: 'memory://', demoKey: false },
      plans: { ...defaultPlans(), restonly: { requestsPerSecond: 1_000, monthlyQuota: 1_000_000, apis: ['rest'] } },
    });
    url = `${gw.gw.url}/hedera-testnet/v1/graphql`;
  });
  after(() => gw?.close());

  it('a downgrade applies to the next subscription on an open socket; a plan without graphql closes it with 4403', async () => {
    const { key, id } = await gw.newKey('developer', []);
    const conn = modernClient(url, { 'x-api-key': key });
    const refusal = () => conn.subscribe(DEEP).until(() => true).then((r) => JSON.stringify(r), (err: Error) => err.message);
    expect(await refusal(), 'developer: forwarded, and refused by the upstream schema').to.not.include('your plan allows');
    await gw.gw.keyStore.setPlan(id, 'free');
    let answer = await refusal();
    for (let tries = 0; !answer.includes('your plan allows') && tries < 50; tries++) {
      await new Promise((r) => setTimeout(r, 100));
      answer = await refusal();
    }
    expect(answer).to.include('depth 7; your plan allows 6');
    await gw.gw.keyStore.setPlan(id, 'restonly');
    expect(await conn.closed).to.deep.equal({ code: 4403, reason: 'Your plan does not include this API: the restonly plan does not include graphql' });
  });
});
