/** Consensus nodes never hand the mirror node a block they rejected: there are none, as the official relay answers. */
export async function debug_getBadBlocks(): Promise<[]> {
  return [];
}
