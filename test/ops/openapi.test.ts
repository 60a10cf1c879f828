import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import yaml from 'js-yaml';
import { validate } from '@readme/openapi-parser';

const DOC_PATH = new URL('../../openapi/gateway.yaml', import.meta.url);
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

type Doc = {
  paths: Record<string, Record<string, any>>;
  components: { securitySchemes: Record<string, any>; headers: Record<string, any>; schemas: Record<string, any> };
};

function loadOpenApi(): Doc {
  return yaml.load(readFileSync(DOC_PATH, 'utf8')) as Doc;
}

describe('OpenAPI document (openapi/gateway.yaml)', () => {
  it('is a valid OpenAPI document', async () => {
    const result = await validate(loadOpenApi() as never);
    expect(result.valid, JSON.stringify(result, null, 1)).to.equal(true);
  });

  it('describes header and bearer auth as security schemes and path auth as a parameter', () => {
    const doc = loadOpenApi();
    const schemes = Object.values(doc.components.securitySchemes);
    expect(schemes).to.deep.include({ type: 'apiKey', in: 'header', name: 'X-API-KEY', description: 'The API key in a header.' });
    expect(schemes.some((s) => s.type === 'http' && s.scheme === 'bearer')).to.equal(true);
    const pathKeyPaths = Object.keys(doc.paths).filter((p) => p.startsWith('/v1/{apiKey}/'));
    expect(pathKeyPaths.length).to.be.at.least(5);
  });

  it('describes the error bodies of every convention and the rate-limit headers', () => {
    const doc = loadOpenApi();
    expect(doc.components.schemas).to.include.keys('JsonRpcResponse', 'GraphqlError', 'MirrorError', 'PlainError');
    expect(doc.components.headers).to.include.keys('RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After');
    const text = JSON.stringify(doc.paths);
    for (const status of ['401', '403', '429']) expect(text).to.include(`"${status}"`);
  });

  it('names the API of every path, for the route comparison', () => {
    const doc = loadOpenApi();
    for (const [path, item] of Object.entries(doc.paths)) {
      expect(item['x-gateway-api'], path).to.be.a('string');
      expect(HTTP_METHODS.some((m) => item[m]), path).to.equal(true);
    }
  });
});
