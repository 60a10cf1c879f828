import { expect } from 'chai';
import type { IncomingHttpHeaders } from 'node:http';
import { isGatewayError } from '../../src/errors.js';
import { extractKey } from '../../src/keys/extract.js';

const KEY = 'pk_prod_AbCdEfGhIjKlMnOpQrStUvWxYz012345';
const OTHER = 'pk_prod_ZyXwVuTsRqPoNmLkJiHgFeDcBa987654';

describe('key extraction', () => {
  const accepted: Array<[string, IncomingHttpHeaders, string | undefined, string | undefined]> = [
    ['X-API-KEY header', { 'x-api-key': KEY }, undefined, undefined],
    ['Authorization: Bearer', { authorization: `Bearer ${KEY}` }, undefined, undefined],
    ['Authorization: bearer (lower case)', { authorization: `bearer ${KEY}` }, undefined, undefined],
    ['Authorization: BEARER with extra spaces', { authorization: `  BEARER   ${KEY} ` }, undefined, undefined],
    ['Authorization without a scheme', { authorization: KEY }, undefined, undefined],
    ['path key', {}, KEY, undefined],
    ['protocol key (GraphQL connection_init)', {}, undefined, KEY],
    ['the same key by all methods at once', { 'x-api-key': KEY, authorization: `Bearer ${KEY}` }, KEY, KEY],
    ['an empty header beside a real key', { 'x-api-key': '', authorization: `Bearer ${KEY}` }, undefined, undefined],
  ];
  for (const [name, headers, pathKey, extraKey] of accepted) {
    it(`takes the key from ${name}`, () => {
      expect(extractKey(headers, pathKey, extraKey)).to.equal(KEY);
    });
  }

  it('answers undefined when no key was sent', () => {
    expect(extractKey({})).to.equal(undefined);
    expect(extractKey({ 'x-api-key': '  ', authorization: '' }, '')).to.equal(undefined);
  });

  const conflicts: Array<[string, IncomingHttpHeaders, string | undefined, string | undefined]> = [
    ['header and path', { 'x-api-key': KEY }, OTHER, undefined],
    ['X-API-KEY and Authorization', { 'x-api-key': KEY, authorization: `Bearer ${OTHER}` }, undefined, undefined],
    ['Authorization and path', { authorization: OTHER }, KEY, undefined],
    ['path and protocol', {}, KEY, OTHER],
    ['two X-API-KEY headers', { 'x-api-key': [KEY, OTHER] as unknown as string }, undefined, undefined],
  ];
  for (const [name, headers, pathKey, extraKey] of conflicts) {
    it(`refuses two different keys (${name}) with 400, echoing neither`, () => {
      try {
        extractKey(headers, pathKey, extraKey);
        expect.fail('expected KEY_CONFLICT');
      } catch (err) {
        expect(isGatewayError(err) && err.errorName).to.equal('KEY_CONFLICT');
        expect(isGatewayError(err) && err.http).to.equal(400);
        expect((err as Error).message).not.to.include(KEY).and.not.to.include(OTHER);
      }
    });
  }
});
