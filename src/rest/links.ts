/**
 * Keeps `links.next` usable through the gateway. Relative links (`/api/v1/...?...`, what the mirror node sends) are
 * left alone: clients join them to the base URL they already use. Absolute links that point at the upstream would
 * send the client past the gateway, so they are rewritten onto the gateway's public base.
 */
const NEXT_LINK = /("next"\s*:\s*")([^"]*)(")/g;

/**
 * Rewrites on the raw text rather than parse-and-stringify, so every other byte of the body (large numbers included)
 * reaches the client exactly as the upstream sent it.
 */
export function rewriteNextLinks(body: string, upstreamBase: string, publicBase: string): string {
  const upstream = upstreamBase.replace(/\/+$/, '');
  return body.replace(NEXT_LINK, (whole, open: string, link: string, close: string) => {
    if (!link.startsWith(`${upstream}/`)) return whole;
    return `${open}${publicBase}${link.slice(upstream.length)}${close}`;
  });
}
