/**
 * The block ranges of an EIP-1767 (EVM) GraphQL document: every root `logs(filter:)` and `blocks(from:, to:)` field,
 * aliases and fragments at the root included, so the gateway can hold each to the span eth_getLogs is held to (a
 * `blocks` range costs the node a block read per block, and `blocks { logs }` a log scan of each). The EVM node resolves
 * them as it resolves eth_getLogs's: a missing bound is the head, and so is a negative Long (its block tags: latest,
 * pending, finalized, safe).
 */
import type { DocumentNode, FieldNode, SelectionSetNode, ValueNode } from 'graphql/language/ast.js';
import { Kind } from 'graphql/language/kinds.js';
import type { LogBounds } from '../rpc/logRange.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A root range field and its bounds as eth_getLogs takes them (hex numbers, `latest`, or absent). */
export interface RangeQuery {
  field: 'logs' | 'blocks';
  bounds: LogBounds;
}

export function rangeQueries(document: DocumentNode, variables: Record<string, unknown>): RangeQuery[] {
  const fragments = new Map(document.definitions.flatMap((d) => (d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, d] as const] : [])));
  const defaults = new Map<string, ValueNode>();
  for (const def of document.definitions) {
    if (def.kind !== Kind.OPERATION_DEFINITION) continue;
    for (const v of def.variableDefinitions ?? []) if (v.defaultValue) defaults.set(v.variable.name.value, v.defaultValue);
  }
  const valueOf = (node: ValueNode): unknown => {
    switch (node.kind) {
      case Kind.VARIABLE: {
        const name = node.name.value;
        if (name in variables) return variables[name];
        const fallback = defaults.get(name);
        return fallback ? valueOf(fallback) : undefined;
      }
      case Kind.INT:
      case Kind.FLOAT:
        return Number(node.value);
      case Kind.STRING:
        return node.value;
      case Kind.NULL:
        return null;
      case Kind.OBJECT:
        return Object.fromEntries(node.fields.map((f) => [f.name.value, valueOf(f.value)]));
      default:
        return undefined;
    }
  };

  const found: RangeQuery[] = [];
  const seen = new Set<string>();
  const visit = (set: SelectionSetNode): void => {
    for (const sel of set.selections) {
      if (sel.kind === Kind.FIELD) {
        if (sel.name.value === 'logs') found.push({ field: 'logs', bounds: filterBounds(sel, valueOf) });
        else if (sel.name.value === 'blocks') found.push({ field: 'blocks', bounds: blocksBounds(sel, valueOf) });
      } else if (sel.kind === Kind.INLINE_FRAGMENT) visit(sel.selectionSet);
      else if (!seen.has(sel.name.value)) {
        // Each fragment once: a root selection cannot gain a field by being spread twice.
        seen.add(sel.name.value);
        const def = fragments.get(sel.name.value);
        if (def) visit(def.selectionSet);
      }
    }
  };
  for (const def of document.definitions) if (def.kind === Kind.OPERATION_DEFINITION) visit(def.selectionSet);
  return found;
}

function argument(field: FieldNode, name: string, valueOf: (node: ValueNode) => unknown): unknown {
  const arg = field.arguments?.find((a) => a.name.value === name);
  return arg ? valueOf(arg.value) : undefined;
}

function filterBounds(field: FieldNode, valueOf: (node: ValueNode) => unknown): LogBounds {
  const filter = argument(field, 'filter', valueOf);
  if (!isObject(filter)) return {};
  return { fromBlock: asQuantity(filter.fromBlock), toBlock: asQuantity(filter.toBlock) };
}

function blocksBounds(field: FieldNode, valueOf: (node: ValueNode) => unknown): LogBounds {
  return { fromBlock: asQuantity(argument(field, 'from', valueOf)), toBlock: asQuantity(argument(field, 'to', valueOf)) };
}

/** A Long (an integer, or a decimal or 0x-hex string) as eth_getLogs writes it; anything else as sent, for the guard to refuse. */
function asQuantity(value: unknown): unknown {
  if (value === undefined || value === null) return undefined;
  let n: bigint | undefined;
  if (typeof value === 'number' && Number.isInteger(value)) n = BigInt(value);
  else if (typeof value === 'string' && /^(0x[0-9a-f]+|-?\d+)$/i.test(value)) n = BigInt(value);
  if (n === undefined) return value;
  return n < 0n ? 'latest' : `0x${n.toString(16)}`;
}
