import type { ApplicationToSubmit, FileToUpload, SubmitHooks, SubmitOutcome } from '@quarry/hosted-form-apply';
import type { Question } from '@quarry/contracts';

/**
 * What a vendor API transport answers: an outcome, or "this transport cannot carry this
 * application" (answers the vendor's API has no field for, by question id), decided before
 * anything is sent, so the router hands the application to the hosted form instead of losing answers.
 */
type NotCarried = { status: 'not-carried'; reason: string; answers: string[] };

/**
 * A field of the vendor's API that a transport fills: its name as the vendor documents it, what
 * it carries, and the public page (or SDK, or OpenAPI file) that documents it. A transport sends
 * nothing that is not listed here, and the README's ATS table is read from these lists.
 */
type DocumentedField = { field: string; carries: string; source: string };

/**
 * What one vendor API transport carries, and what goes to the hosted form instead (with why):
 * `success` through the API means every answer given reached one of `fields`.
 */
export type TransportCoverage = {
  vendor: string;
  /** The request that creates the application, as the vendor documents it. */
  endpoint: string;
  fields: DocumentedField[];
  hostedFormOnly: Array<{ what: string; why: string }>;
};
export type VendorApplier = (
  application: ApplicationToSubmit,
  hooks: SubmitHooks,
  signal: AbortSignal,
) => Promise<SubmitOutcome | NotCarried>;

/** Every question of a form by id: conditional questions and the parts of fragmented ones included. */
function questionsById(questions: Question[]): Map<string, Question> {
  const byId = new Map<string, Question>();
  const visit = (list: Question[]) => {
    for (const question of list) {
      byId.set(question.id, question);
      for (const option of question.options ?? []) {
        if ('conditionalQuestions' in option) visit(option.conditionalQuestions);
        else visit([option]);
      }
    }
  };
  visit(questions);
  return byId;
}

export const isFile = (value: unknown): value is FileToUpload =>
  typeof value === 'object' &&
  value !== null &&
  (value as { type?: unknown }).type === 'File' &&
  Buffer.isBuffer((value as { bytes?: unknown }).bytes);

/** The answers worth sending: TextLiterals carry nothing, an empty answer is no answer. */
export function answeredValues(application: ApplicationToSubmit): Array<{ id: string; value: unknown; question: Question | undefined }> {
  const byId = questionsById(application.questions);
  return application.answers
    .filter(
      (answer) =>
        answer.value !== undefined &&
        answer.value !== null &&
        answer.value !== '' &&
        !(Array.isArray(answer.value) && answer.value.length === 0),
    )
    .map((answer) => ({ id: answer.id, value: answer.value, question: byId.get(answer.id) }))
    .filter((answer) => answer.question?.inputType !== 'TextLiteral');
}

/** A Date answer as the calendar date the candidate gave (the interface's ISO string, date part). */
export const isoDate = (value: unknown): string => String(value).slice(0, 10);

export const failedBeforeSending = (
  errorCode: Extract<SubmitOutcome, { status: 'failed' }>['errorCode'],
  message: string,
): SubmitOutcome => ({
  status: 'failed',
  errorCode,
  message,
  submitted: false,
});
