// The vendors' loopback doubles, for tests and benches outside this package (`@quarry/ats-apply/doubles`).
export { ashbyDoublePostings, startAshbyApiDouble } from './ashby.double.ts';
export { bambooDoubleJobs, startBambooApiDouble } from './bamboohr.double.ts';
export { breezyDoublePositions, startBreezyApiDouble } from './breezy.double.ts';
export { jazzDoubleJobs, startJazzApiDouble } from './jazzhr.double.ts';
export { smartRecruitersDoublePostings, startSmartRecruitersApiDouble } from './smartrecruiters.double.ts';
export type { DoubleReply, ReceivedPart, ReceivedRequest, VendorApiDouble } from './vendor-api.double.ts';
export { startWorkableApiDouble, workableDoubleJobs } from './workable.double.ts';
