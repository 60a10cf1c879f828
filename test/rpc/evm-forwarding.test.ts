import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { rpc, startTestGateway, type TestGateway } from '../support/gateway.js';

interface UpstreamCall {
  id: number;
  method: string;
  params: unknown[];
}

/**
 * An EVM upstream on loopback that answers eth_chainId for chain 1 (the gateway's start-up check) and everything else
 * as `answer` says: the raw text of the body, or its own handling of the response (to cut it off). Answers are
 * written as given, byte for byte, as a node that formats its JSON its own way would send them.
 */
class ScriptedUpstream {
  answer: (calls: UpstreamCall[], batch: boolean) => string | ((res: http.ServerResponse) => void) = () => '{}';
  /** Bodies received, other than the start-up check. */
  readonly received: string[] = [];
  /** Connections the gateway opened. */
  connections = 0;

  private constructor(private readonly server: http.Server) {}

  static async start(): Promise<ScriptedUpstream> {
    const server = http.createServer();
    const upstream = new ScriptedUpstream(server);
    server.on('connection', () => upstream.connections++);
    server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const parsed = JSON.parse(text) as UpstreamCall | UpstreamCall[];
        const calls = Array.isArray(parsed) ? parsed : [parsed];
        if (calls.length === 1 && calls[0].method === 'eth_chainId') {
          res.writeHead(200, { 'content-type': 'application/json' }).end(`{"jsonrpc":"2.0","id":${calls[0].id},"result":"0x1"}`);
          return;
        }
        upstream.received.push(text);
        const answer = upstream.answer(calls, Array.isArray(parsed));
        if (typeof answer === 'string') res.writeHead(200, { 'content-type': 'application/json' }).end(answer);
        else answer(res);
      });
    });
    // Connections stay open however slowly the machine runs, so counting them counts what the gateway opened.
    server.keepAliveTimeout = 600_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return upstream;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** A result as a node might format it: spaces and newlines, escapes, non-ASCII text, numbers JSON.parse would round. */
const ODD_RESULT = `{
  "number" : "0x1b4",  "big": 123456789012345678901234567890, "exact": 0.1000000000000000055511151231257827,
  "huge": 1E400, "text": "tab\\there \\"quoted\\" \\u00e9\\u0301 é ☃ 😀 \\ud83d\\ude00 \\/ \\\\",
  "empty": {}, "list": [ 1 , [ ] , null, true, false ]
}`;

describe('EVM forwarding passes the upstream answer through as it came', () => {
  let upstream: ScriptedUpstream;
  let spare: ScriptedUpstream;
  let t: TestGateway;
  let url: string;

  before(async () => {
    [upstream, spare] = await Promise.all([ScriptedUpstream.start(), ScriptedUpstream.start()]);
    t = await startTestGateway({
      // No probes or hedges: each test's calls reach its upstream exactly as sent.
      upstreamHealth: { probeIntervalMs: 3_600_000, hedge: false },
      chains: {
        ethereum: {
          displayName: 'Ethereum',
          networks: {
            mainnet: { chainId: 1, upstreams: [upstream.url] },
            // A second network that fails over from the scripted upstream to a spare.
            sepolia: { chainId: 1, upstreams: [upstream.url, spare.url] },
          },
        },
      },
    });
    url = `${t.gw.url}/ethereum/v1/${t.key}/rpc`;
  });
  after(async () => {
    await t?.close();
    await Promise.all([upstream?.close(), spare?.close()]);
  });

  const call = (id: string, method = 'eth_getBlockByNumber') => `{"jsonrpc":"2.0","id":${id},"method":"${method}","params":["0x1b4",false]}`;

  it('puts the result under the client id byte for byte: whitespace, escapes, unicode and big numbers kept', async () => {
    upstream.answer = (calls) => `{"id":${calls[0].id},\n "jsonrpc" : "2.0", "result" : ${ODD_RESULT}  }\n`;
    for (const id of ['12345678901234567890', '-12345678901234567890', '0', 'null', '"a \\"quoted\\" id"', '"é ☃ 😀"', '"12345678901234567890"']) {
      const res = await rpc(url, call(id));
      expect(res.status).to.equal(200);
      expect(res.text).to.equal(`{"jsonrpc":"2.0","id":${id},"result":${ODD_RESULT}}`);
    }
  });

  it('maps a batch to the client ids when the upstream answers in another order, results untouched', async () => {
    upstream.answer = (calls) => `[ ${[...calls].reverse().map((c) => `{"jsonrpc":"2.0","result":"r${c.id}\\u0021",  "id":${c.id}}`).join(' ,\n ')} ]`;
    const res = await rpc(url, `[${call('"a"')},${call('99999999999999999999')},{"jsonrpc":"2.0","method":"eth_blockNumber"},${call('7')}]`);
    // The notification is forwarded but not answered; the three others answer in the order the client sent them.
    expect(res.text).to.equal(
      '[{"jsonrpc":"2.0","id":"a","result":"r0\\u0021"},{"jsonrpc":"2.0","id":99999999999999999999,"result":"r1\\u0021"},{"jsonrpc":"2.0","id":7,"result":"r3\\u0021"}]',
    );
  });

  it("passes a node's error in a batch with the client id and without the gateway's request in data, beside plain results", async () => {
    upstream.answer = (calls) =>
      JSON.stringify(
        calls.map((c) =>
          c.method === 'eth_call'
            ? { jsonrpc: '2.0', id: c.id, error: { code: -32004, message: 'not supported', data: { jsonrpc: '2.0', id: c.id, method: c.method, params: c.params } } }
            : { jsonrpc: '2.0', id: c.id, result: '0x1' },
        ),
      );
    const res = await rpc(url, `[${call('"x"', 'eth_call')},${call('12345678901234567891')}]`);
    expect(res.text).to.equal('[{"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"not supported"}},{"jsonrpc":"2.0","id":12345678901234567891,"result":"0x1"}]');
    expect(res.text).not.to.contain('"params"');
  });

  it('answers every call of a batch with the error of a node that refuses batches with one error and no id', async () => {
    upstream.answer = () => '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batch requests are not supported"}}';
    const res = await rpc(url, `[${call('1')},${call('"two"')}]`);
    expect(res.json).to.deep.equal([
      { jsonrpc: '2.0', id: 1, error: { code: -32600, message: 'batch requests are not supported' } },
      { jsonrpc: '2.0', id: 'two', error: { code: -32600, message: 'batch requests are not supported' } },
    ]);
  });

  const broken: Array<[string, string | ((res: http.ServerResponse) => void)]> = [
    ['an HTML page', '<html><body>502 Bad Gateway</body></html>'],
    ['JSON cut off', '{"jsonrpc":"2.0","id":0,"result":{"number":"0x1b4","hash":"0xab'],
    ['a result that is not JSON', '{"jsonrpc":"2.0","id":0,"result":0x1b4}'],
    ['two values', '{"jsonrpc":"2.0","id":0,"result":"0x1"}{"jsonrpc":"2.0","id":0,"result":"0x2"}'],
    ['an empty body', ''],
    [
      'a connection closed halfway through the body',
      (res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '200' });
        res.write('{"jsonrpc":"2.0","id":0,"result":{"number":"0x1b4"');
        setImmediate(() => res.socket?.destroy());
      },
    ],
  ];

  for (const [name, answer] of broken) {
    it(`answers a clean JSON-RPC error with the client id, nothing of the body, for ${name}`, async () => {
      upstream.answer = () => answer;
      const res = await rpc(url, call('"mine"'));
      expect(res.status).to.equal(200);
      expect(res.json).to.deep.equal({ jsonrpc: '2.0', id: 'mine', error: { code: -32603, message: 'Upstream unavailable: all 1 upstream(s) of ethereum failed' } });
    });

    it(`moves on to the next upstream for ${name}`, async () => {
      upstream.answer = () => answer;
      spare.answer = (calls) => `{"jsonrpc":"2.0","id":${calls[0].id},"result":"0xspare"}`;
      const res = await rpc(`${t.gw.url}/ethereum-sepolia/v1/${t.key}/rpc`, call('5'));
      expect(res.text).to.equal('{"jsonrpc":"2.0","id":5,"result":"0xspare"}');
    });
  }

  it('sends the upstream its own ids, never the client ids', async () => {
    upstream.answer = (calls) => JSON.stringify(calls.map((c) => ({ jsonrpc: '2.0', id: c.id, result: null })));
    const from = upstream.received.length;
    await rpc(url, `[${call('"client-a"')},${call('12345678901234567890')}]`);
    expect(upstream.received.slice(from).map((b) => (JSON.parse(b) as UpstreamCall[]).map((c) => c.id))).to.deep.equal([[0, 1]]);
  });

  it('sends a call as one JSON-RPC request of its own: our id, the method, the params as their values, nothing else', async () => {
    upstream.answer = (calls) => `{"jsonrpc":"2.0","id":${calls[0].id},"result":null}`;
    const from = upstream.received.length;
    await rpc(url, '{ "params" : [ "0x1b4" , { "a\\u0062" : 1.50 } ], "extra": 1, "id": "c", "method": "eth_ge\\u0074Block", "jsonrpc": "2.0" }');
    await rpc(url, '{"jsonrpc":"2.0","id":1,"method":"eth_gasPrice"}');
    expect(upstream.received.slice(from)).to.deep.equal([
      '{"jsonrpc":"2.0","id":0,"method":"eth_getBlock","params":["0x1b4",{"ab":1.5}]}',
      '{"jsonrpc":"2.0","id":0,"method":"eth_gasPrice","params":[]}',
    ]);
  });
});

describe('EVM upstream connections', () => {
  it('keeps no more connections to an upstream than configured; calls beyond wait for one and are answered', async () => {
    const upstream = await ScriptedUpstream.start();
    // Every answer waits until all the calls have been sent, so the calls overlap as much as they can.
    const held: Array<() => void> = [];
    let sent = false;
    upstream.answer = (calls) => (res) => {
      const answer = () => res.writeHead(200, { 'content-type': 'application/json' }).end(`{"jsonrpc":"2.0","id":${calls[0].id},"result":"0x2a"}`);
      if (sent) answer();
      else held.push(answer);
    };
    const t = await startTestGateway({
      server: { upstreamConnections: 2 },
      upstreamHealth: { probeIntervalMs: 3_600_000, hedge: false },
      chains: { ethereum: { displayName: 'Ethereum', networks: { mainnet: { chainId: 1, upstreams: [upstream.url] } } } },
    });
    try {
      const url = `${t.gw.url}/ethereum/v1/${t.key}/rpc`;
      const calls = Array.from({ length: 6 }, (_, i) => rpc(url, { jsonrpc: '2.0', id: i, method: 'eth_blockNumber', params: [] }));
      while (held.length < 2) await new Promise((r) => setTimeout(r, 5));
      sent = true;
      for (const answer of held.splice(0)) answer();
      expect((await Promise.all(calls)).map((r) => r.json.result)).to.deep.equal(Array(6).fill('0x2a'));
      // The start-up check's connection is one of the two.
      expect(upstream.connections).to.be.at.most(2);
    } finally {
      await t.close();
      await upstream.close();
    }
  });
});
