/** The key-creation page, with the project name and network filled in when given; every value URL-encoded. */
export function keyLink(appUrl: string, params: { name?: string; network?: string } = {}): string {
  const query = Object.entries(params)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
    .join('&');
  return `${appUrl.replace(/\/+$/, '')}/keys/new${query ? `?${query}` : ''}`;
}
