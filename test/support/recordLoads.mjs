// Loader hooks (registered by registerLoadRecorder.mjs) that append every module URL loaded to $LOADED_MODULES_FILE.
import { appendFileSync } from 'node:fs';

export async function load(url, context, next) {
  appendFileSync(process.env.LOADED_MODULES_FILE, `${url}\n`);
  return next(url, context);
}
