import { fileURLToPath } from 'node:url';
import type { LaunchOptions } from 'playwright-core';

/** The unprivileged user a Chromium runs as when Quarry itself runs as root (`CHROMIUM_RUN_AS`). */
export type ChromiumRunAs = { uid: number; gid: number };

/** Debian's `nobody:nogroup`, owning no file: the user when none is configured. */
const nobody: ChromiumRunAs = { uid: 65534, gid: 65534 };

const asUserScript = fileURLToPath(new URL('../bin/chromium-as-user.sh', import.meta.url));

/**
 * Playwright's launch options for every Chromium Quarry starts, with Chromium's sandbox on
 * (Playwright's default is `--no-sandbox`): each renderer in its own user and PID namespaces under
 * seccomp-bpf. Chromium refuses that sandbox to root, so a process running as root starts it as
 * `runAs` (no groups, no capabilities) through `bin/chromium-as-user.sh` (ADR 0056). Where the
 * sandbox cannot start (no unprivileged user namespaces), the launch fails: never a browser without it.
 */
export function sandboxedLaunchOptions(settings: {
  executablePath: string;
  args: readonly string[];
  runAs?: ChromiumRunAs | undefined;
  uid?: number;
}): LaunchOptions {
  // The process's shutdown closes the browser, after the work in flight: not Playwright at the first signal.
  const common = {
    chromiumSandbox: true,
    args: [...settings.args],
    handleSIGTERM: false,
    handleSIGINT: false,
    handleSIGHUP: false,
  } satisfies LaunchOptions;
  const uid = settings.uid ?? process.getuid?.();
  if (uid !== 0) return { ...common, executablePath: settings.executablePath };
  const runAs = settings.runAs ?? nobody;
  return {
    ...common,
    executablePath: asUserScript,
    env: {
      ...process.env,
      QUARRY_CHROMIUM_PATH: settings.executablePath,
      QUARRY_CHROMIUM_UID: String(runAs.uid),
      QUARRY_CHROMIUM_GID: String(runAs.gid),
    },
  };
}
