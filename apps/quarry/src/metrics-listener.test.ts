import { createServer } from 'node:net';
import { createLogger, createMetrics } from '@quarry/observability';
import { expect, it } from 'vitest';
import { listenForMetrics } from './metrics-listener.ts';

it('names METRICS_PORT when its port was taken after the start checked it', async () => {
  const holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  const port = (holder.address() as { port: number }).port;
  try {
    await expect(
      listenForMetrics({ host: '127.0.0.1', metricsPort: port }, createMetrics(), createLogger({ level: 'silent' })),
    ).rejects.toThrow(`METRICS_PORT=${port} (on HOST=127.0.0.1) is in use by another process: stop it, or set METRICS_PORT to a free port`);
  } finally {
    await new Promise((resolve) => holder.close(resolve));
  }
});
