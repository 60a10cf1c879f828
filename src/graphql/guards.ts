/**
 * Per-plan guards checked at the gateway before anything is forwarded: query size in bytes and selection depth.
 * Depth counts nested fields; fragments add the depth of what they select, not a level of their own.
 */
// The language modules only: the package's index loads the whole executor and type system, about 10 MB resident that a
// proxy which only measures queries never uses.
import type { DocumentNode, FragmentDefinitionNode, SelectionSetNode } from 'graphql/language/ast.js';
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

/** Applies the plan's size and depth limits; a query that does not parse is refused here too. */
export function checkQuery(query: string, plan: PlanConfig): void {
  const bytes = Buffer.byteLength(query);
  if (plan.maxGraphqlBytes !== undefined && bytes > plan.maxGraphqlBytes) {
    throw new GatewayError('GRAPHQL_TOO_LARGE', `${bytes} bytes; your plan allows ${plan.maxGraphqlBytes}`);
  }
  let document: DocumentNode;
  try {
    document = parse(query);
  } catch (err) {
    throw new GatewayError('GRAPHQL_PARSE_FAILED', (err as Error).message);
  }
  if (plan.maxGraphqlDepth !== undefined) {
    const depth = queryDepth(document);
    if (depth > plan.maxGraphqlDepth) throw new GatewayError('GRAPHQL_TOO_DEEP', `depth ${depth}; your plan allows ${plan.maxGraphqlDepth}`);
  }
}

export function queryDepth(document: DocumentNode): number {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const def of document.definitions) if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);

  const depthOf = (set: SelectionSetNode | undefined, visiting: Set<string>): number => {
    if (!set) return 0;
    let max = 0;
    for (const sel of set.selections) {
      if (sel.kind === Kind.FIELD) max = Math.max(max, 1 + depthOf(sel.selectionSet, visiting));
      else if (sel.kind === Kind.INLINE_FRAGMENT) max = Math.max(max, depthOf(sel.selectionSet, visiting));
      else {
        const name = sel.name.value;
        const fragment = fragments.get(name);
        // A fragment cycle is invalid GraphQL; the upstream rejects it, so it need not count here.
        if (!fragment || visiting.has(name)) continue;
        max = Math.max(max, depthOf(fragment.selectionSet, new Set(visiting).add(name)));
      }
    }
    return max;
  };

  let depth = 0;
  for (const def of document.definitions) if (def.kind === Kind.OPERATION_DEFINITION) depth = Math.max(depth, depthOf(def.selectionSet, new Set()));
  return depth;
}

/** The GraphQL error body for a gateway error: `{"errors":[{"message","extensions":{"code"}}]}`. */
export function graphqlErrorBody(err: GatewayError): { errors: Array<{ message: string; extensions: { code: string } }> } {
  return { errors: [{ message: err.message, extensions: { code: err.entry.graphql } }] };
}
