import { closeSync, lstatSync, mkdirSync, openSync, rmSync } from 'node:fs';
import net from 'node:net';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { GatewayError } from '../errors.js';

const LOCK_FILE = 'keys.lock';
// sun_path holds 108 bytes with its terminating NUL; Node silently truncates a longer path and binds somewhere else.
const MAX_SOCKET_PATH = 107;

/**
 * The embedded store is one process's journal: a second process appending to the same file would corrupt it. The
 * holder listens on a Unix socket in the data directory, and a second opener (say, the keys CLI while the gateway
 * runs) that can connect to it fails with a clear message. The kernel closes the socket when its holder dies, however
 * it dies, so a lock left by `kill -9` is refused on connect and taken over. A pid file cannot do this: in a container
 * the gateway is pid 1 on every start, and two containers sharing one volume are both pid 1.
 */
export async function lockDataDir(dataDir: string): Promise<() => void> {
  let dir: number;
  try {
    mkdirSync(dataDir, { recursive: true });
    dir = openSync(dataDir, 'r');
  } catch (err) {
    throw unwritable(dataDir, err);
  }
  const path = socketPath(dataDir, dir);
  try {
    // listen() creating the socket is the atomic step: of two starters, one gets EADDRINUSE and connects instead. A
    // third round means the lock changed hands twice meanwhile; that holder is alive.
    for (let round = 0; round < 3; round++) {
      const server = await listen(path).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'EADDRINUSE') throw unwritable(dataDir, err);
        return undefined;
      });
      if (server) {
        return () => {
          server.close();
          closeSync(dir);
        };
      }
      const stale = inode(path);
      if (await answers(path).catch((err) => Promise.reject(unwritable(dataDir, err)))) break;
      // The holder died. Remove its socket only if it is still the one that refused us: another starter may have
      // replaced it with a live one since.
      if (stale !== undefined && inode(path) === stale) rmSync(path, { force: true });
    }
  } catch (err) {
    closeSync(dir);
    throw err;
  }
  closeSync(dir);
  throw new GatewayError('KEY_STORE_LOCKED', `another process holds ${dataDir}; stop it first, or share a Postgres store between processes with DATABASE_URL`);
}

/** True while a process holds the data directory's lock: the keys CLI trusts a running gateway's admin file only then. */
export async function dataDirHeld(dataDir: string): Promise<boolean> {
  let dir: number;
  try {
    dir = openSync(dataDir, 'r');
  } catch {
    return false;
  }
  try {
    return await answers(socketPath(dataDir, dir));
  } finally {
    closeSync(dir);
  }
}

/** The lock socket's path, reached through the open directory when the plain path is too long for a socket address. */
function socketPath(dataDir: string, dir: number): string {
  const path = join(dataDir, LOCK_FILE);
  return Buffer.byteLength(path) <= MAX_SOCKET_PATH ? path : `/proc/self/fd/${dir}/${LOCK_FILE}`;
}

function listen(path: string): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    // A second opener's probe only needs its connect to succeed.
    const server = net.createServer((socket) => socket.destroy());
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      // The lock must not keep a process alive that has nothing else to do.
      server.unref();
      resolve(server);
    });
  });
}

/** True when something listens on the socket; refused or absent means no live holder. */
function answers(path: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const probe = net.connect(path, () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNREFUSED' || err.code === 'ENOENT') resolve(false);
      else reject(err);
    });
  });
}

function inode(path: string): number | undefined {
  try {
    return lstatSync(path).ino;
  } catch {
    return undefined;
  }
}

/** What an operator needs to fix a data directory this process cannot write: the path and who it runs as. */
function unwritable(dataDir: string, err: unknown): Error {
  const code = (err as NodeJS.ErrnoException).code;
  if (code !== 'EACCES' && code !== 'EPERM' && code !== 'EROFS') return err as Error;
  return new GatewayError('DATA_DIR_UNWRITABLE', `${dataDir} (${code}) for ${currentUser()}; make it writable by that user, or set DATA_DIR to a directory that is`);
}

function currentUser(): string {
  const uid = process.getuid?.();
  try {
    return `user ${userInfo().username} (uid ${uid})`;
  } catch {
    // A container may run under a uid with no passwd entry.
    return `uid ${uid}`;
  }
}
