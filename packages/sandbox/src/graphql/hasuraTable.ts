/**
 * A Hasura-shaped read-only table for the ledger GraphQL stand-in: the real service (hgraph) is Hasura over the
 * mirror node's database, so clients write `transaction(limit:, offset:, order_by: {col: desc}, where: {col: {_gt: x}})`
 * and read bigint columns as strings of decimal digits. The same arguments serve the query field and the live-query
 * subscription field.
 */
import {
  GraphQLEnumType,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLScalarType,
  GraphQLString,
  Kind,
  type GraphQLFieldConfig,
  type GraphQLFieldConfigArgumentMap,
  type GraphQLInputType,
} from 'graphql';

/** Hasura's bigint: decimal-digit strings out; ints or digit strings in. */
export const BigintScalar = new GraphQLScalarType({
  name: 'bigint',
  serialize: (v) => String(v),
  parseValue: (v) => toBigint(v),
  parseLiteral: (ast) => (ast.kind === Kind.INT || ast.kind === Kind.STRING ? toBigint(ast.value) : undefined),
});

function toBigint(v: unknown): bigint {
  if (typeof v === 'bigint') return v;
  if ((typeof v === 'number' && Number.isInteger(v)) || (typeof v === 'string' && /^-?\d+$/.test(v))) return BigInt(v);
  throw new TypeError(`bigint expects an integer or a string of digits, got ${JSON.stringify(v)}`);
}

const OrderBy = new GraphQLEnumType({ name: 'order_by', values: { asc: { value: 'asc' }, desc: { value: 'desc' } } });

function comparison(name: string, type: GraphQLInputType) {
  return new GraphQLInputObjectType({
    name,
    fields: { _eq: { type }, _gt: { type }, _gte: { type }, _lt: { type }, _lte: { type } },
  });
}
const BigintComparison = comparison('bigint_comparison_exp', BigintScalar);
const StringComparison = comparison('String_comparison_exp', GraphQLString);

export type Cell = bigint | string | null;
export type Row = Record<string, Cell>;
export type ColumnType = 'bigint' | 'String';

type Comparison = Partial<Record<'_eq' | '_gt' | '_gte' | '_lt' | '_lte', Cell>>;
export interface TableArgs {
  limit?: number | null;
  offset?: number | null;
  order_by?: Array<Record<string, 'asc' | 'desc'>> | null;
  where?: Record<string, Comparison> | null;
}

export interface Table {
  type: GraphQLObjectType;
  args: GraphQLFieldConfigArgumentMap;
  /** Applies where, order_by, offset and limit to the rows. */
  select(rows: readonly Row[], args: TableArgs): Row[];
}

export function hasuraTable(name: string, columns: Record<string, ColumnType>): Table {
  const scalar = (t: ColumnType) => (t === 'bigint' ? BigintScalar : GraphQLString);
  const type = new GraphQLObjectType({
    name,
    fields: Object.fromEntries(Object.entries(columns).map(([col, t]) => [col, { type: scalar(t) }])),
  });
  const orderBy = new GraphQLInputObjectType({
    name: `${name}_order_by`,
    fields: Object.fromEntries(Object.keys(columns).map((col) => [col, { type: OrderBy }])),
  });
  const where = new GraphQLInputObjectType({
    name: `${name}_bool_exp`,
    fields: Object.fromEntries(Object.entries(columns).map(([col, t]) => [col, { type: t === 'bigint' ? BigintComparison : StringComparison }])),
  });
  const args: GraphQLFieldConfigArgumentMap = {
    limit: { type: GraphQLInt },
    offset: { type: GraphQLInt },
    order_by: { type: new GraphQLList(new GraphQLNonNull(orderBy)) },
    where: { type: where },
  };
  return {
    type,
    args,
    select(rows, a) {
      const filtered = rows.filter((row) => Object.entries(a.where ?? {}).every(([col, cmp]) => matches(row[col], cmp)));
      const order = (a.order_by ?? []).flatMap((o) => Object.entries(o));
      if (order.length) {
        filtered.sort((x, y) => {
          for (const [col, dir] of order) {
            const c = compare(x[col], y[col]);
            if (c) return dir === 'desc' ? -c : c;
          }
          return 0;
        });
      }
      const offset = Math.max(0, a.offset ?? 0);
      return filtered.slice(offset, a.limit == null ? undefined : offset + Math.max(0, a.limit));
    },
  };
}

/** A list field over a table: `name(limit, offset, order_by, where): [name!]!`. */
export function listField(table: Table, resolveRows: () => readonly Row[]): GraphQLFieldConfig<unknown, unknown, TableArgs> {
  return {
    type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(table.type))),
    args: table.args,
    resolve: (_src, args) => table.select(resolveRows(), args),
  };
}

function compare(a: Cell, b: Cell): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return a < b ? -1 : 1;
}

function matches(value: Cell, cmp: Comparison): boolean {
  return Object.entries(cmp).every(([op, target]) => {
    if (target === null || target === undefined) return true;
    if (value === null) return false;
    const c = compare(value, target);
    return op === '_eq' ? c === 0 : op === '_gt' ? c > 0 : op === '_gte' ? c >= 0 : op === '_lt' ? c < 0 : c <= 0;
  });
}
