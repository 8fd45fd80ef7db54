import { readFileSync } from 'node:fs';
import { minerPageScript } from '@quarry/miner';
import type { Frame, Locator } from 'playwright-core';

/**
 * The init script of an application's browser context: the miner's (the snapshot that finds
 * questions by their ids) and the applier's reads (page-scripts/applier-page.js).
 */
export const applierPageScript = `${minerPageScript}\n${readFileSync(new URL('./page-scripts/applier-page.js', import.meta.url), 'utf8')}`;
const notInstalled = '__quarryApplier missing';

/** Calls `window.__quarryApplier.<name>(argument)` in a frame; a document the init script missed gets it first. */
export async function callApplier<T>(frame: Frame, name: string, argument?: unknown): Promise<T> {
  const expression = `window.__quarryApplier ? JSON.stringify(window.__quarryApplier.${name}(${JSON.stringify(argument ?? null)}) ?? null) : ${JSON.stringify(notInstalled)}`;
  let result = await frame.evaluate(expression);
  if (result === notInstalled) {
    await frame.evaluate(applierPageScript);
    result = await frame.evaluate(expression);
  }
  return JSON.parse(String(result)) as T;
}

/** Calls `window.__quarryApplier.<name>(element)` on the element a locator finds. */
export async function callApplierOn<T>(locator: Locator, name: string, timeout: number): Promise<T> {
  return locator.evaluate(
    (element, call) =>
      (globalThis as unknown as Record<string, Record<string, (node: unknown) => unknown>>)['__quarryApplier']?.[call]?.(element) as T,
    name,
    { timeout },
  );
}
