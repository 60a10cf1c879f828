/** The GraphQL cost model: depth and cost measured in one pass, each fragment once, with saturating arithmetic. */
import { expect } from 'chai';
import { DEFAULT_LIST_SIZE, checkQuery, measureQuery, priceOf } from '../../src/graphql/guards.js';

/** Fragment F<i> spreads F<i+1> twice: 2^n leaves from about 36 bytes a level. */
function fragmentBomb(n: number): string {
  const fragments = Array.from({ length: n }, (_, i) => `fragment F${i} on T { ...F${i + 1} ...F${i + 1} }`);
  return `{ root { ...F0 } } ${fragments.join(' ')} fragment F${n} on T { leaf }`;
}

const cost = (query: string, variables?: Record<string, unknown>) => measureQuery({ query, variables }, undefined).cost;
const FREE = { maxGraphqlBytes: 8_192, maxGraphqlDepth: 6, maxGraphqlCost: 20_000 };

describe('GraphQL cost model', () => {
  it('measures a 30-level fragment bomb once per fragment and refuses it by cost', () => {
    expect(cost(fragmentBomb(30))).to.equal(1 + DEFAULT_LIST_SIZE * 2 ** 30);
    expect(() => checkQuery({ query: fragmentBomb(30) }, FREE)).to.throw(/cost \d+; your plan allows 20000/);
  });

  it('ends fragment cycles', () => {
    const measured = measureQuery({ query: '{ root { ...A } } fragment A on T { a ...B } fragment B on T { b ...A }' }, undefined);
    expect(measured).to.deep.include({ depth: 2, cost: 1 + DEFAULT_LIST_SIZE * 2 });
  });

  it('counts every alias, and multiplies a selection by limit, first or last', () => {
    expect(cost('{ a: x b: x c: x }')).to.equal(3);
    expect(cost('{ transaction(limit: 1000) { consensus_timestamp } }')).to.equal(1 + 1000);
    const aliases = Array.from({ length: 40 }, (_, i) => `t${i}: transaction(limit: 1000) { consensus_timestamp }`).join(' ');
    expect(cost(`{ ${aliases} }`)).to.equal(40 * 1001);
    expect(cost('{ repos(first: 10) { edges { node { name } } } }')).to.equal(1 + 10 * (1 + DEFAULT_LIST_SIZE * (1 + DEFAULT_LIST_SIZE)));
  });

  it("reads a variable's value, or its default, and uses the default list size when none is given", () => {
    const query = 'query ($n: Int = 7) { t(limit: $n) { a } }';
    expect(cost(query, { n: 300 })).to.equal(301);
    expect(cost(query)).to.equal(8);
    expect(cost('query ($n: Int) { t(limit: $n) { a } }', { n: 'many' })).to.equal(1 + DEFAULT_LIST_SIZE);
  });

  it('saturates instead of overflowing on huge list sizes', () => {
    const huge = `{ a(limit: ${'9'.repeat(400)}) { b(first: 1e300) { c(last: 99999999999) { d } } } }`;
    expect(cost(huge)).to.equal(Number.MAX_SAFE_INTEGER);
    expect(cost('{ a(limit: -5) { b } }')).to.equal(1);
  });

  it('charges one request per cost unit, at least one', () => {
    expect(priceOf(2, 1_000)).to.equal(1);
    expect(priceOf(40_040, 1_000)).to.equal(41);
    expect(priceOf(Number.MAX_SAFE_INTEGER, 1_000)).to.be.finite;
  });
});
