import { expect } from 'chai';
import { Counter, Histogram, Registry } from 'prom-client';
import { HotCounter, HotHistogram } from '../../src/hotMetrics.js';

/** The per-request metrics must read exactly as prom-client's would: dashboards and alerts query them by name and label. */
describe('per-request metrics: the same text as prom-client', () => {
  const buckets = [0.001, 0.01, 0.1];
  const observations = [0.0005, 0.001, 0.002, 0.05, 0.2, 3];

  it('a histogram with two label sets', async () => {
    const ours = new Registry();
    const theirs = new Registry();
    const hot = new HotHistogram('h_seconds', 'help text', ['chain', 'api'], buckets, ours);
    const reference = new Histogram({ name: 'h_seconds', help: 'help text', labelNames: ['chain', 'api'], buckets, registers: [theirs] });
    for (const [i, v] of observations.entries()) {
      const labels = { chain: i % 2 ? 'a' : 'b"quoted"', api: 'rpc' };
      hot.child(labels.chain, labels.api).observe(v);
      reference.labels(labels).observe(v);
    }
    expect(await ours.metrics()).to.equal(await theirs.metrics());
    // prom-client adds an empty exemplar to each value; nothing reads it without exemplars enabled.
    const values = async (r: Registry) => ((await r.getMetricsAsJSON())[0].values as Array<{ labels: object; value: number; metricName?: string }>).map(({ labels, value, metricName }) => ({ labels, value, metricName }));
    expect(await values(ours)).to.deep.equal(await values(theirs));
  });

  it('a counter, and both after a reset', async () => {
    const ours = new Registry();
    const theirs = new Registry();
    const hot = new HotCounter('c_total', 'help text', ['outcome'], ours);
    const reference = new Counter({ name: 'c_total', help: 'help text', labelNames: ['outcome'], registers: [theirs] });
    hot.child('ok').inc();
    hot.child('ok').inc(2);
    hot.child('limited').inc();
    reference.labels({ outcome: 'ok' }).inc(3);
    reference.labels({ outcome: 'limited' }).inc();
    expect(await ours.metrics()).to.equal(await theirs.metrics());
    ours.resetMetrics();
    expect(await ours.metrics()).to.include('c_total{outcome="ok"} 0');
  });
});
