// How Quarry launches Chromium, once (sandbox, switches, who it runs as).
export { sandboxedLaunchOptions } from './sandboxed-launch.ts';
export type { ChromiumRunAs } from './sandboxed-launch.ts';
export { chromiumArgs } from './launch-args.ts';
// The pools of a worker process, and the booking-page searches' browser.
export { closeWithin, createChromiumPool } from './chromium-pool.ts';
export type { ChromiumPool, ChromiumPoolOptions, RecycleEvent } from './chromium-pool.ts';
export { createCheckoutChromium, createProcessChromium } from './process-chromium.ts';
export { createChromiumLauncher } from './chromium-launcher.ts';
// Driving a page: every request vetted, questions asked in the page, actions that type and click.
export { guardRequests } from './guard-requests.ts';
export { askPage, readFieldsOnPage, waitForAnyOnPage, waitForSelectorOnPage } from './page-reads.ts';
export type { FieldRecipe, PageAnswer, PageOrFrame } from './page-reads.ts';
export { checkOnPage, clickOnPage, fillOnPage, frameOnPage } from './page-actions.ts';
export { waitForQuietDom } from './quiet-dom.ts';
// A vendor's account wall, signed in once per account.
export { createSignInMemory, followToForm, showsWall, signInOnce } from './account-wall.ts';
export type { AccountWall, SignInMemory, SignInVerdict, TenantAccount } from './account-wall.ts';
