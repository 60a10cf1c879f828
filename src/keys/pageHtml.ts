import type { KeyNetwork } from './store.js';

/** HTML of the key page. Every interpolated value goes through `esc`. */
export function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#1b1b1b}
label{display:block;margin:1rem 0 .25rem;font-weight:600}input,select{font:inherit;padding:.4rem;width:100%;box-sizing:border-box}
button{font:inherit;margin-top:1.25rem;padding:.5rem 1.25rem;cursor:pointer}pre{background:#f3f3f3;padding:1rem;overflow-x:auto}
.error{color:#a40000}.note{color:#555;font-size:.9rem}`;

export function layout(title: string, body: string, nonce?: string, script?: string): string {
  const tail = script && nonce ? `<script nonce="${esc(nonce)}">${script}</script>` : '';
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(title)}</title><style>${STYLE}</style></head><body>${body}${tail}</body></html>`;
}

export function formPage(v: { name: string; network: KeyNetwork; csrf: string; freePlan: string }): string {
  const option = (n: KeyNetwork) => `<option value="${n}"${n === v.network ? ' selected' : ''}>${n}</option>`;
  return layout(
    'Create an API key',
    `<h1>Create an API key</h1>
<p>One key works on every chain, network and API of this gateway. It starts on the free plan.</p>
<p class="note">${esc(v.freePlan)}</p>
<form method="post" action="/keys/new">
<input type="hidden" name="csrf" value="${esc(v.csrf)}">
<label for="name">Project name</label><input id="name" name="name" required maxlength="100" value="${esc(v.name)}">
<label for="network">Network</label><select id="network" name="network">${option('mainnet')}${option('testnet')}</select>
<label for="email">Email (optional)</label><input id="email" name="email" type="email" maxlength="254">
<button type="submit">Create key</button>
</form>`,
  );
}

/** The snippet's lines are what a user pastes into `.env`; the copy button appears only where JavaScript runs. */
export function createdPage(v: { name: string; keyId: string; key: string; mirrorUrl: string; rpcUrl: string; freePlan: string; nonce: string }): string {
  const snippet = `HEDERA_MIRROR_URL=${v.mirrorUrl}\nHGRAPH_API_KEY=${v.key}\nHEDERA_RPC_URL=${v.rpcUrl}`;
  return layout(
    'Your new API key',
    `<h1>Your new API key</h1>
<p>Project <strong>${esc(v.name)}</strong>, key id <code>${esc(v.keyId)}</code>.</p>
<p><strong>Copy it now: this is the only time the key is shown.</strong> We keep only a hash of it.</p>
<label for="snippet">Environment</label>
<pre id="snippet">${esc(snippet)}</pre>
<button type="button" id="copy" hidden>Copy</button> <span id="copied" class="note" role="status"></span>
<p class="note">HEDERA_MIRROR_URL is the mirror-node REST base and HEDERA_RPC_URL the JSON-RPC endpoint of the network you chose.
Send the key as the X-API-KEY header, as Authorization: Bearer &lt;key&gt;, or in the path as /v1/&lt;key&gt;/&lt;api path&gt;.</p>
<p class="note">${esc(v.freePlan)}</p>`,
    v.nonce,
    `const b=document.getElementById('copy');b.hidden=false;b.addEventListener('click',async()=>{
try{await navigator.clipboard.writeText(document.getElementById('snippet').textContent);document.getElementById('copied').textContent='Copied.';}
catch{document.getElementById('copied').textContent='Select the text and copy it.';}});`,
  );
}

export function errorPage(status: number, message: string): string {
  return layout(`Error ${status}`, `<h1>Error ${status}</h1><p class="error">${esc(message)}</p><p><a href="/keys/new">Back to the key page</a></p>`);
}
