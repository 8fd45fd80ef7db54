import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createMetricsApp } from '@quarry/api/operational';
import type { Config } from '@quarry/config';
import type { Logger, Metrics } from '@quarry/observability';

/** Starts the `/metrics` listener on `METRICS_PORT` (same address as the API); resolves with the bound port. */
export async function listenForMetrics(config: Pick<Config, 'host' | 'metricsPort'>, metrics: Metrics, logger: Logger): Promise<{ port: number; close: () => Promise<void> }> {
  const server = createMetricsApp({ metrics, logger }).listen(config.metricsPort, config.host);
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
