import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createMetricsApp } from '@quarry/api/operational';
import type { Config } from '@quarry/config';
import type { Logger, Metrics } from '@quarry/observability';
import { describeListenFailure } from './port-check.ts';

/** Starts the `/metrics` listener on `METRICS_PORT` (same address as the API); resolves with the bound port. */
export async function listenForMetrics(
  config: Pick<Config, 'host' | 'metricsPort'>,
  metrics: Metrics,
  logger: Logger,
): Promise<{ port: number; close: () => Promise<void> }> {
  const server = createMetricsApp({ metrics, logger }).listen(config.metricsPort, config.host);
  try {
    await once(server, 'listening');
  } catch (error) {
    // Taken since the start's own check (port-check.ts): still named by its setting.
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new Error(
      describeListenFailure({ setting: 'METRICS_PORT', hostSetting: 'HOST', host: config.host, port: config.metricsPort }, code),
      { cause: error },
    );
  }
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
