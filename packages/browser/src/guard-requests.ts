import type { BrowserContext } from 'playwright-core';

/** Every request of the context's pages is vetted by `checkUrl` (the SSRF policy), once per host. */
export async function guardRequests(context: BrowserContext, checkUrl: (url: string) => Promise<void>): Promise<void> {
  const vetted = new Map<string, Promise<boolean>>();
  await context.route('**/*', async (route) => {
    const url = new URL(route.request().url());
    if (url.protocol === 'data:' || url.protocol === 'blob:') return route.continue();
    let verdict = vetted.get(url.host);
    if (!verdict) {
      verdict = checkUrl(url.href).then(
        () => true,
        () => false,
      );
      vetted.set(url.host, verdict);
    }
    return (await verdict) ? route.continue() : route.abort('blockedbyclient');
  });
}
