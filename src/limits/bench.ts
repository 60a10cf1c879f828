import { performance } from 'node:perf_hooks';
import { configSchema } from '../config/schema.js';
import type { VerifiedKey } from '../keys/types.js';
import { createLimiter } from './index.js';
import type { LimitDecision, Limiter, UsageStore } from './types.js';

/** For `npm run bench`: the limiter set-ups to compare; pass one as startGateway's `opts.limiter`. */
export type BenchBackend = 'off' | 'memory' | 'redis';

const discardUsage: UsageStore = { addUsage: async () => {}, usage: async () => 0 };

const ADMIT: LimitDecision = { allowed: true, limit: 0, remaining: 0, resetSeconds: 0 };

/** Limits off: admits everything at no cost, the baseline the other backends are a ratio against. */
const offLimiter: Limiter = {
  backend: 'memory',
  charge: async () => ADMIT,
  chargeWrite: async () => ADMIT,
  ping: async () => true,
  close: async () => {},
};

export async function benchLimiter(backend: BenchBackend, redisUrl = 'redis://127.0.0.1:6379'): Promise<Limiter> {
  if (backend === 'off') return offLimiter;
  const limits = configSchema.shape.limits.parse({ redisUrl: backend === 'redis' ? redisUrl : undefined });
  return createLimiter({ limits, usage: discardUsage });
}

/** A key whose budget the bench never exhausts, so every charge takes the admitting path. */
export function benchKey(id = 'bench'): VerifiedKey {
  const plan = { requestsPerSecond: 1e9, monthlyQuota: Number.MAX_SAFE_INTEGER, apis: ['rpc' as const], maxSubscriptions: 1 };
  return { id, accountId: 'bench', name: 'bench', planName: 'bench', plan, network: 'mainnet', relayBeta: true, heavyWrites: false };
}

/** Times `calls` charges, `concurrency` at a time: the limiter's own cost per decision. */
export async function measureCharges(limiter: Limiter, calls = 50_000, concurrency = 32): Promise<{ callsPerSecond: number; microsPerCall: number }> {
  const key = benchKey(`bench_${process.pid}_${Date.now()}`);
  let left = calls;
  const worker = async () => {
    while (left-- > 0) await limiter.charge(key, 1);
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const ms = performance.now() - started;
  return { callsPerSecond: Math.round((calls / ms) * 1_000), microsPerCall: Math.round((ms * 1_000 * 100) / calls) / 100 };
}
