import type { SubmitOutcome } from '@quarry/hosted-form-apply';
import { detectAts } from '@quarry/miner';
import { z } from 'zod';
import type { VendorRateLimit } from './lever.api-applier.ts';
import { callVendor, expandEndpoint, VendorUnreachable, type VendorAnswer } from './vendor-request.ts';
import { refusal, submitOnce, vendorMessage } from './vendor-outcomes.ts';
import { answeredValues, failedBeforeSending, isoDate, type TransportCoverage, type VendorApplier } from './vendor-transport.ts';

const Job = z.object({ data: z.object({ attributes: z.object({ status: z.string().nullish() }).loose() }) });
const PickedQuestions = z.object({
  data: z.array(
    z.object({
      id: z.string(),
      attributes: z.object({ position: z.number().nullish() }).loose(),
      relationships: z.object({ question: z.object({ data: z.object({ id: z.string() }) }) }).loose(),
    }),
  ),
  included: z
    .array(z.object({ id: z.string(), type: z.string(), attributes: z.object({ 'question-type': z.string().nullish() }).loose() }))
    .default([]),
});
const ApiVersion = '20240404';

const docs = 'https://docs.teamtailor.com';
const truto = 'https://truto.one/integrations/detail/teamtailor/';
const stackone = 'https://www.stackone.com/connectors/teamtailor';

/** The career site's contact boxes (the miner's ids) and the candidate attribute each is sent as. */
const candidateAttributes: Record<string, [attribute: string, carries: string]> = {
  'candidate[first_name]': ['first-name', 'first name'],
  'candidate[last_name]': ['last-name', 'last name'],
  'candidate[email]': ['email', 'email address'],
  'candidate[phone]': ['phone', 'phone'],
};
const coverLetter = 'candidate[job_applications_attributes][0][cover_letter]';
/** A screening answer box: `candidate[answers_attributes][N][<kind>]`, the N-th picked question of the job. */
const answerBox = /^candidate\[answers_attributes\]\[(\d+)\]\[(boolean|text|number|date|range|choice)\]$/;
/** The answer attribute by the question's type, and the box kind the form gives it. */
const answerAttribute: Record<string, [attribute: string, box: string]> = {
  Boolean: ['boolean', 'boolean'],
  Text: ['text', 'text'],
  Number: ['number', 'number'],
  Date: ['date', 'date'],
  Range: ['range', 'range'],
};

/** What Teamtailor's JSON:API carries, and what only its career-site form takes. */
export const teamtailorApiCoverage: TransportCoverage = {
  vendor: 'Teamtailor',
  endpoint:
    'POST https://api.teamtailor.com/v1/candidates, then POST /v1/job-applications, then POST /v1/answers per screening answer (JSON:API, `Authorization: Token token=…`, `X-Api-Version`)',
  fields: [
    ...Object.values(candidateAttributes).map(([attribute, carries]) => ({
      field: `data.attributes.${attribute}`,
      carries: `candidate ${carries}`,
      source: docs,
    })),
    { field: 'data.attributes.sourced', carries: 'false: the candidate applied (email then required)', source: truto },
    { field: 'data.attributes.merge', carries: 'true: a returning candidate is the same record', source: truto },
    { field: 'data.attributes.cover-letter', carries: 'job application cover letter', source: docs },
    { field: 'data.relationships.candidate', carries: 'the created candidate (job application, answers)', source: docs },
    { field: 'data.relationships.job', carries: 'the job of the posting URL (job application)', source: docs },
    {
      field: 'data.relationships.question',
      carries: "the screening answer's question (the job's picked question at the box's position)",
      source: stackone,
    },
    ...Object.values(answerAttribute).map(([attribute]) => ({
      field: `data.attributes.${attribute}`,
      carries: `screening answer of a ${attribute} question`,
      source: stackone,
    })),
  ],
  hostedFormOnly: [
    {
      what: 'the résumé and additional files',
      why: 'the candidate takes a résumé only as a URL (`resume`); file answers cannot go through the API (docs.kombo.dev/ats/connectors/teamtailor)',
    },
    { what: 'choice screening answers', why: 'answers take the choice ids, which the mined question (option words) does not carry' },
    {
      what: 'location (`candidate[location][query]`)',
      why: 'the career site geocodes it into a location the candidate API does not document',
    },
    {
      what: 'consents (`consent_given`, `consent_given_future_jobs`)',
      why: 'no documented candidate or job-application attribute records the consent given on the form',
    },
  ],
};

const asValue = (kind: string, value: unknown): unknown => {
  if (kind === 'boolean') return value === true || value === 'true' || value === 'Yes';
  if (kind === 'number' || kind === 'range') return typeof value === 'number' ? value : Number(String(value).replace(/[^\d.-]/g, ''));
  if (kind === 'date') return isoDate(value);
  return String(value);
};

/**
 * Teamtailor's JSON:API (`Authorization: Token token=…`, `X-Api-Version`): the job read first
 * (`GET /v1/jobs/{id}`: not open → JobExpired), and, when there are screening answers, its picked
 * questions (`GET /v1/jobs/{id}/picked-questions?include=question`, in form order) to name each
 * answer's question; then, after `beforeSubmit`, the documented writes in order:
 * `POST /v1/candidates` (`merge: true`), `POST /v1/job-applications` (candidate, job, cover letter)
 * and `POST /v1/answers` per answer. A refusal after the candidate is written is `submitted: true`.
 */
export function teamtailorApiApplier(options: { apiBaseUrl: string; timeoutMs: number; rateLimit: VendorRateLimit }): VendorApplier {
  return async (application, hooks, signal) => {
    const target = detectAts(application.url);
    const credential = application.credential;
    if (target?.ats !== 'teamtailor' || !credential)
      return { status: 'not-carried', reason: 'not a Teamtailor posting with a registered key', answers: [] };
    const jobId = /(?:^|\/)jobs\/(\d+)/.exec(target.jobPath)?.[1];
    if (!jobId) return { status: 'not-carried', reason: 'the Teamtailor job id is not in the posting URL', answers: [] };

    const { candidate } = application;
    const attributes: Record<string, unknown> = {
      'first-name': candidate.firstName,
      'last-name': candidate.lastName,
      email: candidate.email,
      ...(candidate.phone ? { phone: candidate.phone } : {}),
      sourced: false,
      merge: true,
    };
    const applicationAttributes: Record<string, unknown> = {};
    const screening: Array<{ id: string; position: number; kind: string; value: unknown }> = [];
    const given = new Set<string>([
      'candidate[first_name]',
      'candidate[last_name]',
      'candidate[email]',
      ...(candidate.phone ? ['candidate[phone]'] : []),
    ]);
    const notCarried: string[] = [];
    for (const { id, value } of answeredValues(application)) {
      const attribute = candidateAttributes[id]?.[0];
      const box = answerBox.exec(id);
      if (attribute && typeof value === 'string') attributes[attribute] = value;
      else if (id === coverLetter && typeof value === 'string') applicationAttributes['cover-letter'] = value;
      else if (box && box[2] !== 'choice') screening.push({ id, position: Number(box[1]), kind: box[2] ?? '', value });
      else {
        notCarried.push(id);
        continue;
      }
      given.add(id);
    }
    if (notCarried.length > 0)
      return { status: 'not-carried', reason: `Teamtailor's API documents no field for ${notCarried.join(', ')}`, answers: notCarried };
    const missing = application.questions
      .filter((question) => question.mandatory && !given.has(question.id))
      .map((question) => question.id);
    if (missing.length > 0)
      return failedBeforeSending('MandatoryQuestionsNotAnswered', `Teamtailor's application form requires ${missing.join(', ')}`);
    for (const answer of screening) {
      if (answer.kind === 'number' && Number.isNaN(asValue('number', answer.value)))
        return failedBeforeSending('ApplicantDetailsInvalid', `Teamtailor: ${answer.id} takes a number, not "${String(answer.value)}"`);
    }

    const base = expandEndpoint(options.apiBaseUrl, {});
    const headers = {
      authorization: `Token token=${credential.key}`,
      'x-api-version': ApiVersion,
      accept: 'application/vnd.api+json',
      'content-type': 'application/vnd.api+json',
    };
    const jobAnswer = await callVendor(`${base}/v1/jobs/${jobId}`, { method: 'GET', headers }, options.timeoutMs, signal);
    if (jobAnswer.status === 404)
      return failedBeforeSending('JobNotFound', `Teamtailor: no job ${jobId} (${vendorMessage(jobAnswer.json, jobAnswer.text)})`);
    if (jobAnswer.status !== 200) return refusal('Teamtailor', jobAnswer, vendorMessage(jobAnswer.json, jobAnswer.text));
    const job = Job.safeParse(jobAnswer.json);
    if (!job.success) return failedBeforeSending('ApplicationFailed', "Teamtailor's job has an unknown shape; nothing was submitted");
    const status = job.data.data.attributes.status;
    if (status && status !== 'open') return failedBeforeSending('JobExpired', `Teamtailor: job ${jobId} is ${status}`);

    // Each answer box names its question by position: the job's picked questions, in form order, give the question's id and type.
    const answerWrites: Array<{ attributes: Record<string, unknown>; question: string }> = [];
    if (screening.length > 0) {
      const listing = await callVendor(
        `${base}/v1/jobs/${jobId}/picked-questions?include=question`,
        { method: 'GET', headers },
        options.timeoutMs,
        signal,
      );
      if (listing.status !== 200) return refusal('Teamtailor', listing, vendorMessage(listing.json, listing.text));
      const picked = PickedQuestions.safeParse(listing.json);
      if (!picked.success)
        return failedBeforeSending('ApplicationFailed', "Teamtailor's picked questions have an unknown shape; nothing was submitted");
      const ordered = [...picked.data.data].sort((left, right) => (left.attributes.position ?? 0) - (right.attributes.position ?? 0));
      const unplaced: string[] = [];
      for (const answer of screening) {
        const questionId = ordered[answer.position]?.relationships.question.data.id;
        const type =
          picked.data.included.find((entry) => entry.type === 'questions' && entry.id === questionId)?.attributes['question-type'] ?? '';
        const [attribute, box] = answerAttribute[type] ?? [];
        if (!questionId || !attribute || box !== answer.kind) unplaced.push(answer.id);
        else answerWrites.push({ question: questionId, attributes: { [attribute]: asValue(answer.kind, answer.value) } });
      }
      if (unplaced.length > 0)
        return {
          status: 'not-carried',
          reason: `Teamtailor's picked questions do not match the form's boxes ${unplaced.join(', ')}`,
          answers: unplaced,
        };
    }

    return options.rateLimit(
      `teamtailor:${credential.board}`,
      async () => {
        let candidateId = '';
        const created = await submitOnce(
          'Teamtailor',
          hooks,
          () =>
            callVendor(
              `${base}/v1/candidates`,
              { method: 'POST', headers, json: { data: { type: 'candidates', attributes } } },
              options.timeoutMs,
              signal,
            ),
          (answer): SubmitOutcome => {
            const id = (answer.json as { data?: { id?: unknown } } | undefined)?.data?.id;
            if ((answer.status === 200 || answer.status === 201) && id !== undefined) {
              candidateId = String(id);
              return { status: 'success', confirmation: { text: 'candidate recorded' } };
            }
            if (answer.status >= 200 && answer.status < 300)
              return { status: 'unknown', message: `Teamtailor recorded a candidate without naming it (${answer.text.slice(0, 200)})` };
            return refusal('Teamtailor', answer, vendorMessage(answer.json, answer.text));
          },
        );
        if (created.status !== 'success' || !candidateId) return created;
        const candidateRef = { data: { type: 'candidates', id: candidateId } };
        const writes: Array<[what: string, path: string, data: unknown]> = [
          [
            'the job application',
            '/v1/job-applications',
            {
              type: 'job-applications',
              attributes: applicationAttributes,
              relationships: { candidate: candidateRef, job: { data: { type: 'jobs', id: jobId } } },
            },
          ],
          ...answerWrites.map((write): [string, string, unknown] => [
            `the answer to question ${write.question}`,
            '/v1/answers',
            {
              type: 'answers',
              attributes: write.attributes,
              relationships: { candidate: candidateRef, question: { data: { type: 'questions', id: write.question } } },
            },
          ]),
        ];
        let reference = candidateId;
        for (const [what, path, data] of writes) {
          let answer: VendorAnswer;
          try {
            answer = await callVendor(`${base}${path}`, { method: 'POST', headers, json: { data } }, options.timeoutMs, signal);
          } catch (error) {
            const reason = error instanceof VendorUnreachable ? error.message : error instanceof Error ? error.message : String(error);
            return {
              status: 'unknown',
              message: `Teamtailor recorded the candidate (${candidateId}); whether ${what} was recorded is not known (${reason})`,
            };
          }
          if (answer.status >= 500)
            return {
              status: 'unknown',
              message: `Teamtailor recorded the candidate (${candidateId}) and answered HTTP ${answer.status} to ${what}`,
            };
          if (answer.status !== 200 && answer.status !== 201) {
            const refused = refusal('Teamtailor', answer, vendorMessage(answer.json, answer.text));
            return refused.status === 'failed'
              ? { ...refused, message: `${refused.message} (refused ${what}; the candidate ${candidateId} was recorded)`, submitted: true }
              : refused;
          }
          if (path === '/v1/job-applications')
            reference = String((answer.json as { data?: { id?: unknown } } | undefined)?.data?.id ?? candidateId);
        }
        return { status: 'success', confirmation: { text: "Submitted through Teamtailor's API", reference } };
      },
      signal,
    );
  };
}
