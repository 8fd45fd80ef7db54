export { sandboxedLaunchOptions } from './sandboxed-launch.ts';
export type { ChromiumRunAs } from './sandboxed-launch.ts';
