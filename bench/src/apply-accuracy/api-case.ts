import type { Applier, ApplicationToSubmit, ResolvedAnswer } from '@quarry/hosted-form-apply';
import {
  candidate,
  cvFile,
  mineQuestions,
  type ApplyCase,
  type CaseApplication,
  type ExpectedField,
} from '@quarry/testing/hosted-form-apply';
import { createAtsApplier } from '@quarry/ats-api-apply';
import type { Question } from '@quarry/contracts';
import type { DoubleReply, ReceivedRequest, VendorApiDouble } from '@quarry/testing';

/** What an API case sends: the posting, its mined questions, and the answers and expected fields of a candidate with this email. */
export type ApiSetup = {
  url: string;
  /** The page the miner reads, when not the posting's URL. */
  minedAt?: string;
  /** The mined questions the API carries whole (the rest of a captured page goes to the hosted form). */
  carried?: (id: string) => boolean;
  /** Answers the vendor receives as they are: [question id, the vendor's field, value]. */
  unchanged?: (email: string) => Array<[id: string, name: string, value: ResolvedAnswer['value']]>;
  /** The other answers, and the fields they arrive as under the vendor's names and encodings. */
  answers?: (email: string, questions: ApplicationToSubmit['questions']) => ResolvedAnswer[];
  fields?: (email: string) => ExpectedField[];
  /**
   * Every answer the candidate gives, each with the vendor fields it must arrive as (an answer
   * that names no field, or none of whose fields arrived, counts as not carried). Cases that give
   * this measure "answers not carried"; `fixed` are the fields no answer gives (the job's id, …).
   */
  delivered?: (email: string, questions: Question[]) => DeliveredAnswer[];
  fixed?: (email: string) => ExpectedField[];
  /** The vendor's refusals, each scripted as the replies to the application's next requests, and the code it must map to. */
  refusals: Array<[DoubleReply[], CaseApplication['expected']]>;
};

/** An answer, and the fields the vendor must receive it as. */
export type DeliveredAnswer = { id: string; value: ResolvedAnswer['value']; fields: ExpectedField[] };

/** An expected field's value as one application's requests (in order) carried it. */
export type FieldReader = (sent: ReceivedRequest[], name: string) => unknown;

const jsonAt = (json: unknown, path: string): unknown =>
  path
    .split('.')
    .reduce<unknown>((value, key) => (value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined), json);

/** A JSON body's value at a dotted path (`candidate.resume.data`), or a multipart field (a file as its bytes, a `[]` name as every value): the first request that carries it. */
export const requestFields: FieldReader = (sent, name) => {
  for (const request of sent) {
    const parts = request.parts
      .filter(([key]) => key === name)
      .map(([, value]) => (typeof value === 'string' ? value : { bytes: value.bytes }));
    const value =
      request.json === undefined ? (parts.length === 0 ? undefined : name.endsWith('[]') ? parts : parts[0]) : jsonAt(request.json, name);
    if (value !== undefined) return value;
  }
  return undefined;
};

/**
 * A reader of answers a vendor sends as a list of entries each naming its question: the field
 * `<prefix> <question>` is that entry's value; any other name is read as `requestFields` does.
 */
export const listedFields =
  (
    prefix: string,
    list: (sent: ReceivedRequest[]) => unknown,
    keyOf: (entry: Record<string, unknown>) => unknown,
    valueOf: (entry: Record<string, unknown>) => unknown,
  ): FieldReader =>
  (sent, name) => {
    if (!name.startsWith(`${prefix} `)) return requestFields(sent, name);
    const entries = list(sent);
    const entry = Array.isArray(entries)
      ? (entries as Array<Record<string, unknown>>).find((candidateEntry) => keyOf(candidateEntry) === name.slice(prefix.length + 1))
      : undefined;
    return entry === undefined ? undefined : valueOf(entry);
  };

/**
 * The API transports' cases: the application through the router with the employer's key (none for
 * a keyless vendor), against the API doubles (the same fixture definitions); the vendor's
 * documented refusals scripted as its next replies. Each application comes from another candidate,
 * as some vendors (Ashby, Teamtailor) refuse a second application of an email to a job. A
 * transport that handed the application to the hosted form instead fails the row.
 */
export function apiCase(
  ats: string,
  startDouble: (options: { key: string }) => Promise<VendorApiDouble>,
  setup: () => ApiSetup,
  { keyless = false, received = requestFields }: { keyless?: boolean; received?: FieldReader } = {},
): ApplyCase {
  const key = `bench-${ats}-key`;
  return {
    ats,
    transport: 'authorizedApi',
    start: async () => {
      const doubles = await startDouble({ key });
      const {
        url,
        minedAt = url,
        carried = () => true,
        unchanged = () => [],
        answers: otherAnswers = () => [],
        fields: otherFields = () => [],
        delivered,
        fixed = () => [],
        refusals,
      } = setup();
      const questions = (await mineQuestions(minedAt, doubles.endpoints)).filter((question) => carried(question.id));
      const answers = (email: string): ResolvedAnswer[] =>
        delivered
          ? delivered(email, questions).map(({ id, value }) => ({ id, value }))
          : [...unchanged(email).map(([id, , value]) => ({ id, value })), ...otherAnswers(email, questions)];
      const fields = (email: string): ExpectedField[] =>
        delivered
          ? [...fixed(email), ...delivered(email, questions).flatMap((answer) => answer.fields)]
          : [...unchanged(email).map(([, name, value]) => ({ name, value })), ...otherFields(email)];
      const notHosted: Applier = async () => ({
        status: 'failed',
        errorCode: 'ApplicationFailed',
        message: 'handed to the hosted form',
        submitted: false,
      });
      const applier = createAtsApplier({
        hostedForm: notHosted,
        endpoints: doubles.endpoints,
        timeoutMs: 5_000,
        rateLimit: (_key, work) => work(),
      });
      const sends = [
        { expected: 'success' as const, replies: [] as DoubleReply[] },
        ...refusals.map(([replies, expected]) => ({ expected, replies })),
      ].map(({ expected, replies }, index): CaseApplication => {
        const email = `${ats}-${index}@example.com`;
        let before = 0;
        let intentAt: number | null = null;
        return {
          variant: replies.length === 0 ? 'accept' : `refusal ${replies.map((reply) => reply.status).join(' then ')}`,
          expected,
          fields: replies.length === 0 ? fields(email) : [],
          ...(delivered && replies.length === 0
            ? {
                answerFields: delivered(email, questions).map((answer) => ({
                  id: answer.id,
                  fields: answer.fields.map((field) => field.name),
                })),
              }
            : {}),
          received: () => {
            const sent = doubles.submissions().slice(before);
            return new Map(fields(email).map((field) => [field.name, received(sent, field.name)]));
          },
          writes: () => ({
            beforeIntent: (intentAt ?? doubles.submissions().length) - before,
            total: doubles.submissions().length - before,
          }),
          send: async (hooks) => {
            before = doubles.submissions().length;
            intentAt = null;
            doubles.replyNext(...replies);
            const counted = {
              beforeSubmit: async () => {
                intentAt = doubles.submissions().length;
                await hooks.beforeSubmit();
              },
            };
            const application: ApplicationToSubmit = {
              url,
              questions,
              answers: answers(email),
              candidate: { ...candidate, email },
              ...(keyless ? {} : { credential: { ats, board: 'acme', key } }),
            };
            return applier(application, counted, new AbortController().signal);
          },
        };
      });
      return { applications: sends, close: () => doubles.close() };
    },
  };
}

/** The résumé every API case sends: bytes that must arrive unchanged. */
export const cv = cvFile();
