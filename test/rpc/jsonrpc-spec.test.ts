import { expect } from 'chai';
import { answer, type RpcBackend } from '../../src/rpc/answer.js';
import { errorObject, parseBody } from '../../src/rpc/jsonrpc.js';
import type { CallContext } from '../../src/rpc/answer.js';

/** The methods the JSON-RPC 2.0 specification's examples call, so its examples can run verbatim. */
const specMethods: RpcBackend = {
  async handle(calls) {
    return calls.map(({ method, params }) => {
      const p = params as any;
      switch (method) {
        case 'subtract':
          return { result: Array.isArray(p) ? p[0] - p[1] : p.minuend - p.subtrahend };
        case 'sum':
          return { result: (p as number[]).reduce((a, b) => a + b, 0) };
        case 'get_data':
          return { result: ['hello', 5] };
        case 'update':
        case 'notify_hello':
        case 'notify_sum':
          return { result: null };
        default:
          return { error: errorObject('METHOD_NOT_FOUND', method) };
      }
    });
  },
};

const ctx = {} as CallContext;
const run = async (body: string) => {
  const out = (await answer(parseBody(body, 1000), specMethods, ctx)).body;
  return out === undefined ? undefined : JSON.parse(out);
};
const err = (code: number, id: unknown = null) => ({ jsonrpc: '2.0', id, error: { code } });

/** The examples section of the JSON-RPC 2.0 specification: request, expected response (undefined = no response). */
const EXAMPLES: Array<[string, string, unknown]> = [
  ['positional parameters', '{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}', { jsonrpc: '2.0', result: 19, id: 1 }],
  ['positional parameters, reversed', '{"jsonrpc":"2.0","method":"subtract","params":[23,42],"id":2}', { jsonrpc: '2.0', result: -19, id: 2 }],
  ['named parameters', '{"jsonrpc":"2.0","method":"subtract","params":{"subtrahend":23,"minuend":42},"id":3}', { jsonrpc: '2.0', result: 19, id: 3 }],
  ['a notification', '{"jsonrpc":"2.0","method":"update","params":[1,2,3,4,5]}', undefined],
  ['a notification without params', '{"jsonrpc":"2.0","method":"foobar"}', undefined],
  ['a method that does not exist', '{"jsonrpc":"2.0","method":"foobar","id":"1"}', err(-32601, '1')],
  ['invalid JSON', '{"jsonrpc":"2.0","method":"foobar, "params":"bar", "baz]', err(-32700)],
  ['an invalid Request object', '{"jsonrpc":"2.0","method":1,"params":"bar"}', err(-32600)],
  ['a batch with invalid JSON', '[{"jsonrpc":"2.0","method":"sum","params":[1,2,4],"id":"1"},{"jsonrpc":"2.0","method"]', err(-32700)],
  ['an empty array', '[]', err(-32600)],
  ['an invalid batch of one', '[1]', [err(-32600)]],
  ['an invalid batch', '[1,2,3]', [err(-32600), err(-32600), err(-32600)]],
  [
    'a mixed batch',
    '[{"jsonrpc":"2.0","method":"sum","params":[1,2,4],"id":"1"},{"jsonrpc":"2.0","method":"notify_hello","params":[7]},{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":"2"},{"foo":"boo"},{"jsonrpc":"2.0","method":"foo.get","params":{"name":"myself"},"id":"5"},{"jsonrpc":"2.0","method":"get_data","id":"9"}]',
    [
      { jsonrpc: '2.0', result: 7, id: '1' },
      { jsonrpc: '2.0', result: 19, id: '2' },
      err(-32600),
      err(-32601, '5'),
      { jsonrpc: '2.0', result: ['hello', 5], id: '9' },
    ],
  ],
  ['a batch of notifications', '[{"jsonrpc":"2.0","method":"notify_sum","params":[1,2,4]},{"jsonrpc":"2.0","method":"notify_hello","params":[7]}]', undefined],
];

/** Error messages are ours; the spec fixes codes and ids. */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shape);
  if (value && typeof value === 'object' && 'error' in value) {
    const v = value as { id: unknown; error: { code: number; message: string } };
    expect(v.error.message).to.be.a('string').and.not.empty;
    return { jsonrpc: '2.0', id: v.id, error: { code: v.error.code } };
  }
  return value;
}

describe('JSON-RPC 2.0 specification examples', () => {
  for (const [name, request, expected] of EXAMPLES) {
    it(name, async () => {
      expect(shape(await run(request))).to.deep.equal(expected);
    });
  }

  it('a lone string or number is an Invalid Request, except on the ledger routes, which answer -32700 as the official relay does', async () => {
    for (const body of ['"abc"', '12', 'null', 'true']) {
      expect(shape(await run(body)), body).to.deep.equal(err(-32600));
      const ledger = await answer(parseBody(body, 1000, 'official'), specMethods, ctx);
      expect(shape(JSON.parse(ledger.body!)), body).to.deep.equal(err(-32700));
    }
  });

  it('echoes ids exactly: 0, strings, null, and integers above 2^53 byte for byte', async () => {
    for (const id of ['0', '"abc"', 'null', '12345678901234567890', '-9007199254740993', '"12345678901234567890"']) {
      const out = (await answer(parseBody(`{"jsonrpc":"2.0","method":"get_data","id":${id}}`, 10), specMethods, ctx)).body;
      expect(out).to.equal(`{"jsonrpc":"2.0","id":${id},"result":["hello",5]}`);
    }
    const batch = (await answer(parseBody('[{"jsonrpc":"2.0","method":"get_data","id":12345678901234567891},{"jsonrpc":"2.0","method":"get_data","id":1}]', 10), specMethods, ctx)).body;
    expect(batch).to.match(/^\[\{"jsonrpc":"2.0","id":12345678901234567891,/);
  });

  it('refuses wrong types of jsonrpc, id and params', async () => {
    for (const body of ['{"jsonrpc":"1.0","method":"sum","id":1}', '{"jsonrpc":"2.0","method":"sum","id":{}}', '{"jsonrpc":"2.0","method":"sum","params":5,"id":1}']) {
      expect((await run(body)).error.code).to.equal(-32600);
    }
  });

  it('refuses batches over the configured size with one clear error', async () => {
    const call = '{"jsonrpc":"2.0","method":"get_data","id":1}';
    const out = JSON.parse((await answer(parseBody(`[${Array(11).fill(call).join(',')}]`, 10), specMethods, ctx)).body!);
    expect(out.error.code).to.equal(-32600);
    expect(out.error.message).to.contain('at most 10');
  });
});
