import { chromium, type Browser } from 'playwright-core';
import { chromiumArgs } from './launch-args.ts';
import { sandboxedLaunchOptions, type ChromiumRunAs } from './sandboxed-launch.ts';

/** A Chromium started on first use only (most processes never search a booking page), shared by its users. */
export function createChromiumLauncher(
  executablePath: string,
  runAs?: ChromiumRunAs,
): { browser: () => Promise<Browser>; close(): Promise<void> } {
  let launched: Promise<Browser> | null = null;
  return {
    browser: () => {
      // Chromium's sandbox on, as an unprivileged user when this process is root (ADR 0056); the
      // process's shutdown closes it (`close`), after the work in flight.
      launched ??= chromium.launch(sandboxedLaunchOptions({ executablePath, args: chromiumArgs, runAs }));
      return launched;
    },
    async close() {
      if (launched) await (await launched.catch(() => null))?.close().catch(() => {});
    },
  };
}
