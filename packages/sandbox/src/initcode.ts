/**
 * Contract-creation call data of an exact size, for exercising large deployments (jumbo transactions against the
 * file service) without a compiler: init code that returns a 10-byte runtime, then filler bytes after it, as a
 * contract's constructor arguments or metadata follow its code.
 */

/** Runtime: MSTORE 42 at 0, RETURN 32 bytes. Every call answers the word 42. */
export const ANSWER_RUNTIME = '602a60005260206000f3';
/** Init code: CODECOPY the runtime (10 bytes at offset 12) to memory 0, RETURN it. */
const INIT = '600a600c600039600a6000f3';

/** `0x` hex of `bytes` bytes (at least 22) that deploy ANSWER_RUNTIME; the filler is non-zero, the costlier kind. */
export function deploymentOfSize(bytes: number): string {
  const head = INIT + ANSWER_RUNTIME;
  const filler = bytes - head.length / 2;
  if (filler < 0) throw new Error(`a deployment is at least ${head.length / 2} bytes`);
  return `0x${head}${'ab'.repeat(filler)}`;
}
