/**
 * Validates JSON-RPC results against the Ethereum execution API's OpenRPC document
 * (`test/reference/ethereum/openrpc.json`): the method's `result.schema`, with `#/components/schemas/...`
 * refs resolved inside the document.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2019, type ValidateFunction } from 'ajv/dist/2019.js';

const DOC_PATH = fileURLToPath(new URL('../reference/ethereum/openrpc.json', import.meta.url));
const DOC_ID = 'ethereum-openrpc.json';

interface OpenRpcDoc {
  methods: Array<{ name: string; result: { schema: unknown } }>;
  components: { schemas: Record<string, unknown> };
}

let loaded: { doc: OpenRpcDoc; ajv: Ajv2019 } | undefined;
const compiled = new Map<string, ValidateFunction>();

function load() {
  if (loaded) return loaded;
  const doc = JSON.parse(readFileSync(DOC_PATH, 'utf8')) as OpenRpcDoc;
  // Draft 2019-09, as upstream's speccheck uses; strict off for the `title`/`description` annotations on refs.
  const ajv = new Ajv2019({ strict: false, allErrors: true });
  ajv.addSchema({ $id: DOC_ID, components: doc.components });
  loaded = { doc, ajv };
  return loaded;
}

/** Rewrites local refs so they resolve against the registered document. */
function rebase(schema: unknown): unknown {
  return JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', `"${DOC_ID}#/components/`));
}

/** Problems with `result` as the answer of `method`; empty when valid. Throws for a method the document lacks. */
export function validateRpcResult(method: string, result: unknown): string[] {
  const { doc, ajv } = load();
  let validate = compiled.get(method);
  if (!validate) {
    const m = doc.methods.find((x) => x.name === method);
    if (!m) throw new Error(`${method} is not in the Ethereum OpenRPC document`);
    validate = ajv.compile(rebase(m.result.schema) as object);
    compiled.set(method, validate);
  }
  if (validate(result)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '(result)'} ${e.message}`);
}

/** Whether the document defines the method (net_listening and web3_* are not in it). */
export function hasRpcMethod(method: string): boolean {
  return load().doc.methods.some((m) => m.name === method);
}
