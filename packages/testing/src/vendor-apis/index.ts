// The vendors' API doubles on loopback, for the API transports' tests and the apply-accuracy bench.
export type { DoubleReply, ReceivedPart, ReceivedRequest, VendorApiDouble } from './vendor-api.double.ts';
export { ashbyDoublePostings, startAshbyApiDouble } from './ashby.double.ts';
export { bambooDoubleJobs, startBambooApiDouble } from './bamboohr.double.ts';
export { breezyCandidateFields, breezyDoublePositions, startBreezyApiDouble } from './breezy.double.ts';
export { greenhouseDoubleJob, greenhouseDoublePosting, greenhouseDoublePostings, startGreenhouseApiDouble } from './greenhouse.double.ts';
export type { GreenhouseApiDouble, GreenhouseApplication, GreenhouseAttachment } from './greenhouse.double.ts';
export { jazzApplicantParameters, jazzDoubleJobs, startJazzApiDouble } from './jazzhr.double.ts';
export { leverDoublePosting, leverDoublePostings, startLeverApiDouble } from './lever.double.ts';
export { smartRecruitersDoublePostings, startSmartRecruitersApiDouble } from './smartrecruiters.double.ts';
export { recruiteeDoubleOffers, startRecruiteeApiDouble } from './recruitee.double.ts';
export { startWorkableApiDouble, workableDoubleJobs } from './workable.double.ts';
export {
  startTeamtailorApiDouble,
  teamtailorAnswerAttribute,
  teamtailorCandidateAttributes,
  teamtailorDoubleJobs,
} from './teamtailor.double.ts';
