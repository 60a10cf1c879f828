// `node --import` this to record every module the process loads (see recordLoads.mjs).
import { register } from 'node:module';

register('./recordLoads.mjs', import.meta.url);
