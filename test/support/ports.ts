/**
 * Ports for child processes that must be told theirs before they listen (redis-server, anvil, the mirror stand-in).
 * A port found free here may be taken by another process before the child binds it, so a start that fails is tried
 * again on another port. Servers in this process listen on port 0 instead.
 */
import { once } from 'node:events';
import net from 'node:net';

/** A loopback port that was free a moment ago. */
export async function freePort(): Promise<number> {
  const server = net.createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

/** `start` on a free port; on failure, on another, up to `attempts` times (the last failure is thrown). */
export async function onFreePort<T>(start: (port: number) => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start(await freePort());
    } catch (err) {
      if (attempt >= attempts) throw err;
    }
  }
}
