/**
 * The mirror-node stand-in's own errors, in the real mirror node's words and statuses. They are deliberately not the
 * gateway's catalogue: the relay reads these answers, and a shared definition would hide a bug on both sides at once.
 */
export class MirrorError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** `detail` and `data` of the `_status.messages` entry (the web3 service's revert answer). */
    readonly extra: { detail?: string; data?: string } = {},
  ) {
    super(message);
    this.name = 'MirrorError';
  }
}

export const invalidParameter = (name: string) => new MirrorError(400, `Invalid parameter: ${name}`);
export const unknownParameter = (name: string) => new MirrorError(400, `Unknown query parameter: ${name}`);
/** A 400 whose message the real node words itself (`Only one transaction.hash filter is allowed`). */
export const badRequest = (message: string) => new MirrorError(400, message);
export const notFound = () => new MirrorError(404, 'Not found');
export const unsupportedMedia = () => new MirrorError(415, 'Unsupported content type');
export const bodyTooLarge = () => new MirrorError(413, 'Request body too large');
export const internalError = () => new MirrorError(500, 'Internal error');
export const contractRevert = (extra: { detail: string; data?: string }) => new MirrorError(400, 'CONTRACT_REVERT_EXECUTED', extra);
