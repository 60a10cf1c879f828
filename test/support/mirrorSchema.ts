/**
 * Validates mirror-node REST responses against the real mirror node's current OpenAPI document
 * (`test/reference/mirror-node/openapi-v0.160.yml`), so stand-ins are checked against the wire format real clients
 * expect. Where the document contradicts the node's own REST spec tests, the node wins (see ERRATA).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import formatsModule, { type FormatsPlugin } from 'ajv-formats';
import yaml from 'js-yaml';

const SPEC_PATH = fileURLToPath(new URL('../reference/mirror-node/openapi-v0.160.yml', import.meta.url));
const SPEC_ID = 'mirror-openapi.yml';

interface Operation {
  responses?: Record<string, { $ref?: string; content?: Record<string, { schema?: unknown }> }>;
}
interface Spec {
  paths: Record<string, Record<string, Operation>>;
  components: Record<string, Record<string, unknown>>;
}

/**
 * Corrections where the document and the real node disagree, each with the evidence. The node's answers are what
 * clients receive.
 */
const ERRATA: Array<(spec: Spec) => void> = [
  // ContractResultDetails narrows failed_initcode to a plain string, but the node answers null when the transaction
  // succeeded (contractResultDetailsViewModel.js; spec test contracts/results/no-params.json lists failed_initcode: null).
  (spec) => {
    const details = spec.components.schemas.ContractResultDetails as { allOf: Array<{ properties?: Record<string, { type?: unknown }> }> };
    const own = details.allOf.find((part) => part.properties?.failed_initcode);
    if (own?.properties) own.properties.failed_initcode.type = ['string', 'null'];
  },
  // access_list is an array in the document, but null for a result without an Ethereum transaction (a consensus-node
  // ContractCall or ContractCreate): contractResultDetailsViewModel.js sets it only from the Ethereum transaction, and
  // spec test contracts/results/{id}/by-hash-no-eth-tx.json lists access_list: null.
  (spec) => {
    const schemas = spec.components.schemas as Record<string, { properties?: Record<string, { type?: unknown }>; allOf?: Array<{ properties?: Record<string, { type?: unknown }> }> }>;
    for (const schema of Object.values(schemas)) {
      for (const part of [schema, ...(schema.allOf ?? [])]) {
        if (part.properties?.access_list?.type === 'array') part.properties.access_list.type = ['array', 'null'];
      }
    }
  },
];

let loaded: { spec: Spec; ajv: Ajv; templates: string[][] } | undefined;
const compiled = new Map<string, ValidateFunction>();

function load() {
  if (loaded) return loaded;
  const spec = yaml.load(readFileSync(SPEC_PATH, 'utf8')) as Spec;
  for (const correct of ERRATA) correct(spec);
  // strict: false because OpenAPI schemas carry `example` and other annotations Ajv does not know.
  const ajv = new Ajv({ strict: false, allErrors: true });
  // ajv-formats is CommonJS; under ESM its plugin sits on `.default`.
  const addFormats = ((formatsModule as unknown as { default?: FormatsPlugin }).default ?? formatsModule) as FormatsPlugin;
  addFormats(ajv);
  // OpenAPI 3.0 formats that carry no constraint Ajv can check on a JSON value.
  for (const f of ['int32', 'int64', 'float', 'double', 'binary']) ajv.addFormat(f, true);
  ajv.addSchema({ $id: SPEC_ID, components: spec.components });
  const templates = Object.keys(spec.paths).map((p) => p.split('/'));
  loaded = { spec, ajv, templates };
  return loaded;
}

/**
 * The OpenAPI path template for a concrete path. Where several match, a literal segment beats a parameter at the
 * first place they differ, as routers do (`/contracts/results/logs` before `/contracts/results/{transactionIdOrHash}`).
 */
function matchTemplate(templates: string[][], path: string): string | undefined {
  const parts = path.split('/');
  let best: string[] | undefined;
  for (const t of templates) {
    if (t.length !== parts.length) continue;
    if (!t.every((seg, i) => seg === parts[i] || (seg.startsWith('{') && seg.endsWith('}')))) continue;
    if (!best || moreLiteral(t, best)) best = t;
  }
  return best?.join('/');
}

function moreLiteral(a: string[], b: string[]): boolean {
  for (let i = 0; i < a.length; i++) {
    const aParam = a[i].startsWith('{');
    const bParam = b[i].startsWith('{');
    if (aParam !== bParam) return !aParam;
  }
  return false;
}

function validatorFor(template: string, method: string, status: number): ValidateFunction | string {
  const key = `${method} ${template} ${status}`;
  const cached = compiled.get(key);
  if (cached) return cached;
  const { spec, ajv } = load();
  const op = spec.paths[template][method];
  if (!op) return `${method.toUpperCase()} ${template} is not in the mirror-node OpenAPI document`;
  let response = op.responses?.[String(status)] ?? op.responses?.default;
  if (!response) return `${method.toUpperCase()} ${template} documents no ${status} response`;
  if (response.$ref) {
    const name = response.$ref.replace('#/components/responses/', '');
    response = spec.components.responses[name] as typeof response;
  }
  const schema = response.content?.['application/json']?.schema;
  if (!schema) return `${method.toUpperCase()} ${template} ${status} has no application/json schema`;
  // Inline schemas refer to components with document-relative refs; re-root them on the registered document.
  const rooted = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', `"${SPEC_ID}#/components/`));
  const validate = ajv.compile(rooted);
  compiled.set(key, validate);
  return validate;
}

/**
 * Checks one response against the mirror-node OpenAPI document. `path` is the request path, with or without the
 * `/api/v1` prefix and query string (`/api/v1/blocks/12?x=1`), or a template (`/api/v1/blocks/{hashOrNumber}`).
 * Returns readable error strings; empty when the body is valid.
 */
export function validateMirrorResponse(path: string, method: string, status: number, body: unknown): string[] {
  const { templates } = load();
  let bare = path.split('?')[0];
  if (!bare.startsWith('/api/v1/')) bare = `/api/v1${bare.startsWith('/') ? '' : '/'}${bare}`;
  const template = matchTemplate(templates, bare);
  if (!template) return [`${bare} matches no path in the mirror-node OpenAPI document`];
  const validate = validatorFor(template, method.toLowerCase(), status);
  if (typeof validate === 'string') return [validate];
  if (validate(body)) return [];
  return (validate.errors ?? []).map(
    (e) => `${method.toUpperCase()} ${template} ${status}: ${e.instancePath || '(root)'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`,
  );
}
