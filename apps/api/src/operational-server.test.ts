import { createServer } from 'node:net';
import { expect, it } from 'vitest';
import { baseApp, serve } from './operational-server.ts';

it('names PORT when its port was taken after the start checked it', async () => {
  const holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  const port = (holder.address() as { port: number }).port;
  try {
    await expect(serve(baseApp(), { port, host: '127.0.0.1' })).rejects.toThrow(
      `PORT=${port} (on HOST=127.0.0.1) is in use by another process: stop it, or set PORT to a free port`,
    );
  } finally {
    await new Promise((resolve) => holder.close(resolve));
  }
});
