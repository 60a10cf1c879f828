import type { ChildProcess } from 'node:child_process';

/** Stops a child the bench started with SIGTERM and resolves once it has exited (at once if it already has). */
export function stopChild(proc: ChildProcess): () => Promise<void> {
  return () =>
    new Promise((done) => {
      if (proc.exitCode !== null) return done();
      proc.once('exit', () => done());
      proc.kill('SIGTERM');
    });
}
