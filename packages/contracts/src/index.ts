export { AppError, authenticationChallenges, errorCatalog, renderError, validationError } from './errors.ts';
export type { ErrorCode, ErrorDetails, ErrorHeaders, ErrorSurface, QuestionsErrorBody, StandardErrorBody } from './errors.ts';
export { QuestionsErrorBodySchema, StandardErrorBodySchema } from './error-bodies.ts';
export { Scope, scopes } from './scopes.ts';
export { describeIssues } from './zod-messages.ts';
export { findNul, hasNul, nulMessage } from './nul-bytes.ts';
export { ClientId, ClientIdParams, ClientSummaries, ClientSummary, CreateClientInput, CreatedClient, FrameOriginsView, SetFrameOriginsBody, WhoAmI } from './clients.ts';
export { CanaryIdParams, CanaryJobPayload, CanaryState, CanaryView, RequestCanaryBody } from './canary.ts';
export {
  Answer,
  AdmitBatchJob,
  atsEndpointNames,
  BatchAccepted,
  BatchCallbackQuery,
  BatchCsvBody,
  BatchFileUrlBody,
  BatchIdQuery,
  BatchState,
  BatchStatus,
  BatchSummary,
  CompletedMiningBody,
  csvColumns,
  InputType,
  JobPostIdParams,
  JobPostIdQuery,
  JobPostInput,
  quickJobPostInput,
  MinedForm,
  MineJobPostBody,
  MineJobPostResponse,
  MineSubmissionJob,
  MiningErrorCode,
  MiningRetrievalBody,
  MiningStatusBody,
  miningErrorCodes,
  optionalCsvColumns,
  Question,
  QuestionCategory,
  questionCategories,
} from './recruitment.ts';
export type { AtsEndpointName } from './recruitment.ts';
export { MiningActivity, MiningActivityMinute, MiningActivityQuery } from './mining-activity.ts';
export { BatchDetail, BatchIdParams, BatchJobPostView, BatchJobPostViews, BatchListQuery, BatchRowsQuery, BatchSummaries, PauseBatchBody } from './batch-admin.ts';
export { QueueJobsQuery, queueJobStates, QueueJobView, QueueJobViews, QueueNameParams, QueueView, QueueViews } from './queue-admin.ts';
export type { QueueJobState } from './queue-admin.ts';
export {
  CreatePushSubscriptionBody,
  currencyCodes,
  currencyExponent,
  feeCodes,
  mealPlans,
  taxCodes,
  HotelGrantBody,
  HotelListing,
  HotelRateResult,
  HotelSource,
  isCurrencyCode,
  OperatorPushSubscriptionView,
  PushDeliveryView,
  PushSubscriptionView,
  RatesPushJobPayload,
  RatesRefreshJobPayload,
  RatesScheduleJobPayload,
  UpdatePushSubscriptionBody,
  UpsertHotelBody,
} from './hotels.ts';
export type { CurrencyCode, FeeCode, MealPlan, Price, PushSearchGrid, Rate, Room, TaxCode } from './hotels.ts';
export {
  AdminHotelParams,
  HotelIdInput,
  HotelListings,
  HotelRateResults,
  HotelsQuery,
  OperatorPushSubscriptionViews,
  PushDeliveriesQuery,
  PushDeliveryViews,
  PushSubscriptionViews,
  PutHotelBody,
  RatesFeedQuery,
  RedirectQuery,
  SubscriptionIdParams,
} from './hotels-api.ts';
export {
  BindBody,
  BindingView,
  DeliverMailJobPayload,
  ForwardingMessage,
  ForwardingResponse,
  LoadOutlookAccountsBody,
  LoadOutlookAccountsResult,
  MailHousekeepingJobPayload,
  OutlookAccount,
  PoolAccountInput,
  RecipientBody,
  RetrieveOutlookAccountBody,
  UpdateBindingBody,
  UpdateExpiresAtBody,
} from './forwarding.ts';
export { MailboxAccountsView, MailboxAccountView, MailDeliverySummaryView } from './mail-admin.ts';
export {
  ApplicationErrorCode,
  applicationErrorCodes,
  ApplicationIdParams,
  ApplicationIdQuery,
  ApplicationsOverview,
  ApplicationStatus,
  ApplicationStatusBody,
  ApplicationTransport,
  ApplyBody,
  ApplyJobPayload,
  ApplyResponse,
  Candidate,
  FileAnswer,
  FindApplicationQuery,
  FindApplicationQueryDocument,
  IdempotencyKeyHeader,
  PngImage,
  PurgeApplicationsJobPayload,
  ReconcileApplicationsJobPayload,
} from './applications.ts';
export { isPanTokenShaped, OtpView, PanToken, panTokenMaxLength, panTokenV1Pattern, panTokenV2Pattern, PanTokenView, passesLuhn, StorePanBody } from './vault.ts';
export { AtsAccountSecret, AtsCredentialBody, AtsCredentialList, AtsCredentialParams, AtsCredentialSummary, AtsCredentialVendor, atsAccountVendors, atsCredentialVendors } from './ats-credentials.ts';
export {
  AvailableRooms,
  BookBody,
  BookingConfirmation,
  BookingDetails,
  BookingErrorCode,
  bookingErrorCodes,
  BookingIdParams,
  BookingNotifyJobPayload,
  BookingPrice,
  BookingStage,
  bookingStages,
  BookingState,
  BookingStatus,
  BookingStepJobPayload,
  BookingSweepJobPayload,
  ConfirmPriceBody,
  ConsentBody,
  ConsentBodyDocument,
  CreateBookingBody,
  CreatedBooking,
  TdsChallenge,
  TdsChallengeView,
} from './bookings.ts';
export { BookingsOverview, BookingsOverviewQuery } from './bookings-admin.ts';
export { CallbackUrl } from './callback-url.ts';
export {
  ApplicationEndedEvent,
  BatchFinishedEvent,
  CallbackClientParams,
  CallbackClientQuery,
  CallbackClientView,
  CallbackEventType,
  callbackEventTypes,
  CallbackEventView,
  CallbackHeaders,
  CallbackOverview,
  CallbacksDeliverJobPayload,
  CallbackSecretView,
  JobPostFailedEvent,
  JobPostMinedEvent,
  miningErrorMessages,
  RotateCallbackSecretBody,
  SetCallbackDefaultBody,
} from './callbacks.ts';
export type { CallbackEventData } from './callbacks.ts';
