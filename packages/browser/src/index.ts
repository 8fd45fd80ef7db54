// How Quarry launches Chromium (sandbox, switches, who it runs as) is inside the pools and the
// launcher; callers get browsers, never launch options.
export type { ChromiumRunAs } from './sandboxed-launch.ts';
// The pools of a worker process, and the booking-page searches' browser.
export { closeWithin, createChromiumPool } from './chromium-pool.ts';
export type { ChromiumPool } from './chromium-pool.ts';
export { createCheckoutChromium, createProcessChromium } from './process-chromium.ts';
export { createChromiumLauncher } from './chromium-launcher.ts';
// Driving a page: every request vetted, questions asked in the page, actions that type and click.
export { guardRequests } from './guard-requests.ts';
export { readFieldsOnPage, waitForAnyOnPage, waitForSelectorOnPage } from './page-reads.ts';
export type { FieldRecipe } from './page-reads.ts';
export { checkOnPage, clickOnPage, fillOnPage, frameOnPage } from './page-actions.ts';
// A vendor's account wall, signed in once per account.
export { createSignInMemory, followToForm, showsWall, signInOnce } from './account-wall.ts';
export type { AccountWall, SignInMemory, TenantAccount } from './account-wall.ts';
