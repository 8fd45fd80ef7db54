import type { Redis } from 'ioredis';

/**
 * Runs `work` each time the connection is back after a loss (ioredis' `ready` after a
 * reconnection), then once more `followUpMs` later. A Redis restarted empty lost every job, and a
 * reconciler that waits for its next round leaves the work those jobs carried waiting for it: this
 * puts the jobs back as soon as Redis can take them. The follow-up (when asked for) catches work whose job was lost
 * but which a reconciler must still leave alone at the first pass (too recently touched to tell
 * from work whose enqueue is on its way). Passes never overlap; a failed pass is the caller's to
 * report. Returns the function that stops it.
 */
export function whenRedisIsBack(
  connection: Pick<Redis, 'on' | 'off' | 'status'>,
  work: () => Promise<void>,
  options: { followUpMs?: number; onError: (error: unknown) => void },
): () => void {
  let connected = connection.status === 'ready';
  let stopped = false;
  let running: Promise<void> | null = null;
  const timers = new Set<NodeJS.Timeout>();
  const pass = () => {
    if (stopped || running) return;
    running = work()
      .catch(options.onError)
      .finally(() => (running = null));
  };
  const onReady = () => {
    // The first `ready` is the process starting, not Redis coming back.
    if (connected) {
      pass();
      if (options.followUpMs === undefined) return;
      const timer = setTimeout(() => {
        timers.delete(timer);
        pass();
      }, options.followUpMs);
      timers.add(timer);
    }
    connected = true;
  };
  connection.on('ready', onReady);
  return () => {
    stopped = true;
    connection.off('ready', onReady);
    for (const timer of timers) clearTimeout(timer);
  };
}
