import assert from 'node:assert/strict';
import { COUNT_PATH, LATEST_BLOCK, routesOn, startMirrorStub } from '../../bench/mirrorStub.js';

describe('bench mirror stub warm-up', () => {
  it('answers every route it warms up on, so the warm-up compiles what the relays ask for', async () => {
    const stub = await startMirrorStub();
    try {
      for (const [method, path] of routesOn(LATEST_BLOCK - 20_000)) {
        const res = await fetch(`${stub.url}${path}`, { method });
        assert.equal(res.status, 200, `${method} ${path}`);
        await res.arrayBuffer();
      }
    } finally {
      await stub.close();
    }
  });

  it('starts counting at zero after warming up, so the relay benchmark counts only the requests of the relays', async () => {
    const stub = await startMirrorStub(0, 300);
    try {
      const count = async () => Number(await (await fetch(`${stub.url}${COUNT_PATH}`)).text());
      assert.equal(await count(), 0);
      await (await fetch(`${stub.url}/api/v1/blocks/${LATEST_BLOCK - 1}`)).arrayBuffer();
      assert.equal(await count(), 1);
    } finally {
      await stub.close();
    }
  });
});
