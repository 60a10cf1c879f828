import type { Metric, Registry } from 'prom-client';

/**
 * Metrics observed on every request. A prom-client labelled child validates and hashes its labels on each
 * observation: the request and limiter histograms with the request counter took about 5 us of an eth_chainId's CPU in
 * the edge profile (`observe` at prom-client histogram.js:232, `setValue` counter.js:138, `validateLabel`,
 * `fastHashObject`). Here a label set's series is found by one map look-up per label value, and an observation is a
 * bucket search and a few additions. The registry reads these as it reads prom-client's own, in the same text.
 */
type Labels = Readonly<Record<string, string>>;

interface Exported {
  name: string;
  help: string;
  type: 'histogram' | 'counter';
  aggregator: 'sum';
  values: Array<{ labels: Record<string, string | number>; value: number; metricName?: string; sharedLabels?: Labels }>;
}

abstract class HotMetric<S extends { labels: Labels }> {
  readonly aggregator = 'sum';
  /**
   * Series by label values, one map level per label. The values are the config's and the code's own strings, whose
   * hashes V8 keeps: a key joined from them was a new string to build and hash on every observation (Array.join and
   * ComputeAndSetRawHash, 4,700 instructions of a forwarded request).
   */
  private readonly byValues = new Map<string, unknown>();
  private readonly series: S[] = [];

  constructor(
    readonly name: string,
    readonly help: string,
    /** The label names, in the order `child` takes their values and the text prints them. */
    private readonly labelNames: readonly string[],
    registry: Registry,
  ) {
    registry.registerMetric(this as unknown as Metric);
  }

  /** The series of one label set (values in `labelNames` order), made on first use. */
  child(...values: string[]): S {
    let level = this.byValues;
    const last = values.length - 1;
    for (let i = 0; i < last; i++) {
      let next = level.get(values[i]) as Map<string, unknown> | undefined;
      if (!next) level.set(values[i], (next = new Map()));
      level = next;
    }
    let series = level.get(values[last]) as S | undefined;
    if (!series) {
      series = this.create(Object.fromEntries(this.labelNames.map((name, i) => [name, values[i]])));
      level.set(values[last], series);
      this.series.push(series);
    }
    return series;
  }

  reset(): void {
    for (const s of this.series) this.clear(s);
  }

  /** What the registry prints: label values shared by a series' lines kept apart, as prom-client's histogram does. */
  async getForPromString(): Promise<Exported> {
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values: this.series.flatMap((s) => this.export(s)) };
  }

  /** The same values with each line's labels whole (`registry.getMetricsAsJSON`, `getSingleMetric(...).get()`). */
  async get(): Promise<Exported> {
    const data = await this.getForPromString();
    return { ...data, values: data.values.map(({ sharedLabels, labels, ...v }) => ({ ...v, labels: { ...labels, ...sharedLabels } })) };
  }

  abstract readonly type: 'histogram' | 'counter';
  protected abstract create(labels: Labels): S;
  protected abstract clear(series: S): void;
  protected abstract export(series: S): Exported['values'];
}

export class HistogramSeries {
  /** Observations per bucket (not cumulative); the last counts those above every bound. */
  readonly counts: Float64Array;
  sum = 0;

  constructor(
    readonly labels: Labels,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]) i++;
    this.counts[i]++;
    this.sum += value;
  }
}

export class HotHistogram extends HotMetric<HistogramSeries> {
  readonly type = 'histogram';

  constructor(name: string, help: string, labelNames: readonly string[], private readonly bounds: readonly number[], registry: Registry) {
    super(name, help, labelNames, registry);
  }

  protected create(labels: Labels): HistogramSeries {
    return new HistogramSeries(labels, this.bounds);
  }

  protected clear(series: HistogramSeries): void {
    series.counts.fill(0);
    series.sum = 0;
  }

  protected export(s: HistogramSeries): Exported['values'] {
    const values: Exported['values'] = [];
    let cumulative = 0;
    for (const [i, le] of this.bounds.entries()) {
      cumulative += s.counts[i];
      values.push({ labels: { le }, value: cumulative, metricName: `${this.name}_bucket`, sharedLabels: s.labels });
    }
    const count = cumulative + s.counts[this.bounds.length];
    values.push(
      { labels: { le: '+Inf' }, value: count, metricName: `${this.name}_bucket`, sharedLabels: s.labels },
      { labels: {}, value: s.sum, metricName: `${this.name}_sum`, sharedLabels: s.labels },
      { labels: {}, value: count, metricName: `${this.name}_count`, sharedLabels: s.labels },
    );
    return values;
  }
}

export class CounterSeries {
  value = 0;

  constructor(readonly labels: Labels) {}

  inc(by = 1): void {
    this.value += by;
  }
}

export class HotCounter extends HotMetric<CounterSeries> {
  readonly type = 'counter';

  protected create(labels: Labels): CounterSeries {
    return new CounterSeries(labels);
  }

  protected clear(series: CounterSeries): void {
    series.value = 0;
  }

  protected export(s: CounterSeries): Exported['values'] {
    return [{ labels: s.labels, value: s.value }];
  }
}
