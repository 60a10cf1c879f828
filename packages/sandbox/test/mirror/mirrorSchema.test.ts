import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { validateMirrorResponse } from '../../../../test/support/mirrorSchema.js';

const EXAMPLES = new URL('../../../../test/reference/mirror-node/examples/', import.meta.url);
const example = (name: string) => JSON.parse(readFileSync(new URL(name, EXAMPLES), 'utf8'));

describe('validateMirrorResponse (the OpenAPI check the stand-ins are held to)', () => {
  it("accepts the real mirror node's own answers", () => {
    const blocks = example('blocks__no-params.json');
    expect(validateMirrorResponse(blocks.urls[0], 'get', 200, blocks.responseJson)).to.deep.equal([]);
    const logs = example('contracts_results_logs__pagination-index-timestamp.json').tests[0];
    expect(validateMirrorResponse(logs.urls[0], 'GET', 200, logs.responseJson)).to.deep.equal([]);
    const missing = example('contracts_results_id__missing-transaction.json');
    expect(validateMirrorResponse(missing.urls[0], 'get', 404, missing.responseJson)).to.deep.equal([]);
  });

  it('reports wrong types, patterns and missing required fields with their location', () => {
    const account = example('accounts_id__no-params.json').responseJson;
    const { balance, ...withoutBalance } = account;
    expect(balance).to.be.an('object');
    expect(validateMirrorResponse('/api/v1/accounts/0.0.8', 'get', 200, withoutBalance)).to.deep.include(
      `GET /api/v1/accounts/{idOrAliasOrEvmAddress} 200: (root) must have required property 'balance' {"missingProperty":"balance"}`,
    );
    const errors = validateMirrorResponse('/api/v1/blocks', 'get', 200, { blocks: [{ number: '7', logs_bloom: '0x00' }], links: { next: null } });
    expect(errors.map((e) => e.split(': ')[1].split(' ')[0])).to.deep.equal(['/blocks/0/logs_bloom', '/blocks/0/number']);
  });

  it('matches literal path segments before parameters, with or without the /api/v1 prefix and query', () => {
    const logsBody = { logs: [], links: { next: null } };
    expect(validateMirrorResponse('/api/v1/contracts/results/logs?limit=1', 'get', 200, logsBody)).to.deep.equal([]);
    expect(validateMirrorResponse('/contracts/results/logs', 'get', 200, { logs: 'none' })[0]).to.match(/^GET \/api\/v1\/contracts\/results\/logs 200: \/logs must be array/);
    expect(validateMirrorResponse('/api/v1/contracts/0.0.5/results/logs', 'get', 200, logsBody)).to.deep.equal([]);
    expect(validateMirrorResponse('/api/v1/blocks/{hashOrNumber}', 'get', 404, { _status: { messages: [{ message: 'Not found' }] } })).to.deep.equal([]);
  });

  it('says so when a path, method or status is not in the document', () => {
    expect(validateMirrorResponse('/api/v1/nowhere', 'get', 200, {})).to.deep.equal(['/api/v1/nowhere matches no path in the mirror-node OpenAPI document']);
    expect(validateMirrorResponse('/api/v1/blocks', 'post', 200, {})).to.deep.equal(['POST /api/v1/blocks is not in the mirror-node OpenAPI document']);
    expect(validateMirrorResponse('/api/v1/blocks', 'get', 418, {})).to.deep.equal(['GET /api/v1/blocks documents no 418 response']);
  });
});
