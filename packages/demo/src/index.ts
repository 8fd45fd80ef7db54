export { demoHotels } from './demo-hotels.ts';
export { startDemoSites } from './demo-sites.ts';
export type { DemoSites } from './demo-sites.ts';
export type { ReceivedMail } from './demo-mailbox.ts';
export type { ReceivedPush } from './demo-push-receiver.ts';
export { bookingPages } from './demo-booking-page.ts';
export { startDemoCheckoutSites } from './demo-checkout.ts';
export type { DemoCheckoutSites, DemoOrder, EngineAvailability } from './demo-checkout.ts';
