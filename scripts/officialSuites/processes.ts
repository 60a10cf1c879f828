/** Child processes of the runner: started in their own process group, so stopping one stops what it started. */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';

export interface Started {
  child: ChildProcess;
  /** Resolves with the first output that matches, rejects if the process exits first or the time runs out. */
  waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray>;
  stop(): Promise<void>;
}

export function start(command: string, args: string[], options: SpawnOptions & { logFile: string }): Started {
  const child = spawn(command, args, { ...options, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const log = createWriteStream(options.logFile);
  let output = '';
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    log.write(chunk);
    output = (output + chunk.toString('utf8')).slice(-200_000);
    for (const l of listeners) l();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    waitFor(pattern, timeoutMs) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = pattern.exec(output.replace(/\x1b\[[0-9;]*m/g, ''));
          if (m) done(() => resolve(m));
        };
        const timer = setTimeout(() => done(() => reject(new Error(`${command} ${args.join(' ')}: no ${pattern} within ${timeoutMs} ms (log: ${options.logFile})`))), timeoutMs);
        const done = (then: () => void) => {
          clearTimeout(timer);
          listeners.delete(check);
          then();
        };
        listeners.add(check);
        void exited.then((code) => done(() => reject(new Error(`${command} ${args.join(' ')} exited with ${code} (log: ${options.logFile})`))));
        check();
      });
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        try {
          process.kill(-child.pid!, 'SIGTERM');
        } catch {
          // already gone
        }
        const timer = setTimeout(() => {
          try {
            process.kill(-child.pid!, 'SIGKILL');
          } catch {
            // already gone
          }
        }, 10_000);
        await exited;
        clearTimeout(timer);
      }
      log.end();
    },
  };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
