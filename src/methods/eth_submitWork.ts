/** Blocks come from consensus nodes, not mining: no proof of work is ever accepted, as the official relay answers. */
export async function eth_submitWork(): Promise<false> {
  return false;
}
