export { createTestDatabase } from './test-database.ts';
export type { TestDatabase } from './test-database.ts';
export { createTestRedis, testRedisUrl } from './test-redis.ts';
export type { TestRedis } from './test-redis.ts';
export { freePort } from './free-port.ts';
export { waitFor } from './wait-for.ts';
export { fixtureForms } from './fixture-forms.ts';
export type { FixtureFormName } from './fixture-forms.ts';
export { startFixtureWeb } from './fixture-web.ts';
export type { FixtureWeb } from './fixture-web.ts';
export { quarryEnv } from './quarry-env.ts';
export { startSmtpSink } from './smtp-sink.ts';
export type { SmtpSink } from './smtp-sink.ts';
export { openSmtp, sendSmtp } from './smtp-client.ts';
export type { SmtpClient, SmtpReply } from './smtp-client.ts';
export { startPrivatePostgres } from './private-postgres.ts';
export type { PrivatePostgres } from './private-postgres.ts';
export { startPrivateRedis } from './private-redis.ts';
export type { PrivateRedis } from './private-redis.ts';
export { startApplicationSites } from './application-sites.ts';
export type { ApplicationSites, ReceivedApplication } from './application-sites.ts';
export { holdRowLocks, lockWaiters } from './row-locks.ts';
export { startPrivateDovecot } from './private-dovecot.ts';
export type { DovecotUser, PrivateDovecot } from './private-dovecot.ts';
export { startOpenTravelHotel } from './opentravel-hotel.ts';
export type { OpenTravelHotel, OrderBehaviour, ReceivedOrder, Reservation, TestHotel } from './opentravel-hotel.ts';
export { startHostedAtsDouble } from './hosted-ats/hosted-ats.double.ts';
export type { HostedAtsDouble, HostedPart, HostedRequest, HostedVariant, HostedVendor } from './hosted-ats/hosted-ats.double.ts';
export { greenhouseHostedVendor } from './hosted-ats/greenhouse.double.ts';
export { leverHostedVendor, leverPostingId } from './hosted-ats/lever.double.ts';
export { ashbyHostedVendor, ashbyPostingId, ashbySavedValues } from './hosted-ats/ashby.double.ts';
export { workableHostedVendor, workableReceived, workableShortcode } from './hosted-ats/workable.double.ts';
export { jazzhrHostedVendor, jazzhrJobPath } from './hosted-ats/jazzhr.double.ts';
export { teamtailorHostedVendor, teamtailorJobPath, teamtailorUploads } from './hosted-ats/teamtailor.double.ts';
export {
  workdayHostedVendor,
  workdayJobPath,
  workdayQuestions,
  workdaySharedJobPath,
  workdaySaved,
  workdaySuccessPath,
  workdayWrongPasswordText,
} from './hosted-ats/workday.double.ts';
export type { WorkdayAddress, WorkdayResume, WorkdayVendor } from './hosted-ats/workday.double.ts';
export type { WorkdayApplication, WorkdayFile } from './hosted-ats/workday-drafts.ts';
export { manatalHostedVendor, manatalJobPath, manatalReceived } from './hosted-ats/manatal.double.ts';
export { breezyHostedVendor, breezyPosting } from './hosted-ats/breezy.double.ts';
export { recruiteeHostedVendor, recruiteeOfferSlug } from './hosted-ats/recruitee.double.ts';
export { smartRecruitersHostedVendor, smartRecruitersReceived } from './hosted-ats/smartrecruiters.double.ts';
export { bambooJobId, bamboohrHostedVendor, bamboohrReceived } from './hosted-ats/bamboohr.double.ts';
export * from './vendor-apis/index.ts';
export { chromiumProcessesUnder } from './chromium-processes.ts';
export type { ChromiumProcess } from './chromium-processes.ts';
export { cancelAndRollBack, insertBookingRow } from './bookings/booking-rows.ts';
export { multipartSample } from './mail/mime-samples.ts';
