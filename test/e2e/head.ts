/**
 * Waits until the chain head reported by eth_blockNumber reaches `block`. The ledger relay can hand out a receipt in a
 * block newer than its cached head, and eth_getLogs clamps ranges to that head (see the e2e report), so tests that
 * read logs right after a receipt wait for the head first, as a tool waiting for one confirmation would.
 */
export async function untilHead(blockNumber: () => Promise<number | bigint>, block: number | bigint): Promise<void> {
  while (BigInt(await blockNumber()) < BigInt(block)) await new Promise((r) => setTimeout(r, 50));
}
