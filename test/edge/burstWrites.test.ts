/** Answers ended in a burst: every one arrives whole and in its own connection's order, and one that fails strands none. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { endInBurst } from '../../src/edge/burstWrites.js';

describe('answers written in a burst', () => {
  let server: http.Server;
  let port: number;

  before(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.once('end', () => {
        const body = Buffer.concat(chunks).toString();
        if (body === 'fail') {
          // The answer is queued, then its connection fails before the burst is written.
          endInBurst(res, 'lost');
          res.destroy();
          return;
        }
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(body) });
        endInBurst(res, body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  after(() => agent.destroy());

  function post(body: string): Promise<{ status: number; text: string }> {
    return new Promise((resolve, reject) => {
      const req = http.request({ port, method: 'POST', agent, headers: { 'content-length': Buffer.byteLength(body) } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, text }));
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  it('answers 200 concurrent requests over 8 keep-alive connections, each with its own body', async () => {
    const bodies = Array.from({ length: 200 }, (_, i) => `answer-${i}-${'x'.repeat(i * 37)}`);
    const answers = await Promise.all(bodies.map(post));
    expect(answers.map((a) => a.status)).to.deep.equal(bodies.map(() => 200));
    expect(answers.map((a) => a.text)).to.deep.equal(bodies);
  });

  it('still answers the others when one answer of the burst cannot be written', async () => {
    const [failed, ...others] = await Promise.allSettled([post('fail'), post('one'), post('two'), post('three')]);
    expect(failed.status).to.equal('rejected');
    expect(others.map((o) => (o.status === 'fulfilled' ? o.value.text : o.reason))).to.deep.equal(['one', 'two', 'three']);
    expect((await post('after')).text).to.equal('after');
  });
});
