/**
 * Per-plan guards checked at the gateway before anything is forwarded or charged: query size in bytes, selection
 * depth and cost. One pass over the document measures depth and cost together, each fragment once, so measuring is
 * linear in the query's size however its fragments spread one another.
 *
 * Depth counts nested fields; fragments add the depth of what they select, not a level of their own.
 * Cost counts every field (aliases each count) once per item of the lists around it: a field with a sub-selection
 * multiplies that selection's cost by its list size, the largest of its `limit`, `first` and `last` arguments (a
 * variable's value when the argument is a variable). The gateway has no schema, so it cannot tell a list from an
 * object: a field with a sub-selection and no size argument counts as DEFAULT_LIST_SIZE items.
 */
// The language modules only: the package's index loads the whole executor and type system, about 10 MB resident that a
// proxy which only measures queries never uses.
import type { DocumentNode, FieldNode, FragmentDefinitionNode, SelectionSetNode, ValueNode } from 'graphql/language/ast.js';
import { Kind } from 'graphql/language/kinds.js';
import { parse } from 'graphql/language/parser.js';
import type { PlanConfig } from '../config/schema.js';
import { GatewayError } from '../errors.js';

export interface GraphqlRequest {
  query: string;
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
  extensions?: Record<string, unknown> | null;
}

/** The bounds a query is judged against: a plan's, or the server's ceilings. */
export type GraphqlLimits = Pick<PlanConfig, 'maxGraphqlBytes' | 'maxGraphqlDepth' | 'maxGraphqlCost'>;

export interface QueryMeasure {
  bytes: number;
  depth: number;
  cost: number;
  /** The parsed query, for checks that read its arguments (the EVM log range). */
  document: DocumentNode;
}

/**
 * Items a field with a sub-selection and no `limit`, `first` or `last` counts as. Most such fields are single objects
 * (an object relationship, `account(input:)`), which 1 would price right; a list without a limit may be much longer,
 * which the upstream's own row cap bounds. 5 keeps an unlimited list from being nearly free while a free-plan query
 * of six nested objects (1 + 5 + ... + 5^5 = 3,906) stays well inside the free plan.
 */
export const DEFAULT_LIST_SIZE = 5;
const SIZE_ARGUMENTS = new Set(['limit', 'first', 'last']);
/** Costs saturate here, so huge list sizes or deep multiplication cannot overflow into nonsense. */
const COST_CEILING = Number.MAX_SAFE_INTEGER;
const capped = (n: number) => Math.min(n, COST_CEILING);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `{query, variables?, operationName?}` or a 400 that says what is wrong. */
export function parseGraphqlRequest(body: Buffer | string): GraphqlRequest {
  let value: unknown;
  try {
    value = JSON.parse(String(body));
  } catch {
    throw new GatewayError('BAD_REQUEST', 'the body must be JSON: {"query": "...", "variables": {...}, "operationName": "..."}');
  }
  if (!isObject(value) || typeof value.query !== 'string') throw new GatewayError('BAD_REQUEST', 'the body needs a "query" string');
  if (value.variables != null && !isObject(value.variables)) throw new GatewayError('BAD_REQUEST', '"variables" must be an object');
  if (value.operationName != null && typeof value.operationName !== 'string') throw new GatewayError('BAD_REQUEST', '"operationName" must be a string');
  return value as unknown as GraphqlRequest;
}

/** Measures a query and applies `limits` to it; a query that does not parse is refused here too. */
export function checkQuery(request: GraphqlRequest, limits: GraphqlLimits): QueryMeasure {
  const measure = measureQuery(request, limits.maxGraphqlBytes);
  judgeQuery(measure, limits);
  return measure;
}

/** Parses and measures a query; one over `maxBytes` is refused before it is parsed. */
export function measureQuery(request: GraphqlRequest, maxBytes: number | undefined): QueryMeasure {
  const bytes = Buffer.byteLength(request.query);
  if (maxBytes !== undefined && bytes > maxBytes) throw tooLarge(bytes, maxBytes);
  let document: DocumentNode;
  try {
    document = parse(request.query);
  } catch (err) {
    throw new GatewayError('GRAPHQL_PARSE_FAILED', (err as Error).message);
  }
  try {
    return { bytes, document, ...measureDocument(document, request.variables ?? {}) };
  } catch (err) {
    // Nesting deep enough to exhaust the stack is far past any plan's depth.
    if (err instanceof RangeError) throw new GatewayError('GRAPHQL_TOO_DEEP', 'nested too deep to measure');
    throw err;
  }
}

/** Throws for the first of `limits` the measured query passes: size, then depth, then cost. */
export function judgeQuery({ bytes, depth, cost }: QueryMeasure, limits: GraphqlLimits): void {
  const { maxGraphqlBytes, maxGraphqlDepth, maxGraphqlCost } = limits;
  if (maxGraphqlBytes !== undefined && bytes > maxGraphqlBytes) throw tooLarge(bytes, maxGraphqlBytes);
  if (maxGraphqlDepth !== undefined && depth > maxGraphqlDepth) throw new GatewayError('GRAPHQL_TOO_DEEP', `depth ${depth}; your plan allows ${maxGraphqlDepth}`);
  if (maxGraphqlCost !== undefined && cost > maxGraphqlCost) {
    throw new GatewayError('GRAPHQL_TOO_COSTLY', `cost ${cost}; your plan allows ${maxGraphqlCost}`);
  }
}

/** Requests a query of `cost` is charged: one per `costPerRequest`, at least one. */
export function priceOf(cost: number, costPerRequest: number): number {
  return Math.max(1, Math.ceil(cost / costPerRequest));
}

const tooLarge = (bytes: number, max: number) => new GatewayError('GRAPHQL_TOO_LARGE', `${bytes} bytes; your plan allows ${max}`);

type Measured = { depth: number; cost: number };
const NOTHING: Measured = { depth: 0, cost: 0 };

/**
 * Depth (deepest operation) and cost (all operations together: which one runs is the client's choice) of a document.
 * Each fragment is measured once and remembered; a spread of a fragment being measured (a cycle, which the upstream
 * rejects as invalid) counts nothing.
 */
function measureDocument(document: DocumentNode, variables: Record<string, unknown>): Measured {
  const fragments = new Map<string, FragmentDefinitionNode>();
  const defaults = new Map<string, ValueNode>();
  for (const def of document.definitions) {
    if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
    if (def.kind === Kind.OPERATION_DEFINITION) {
      for (const v of def.variableDefinitions ?? []) if (v.defaultValue) defaults.set(v.variable.name.value, v.defaultValue);
    }
  }
  const memo = new Map<string, Measured>();

  const sizeOf = (value: ValueNode): number | undefined => {
    let n: unknown;
    if (value.kind === Kind.INT || value.kind === Kind.FLOAT) n = Number(value.value);
    else if (value.kind === Kind.VARIABLE) {
      const name = value.name.value;
      n = variables[name] ?? (defaults.has(name) ? sizeOf(defaults.get(name)!) : undefined);
    }
    return typeof n === 'number' && !Number.isNaN(n) ? capped(Math.max(0, Math.floor(n))) : undefined;
  };
  const listSize = (field: FieldNode): number => {
    let size: number | undefined;
    for (const arg of field.arguments ?? []) {
      const n = SIZE_ARGUMENTS.has(arg.name.value) ? sizeOf(arg.value) : undefined;
      if (n !== undefined) size = Math.max(size ?? 0, n);
    }
    return size ?? DEFAULT_LIST_SIZE;
  };
  const fragment = (name: string): Measured => {
    const known = memo.get(name);
    if (known) return known;
    const def = fragments.get(name);
    if (!def) return NOTHING;
    memo.set(name, NOTHING); // while it is measured: a cycle back to it counts nothing
    const measured = measureSet(def.selectionSet);
    memo.set(name, measured);
    return measured;
  };
  const measureSet = (set: SelectionSetNode): Measured => {
    let depth = 0;
    let cost = 0;
    for (const sel of set.selections) {
      let inner: Measured;
      if (sel.kind === Kind.FIELD) {
        const sub = sel.selectionSet ? measureSet(sel.selectionSet) : undefined;
        inner = { depth: 1 + (sub?.depth ?? 0), cost: sub ? capped(1 + capped(listSize(sel) * sub.cost)) : 1 };
      } else inner = sel.kind === Kind.INLINE_FRAGMENT ? measureSet(sel.selectionSet) : fragment(sel.name.value);
      depth = Math.max(depth, inner.depth);
      cost = capped(cost + inner.cost);
    }
    return { depth, cost };
  };

  let depth = 0;
  let cost = 0;
  for (const def of document.definitions) {
    if (def.kind !== Kind.OPERATION_DEFINITION) continue;
    const measured = measureSet(def.selectionSet);
    depth = Math.max(depth, measured.depth);
    cost = capped(cost + measured.cost);
  }
  return { depth, cost };
}

/** The GraphQL error body for a gateway error: `{"errors":[{"message","extensions":{"code"}}]}`. */
export function graphqlErrorBody(err: GatewayError): { errors: Array<{ message: string; extensions: { code: string } }> } {
  return { errors: [{ message: err.message, extensions: { code: err.entry.graphql } }] };
}
