import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { JsonRpcProvider, Wallet } from 'ethers';
import { sandboxAccounts } from '../../packages/sandbox/src/accounts.js';
import type { TestGateway } from '../support/gateway.js';
import { needTool, TOOLS } from '../support/services.js';
import { startOpsGateway } from './support.js';

/** Sample lines of one metric family: `name{labels} value`. */
function samples(text: string, name: string): Array<{ labels: Record<string, string>; value: number }> {
  const out = [];
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const labels = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]));
    out.push({ labels, value: Number(m[3]) });
  }
  return out;
}

describe('metrics: /metrics exposition', function () {
  let t: TestGateway;
  let text: string;
  /** The metrics before this test's requests: the registry is the process's, which earlier gateways in it counted in. */
  let earlier: string;

  before(async function () {
    t = await startOpsGateway();
    earlier = await fetch(`${t.gw.privateUrl}/metrics`).then((r) => r.text());
    const rpc = (path: string, headers: Record<string, string>, method = 'eth_blockNumber') =>
      fetch(t.gw.url + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] }) });
    const auth = { 'x-api-key': t.key };
    await rpc('/hedera-testnet/rpc', auth);
    await rpc('/hedera-testnet/rpc', auth, 'eth_chainId');
    await rpc('/hedera-testnet/rpc', auth, 'eth_blockNumber');
    await rpc('/hedera-testnet/rpc', auth, 'eth_madeUpMethod');
    // One transaction through the relay to the sandbox's consensus stand-in.
    const provider = new JsonRpcProvider(`${t.gw.url}/hedera-testnet/v1/${t.key}/rpc`, 296, { staticNetwork: true, cacheTimeout: -1 });
    const wallet = new Wallet(sandboxAccounts()[9].privateKey, provider);
    await (await wallet.sendTransaction({ to: wallet.address, value: 1n })).wait();
    provider.destroy();
    await rpc('/ethereum-sepolia/rpc', auth);
    await fetch(`${t.gw.url}/hedera-testnet/api/v1/blocks?limit=1`, { headers: auth });
    await rpc('/hedera-testnet/rpc', {}); // 401
    await fetch(`${t.gw.url}/nowhere/rpc`); // 404
    await fetch(`${t.gw.privateUrl}/readyz`);
    text = await fetch(`${t.gw.privateUrl}/metrics`).then((r) => r.text());
  });

  after(() => t?.close());

  it('passes promtool check metrics', function () {
    const bin = needTool(this, TOOLS.promtool);
    const result = spawnSync(bin, ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect(result.stdout + result.stderr).to.equal('');
    expect(result.status).to.equal(0);
  });

  it('ships a Prometheus scrape config and alert rules that pass promtool check config', function () {
    const bin = needTool(this, TOOLS.promtool);
    const result = spawnSync(bin, ['check', 'config', 'ops/prometheus.yml'], { cwd: new URL('../../', import.meta.url), encoding: 'utf8' });
    expect(result.status, result.stdout + result.stderr).to.equal(0);
    expect(result.stdout).to.match(/SUCCESS: \d+ rules found/);
  });

  it('ships alert rules whose unit tests pass promtool test rules (the operator hbar budget alert fires before it runs out)', function () {
    const bin = needTool(this, TOOLS.promtool);
    const result = spawnSync(bin, ['test', 'rules', 'ops/alerts.test.yml'], { cwd: new URL('../../', import.meta.url), encoding: 'utf8' });
    expect(result.status, result.stdout + result.stderr).to.equal(0);
  });

  it('reports hbar spend per plan and the operator budget left, never a key', () => {
    const spentIn = (metrics: string) =>
      samples(metrics, 'gateway_hbar_spent_tinybar_total').find((s) => s.labels.network === 'hedera-testnet' && s.labels.plan === 'enterprise')?.value ?? 0;
    const spent = { value: spentIn(text) - spentIn(earlier) };
    expect(spent.value).to.be.greaterThan(0);
    const budget = samples(text, 'gateway_hbar_operator_budget_tinybar').find((s) => s.labels.network === 'hedera-testnet');
    const left = samples(text, 'gateway_hbar_operator_remaining_tinybar').find((s) => s.labels.network === 'hedera-testnet');
    // The remaining budget is read from the key store, which other runs on this Postgres may have spent from too.
    expect(budget!.value - left!.value).to.be.at.least(spent.value);
  });

  it('counts requests by chain, network, API and outcome', () => {
    const requests = samples(text, 'gateway_requests_total');
    const find = (labels: Record<string, string>) => requests.find((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v));
    expect(find({ chain: 'hedera', network: 'testnet', api: 'rpc', outcome: 'ok' })?.value).to.be.at.least(2);
    expect(find({ chain: 'ethereum', network: 'sepolia', api: 'rpc', outcome: 'ok' })?.value).to.be.at.least(1);
    expect(find({ chain: 'hedera', network: 'testnet', api: 'rest', outcome: 'ok' })?.value).to.be.at.least(1);
    expect(find({ chain: 'hedera', network: 'testnet', api: 'rpc', outcome: 'auth' })?.value).to.be.at.least(1);
    expect(find({ api: 'none', outcome: 'client_error' })?.value).to.be.at.least(1);
  });

  it('has duration buckets from a tenth of a millisecond to tens of seconds', () => {
    const les = samples(text, 'gateway_request_duration_seconds_bucket').map((s) => s.labels.le);
    expect(les).to.include.members(['0.0001', '0.0005', '0.001', '1', '10', '+Inf']);
    expect(samples(text, 'gateway_upstream_request_duration_seconds_bucket').length).to.be.greaterThan(0);
  });

  it('counts upstream requests by upstream, named by place in the failover order: no host, no credential', () => {
    const upstream = samples(text, 'gateway_upstream_requests_total');
    expect(upstream.length).to.be.greaterThan(0);
    for (const s of upstream) expect(s.labels.upstream).to.match(/^(rpc\d+|mirror|graphql)$/);
    expect(text).to.not.match(/127\.0\.0\.1|localhost|https?:\/\//);
  });

  it('counts ledger relay calls by method and outcome, with unsupported methods as other', () => {
    const calls = samples(text, 'gateway_relay_calls_total').filter((s) => s.labels.network === 'hedera-testnet');
    const count = (method: string, outcome: string) => calls.find((s) => s.labels.method === method && s.labels.outcome === outcome)?.value ?? 0;
    expect(count('eth_blockNumber', 'ok')).to.be.at.least(2);
    expect(count('eth_chainId', 'ok')).to.be.at.least(1);
    expect(count('other', '-32601')).to.be.at.least(1);
    expect(calls.map((s) => s.labels.method)).to.not.include('eth_madeUpMethod');
  });

  it('counts consensus submissions by status', () => {
    const submissions = samples(text, 'gateway_consensus_submissions_total');
    expect(submissions.find((s) => s.labels.status === 'SUCCESS')?.value).to.be.at.least(1);
  });

  it('counts and times the relay mirror-node lookups like the REST passthrough, by network', () => {
    const mirror = (name: string) => samples(text, name).filter((s) => s.labels.network === 'hedera-testnet' && s.labels.upstream === 'mirror');
    // One REST request went to the mirror node; the relay's lookups add to it.
    expect(mirror('gateway_upstream_requests_total').reduce((sum, s) => sum + s.value, 0)).to.be.greaterThan(1);
    expect(mirror('gateway_upstream_request_duration_seconds_count')[0]?.value).to.be.greaterThan(1);
  });

  it('exports the relay read cache and mirror client counts', () => {
    const cache = samples(text, 'gateway_relay_cache_requests_total').filter((s) => s.labels.network === 'hedera-testnet');
    expect(cache.map((s) => s.labels.result)).to.have.members(['hit', 'miss', 'coalesced']);
    expect(cache.reduce((sum, s) => sum + s.value, 0)).to.be.greaterThan(0);
    const bytes = samples(text, 'gateway_relay_cache_bytes').find((s) => s.labels.network === 'hedera-testnet');
    expect(bytes?.value).to.be.greaterThan(0);
    const mirror = samples(text, 'gateway_relay_mirror_requests_total').filter((s) => s.labels.network === 'hedera-testnet');
    expect(mirror.find((s) => s.labels.kind === 'attempt')?.value).to.be.greaterThan(0);
  });

  it('exports every metric the Grafana dashboard and the alert rules query', () => {
    const root = new URL('../../', import.meta.url);
    const queries = [
      ...JSON.stringify(JSON.parse(readFileSync(new URL('ops/grafana-dashboard.json', root), 'utf8'))).matchAll(/"expr":"((?:[^"\\]|\\.)*)"/g),
      ...readFileSync(new URL('ops/alerts.yml', root), 'utf8').matchAll(/expr: ([^\n]*(?:\n {12,}[^\n]*)*)/g),
    ].map((m) => m[1]);
    expect(queries.length).to.be.greaterThan(20);
    const families = new Set(queries.flatMap((q) => [...q.matchAll(/\b((?:gateway|process|nodejs)_[a-z0-9_]+)/g)].map((m) => m[1].replace(/_(bucket|sum|count)$/, ''))));
    const missing = [...families].filter((f) => !text.includes(`# TYPE ${f} `));
    expect(missing).to.deep.equal([]);
  });

  it('exports limiter and process metrics', () => {
    for (const family of ['gateway_limit_refusals_total', 'gateway_limiter_backend_errors_total', 'process_cpu_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds']) {
      expect(text, family).to.include(`# TYPE ${family} `);
    }
  });
});
