import type { Applier, ApplicationToSubmit, ResolvedAnswer, SubmitOutcome } from '@quarry/applier';
import { candidate, cvFile, hostedApplyCases, mineQuestions, sameValue, type ApplyCase, type CaseApplication, type ExpectedField } from '@quarry/applier/hosted-cases';
import { createAtsApplier } from '@quarry/ats-apply';
import { createChromiumPool } from '@quarry/miner';
import { greenhouseDoubleJob, leverDoublePosting, startGreenhouseApiDouble, startLeverApiDouble, type DoubleReply, type VendorApiDouble } from '@quarry/ats-apply/doubles';
import { printTable } from './harness.ts';

/**
 * The API transports' cases: the application through the router with the employer's key, against
 * the API doubles (the same fixture definitions); the vendor's documented refusals scripted as its
 * next replies. A transport that handed the application to the hosted form instead fails the row.
 */
function apiCase(
  ats: string,
  startDouble: () => Promise<VendorApiDouble>,
  setup: (doubles: VendorApiDouble) => Promise<{ application: ApplicationToSubmit; fields: ExpectedField[]; refusals: Array<[DoubleReply, string]> }>,
): ApplyCase {
  return {
    ats,
    transport: 'authorizedApi',
    start: async () => {
      const doubles = await startDouble();
      const { application, fields, refusals } = await setup(doubles);
      const notHosted: Applier = async () => ({ status: 'failed', errorCode: 'ApplicationFailed', message: 'handed to the hosted form', submitted: false });
      const applier = createAtsApplier({
        hostedForm: notHosted,
        endpoints: doubles.endpoints,
        timeoutMs: 5_000,
        rateLimit: (_key, work) => work(),
      });
      const sends = [{ expected: 'success', reply: null as DoubleReply | null }, ...refusals.map(([reply, expected]) => ({ expected, reply }))].map(({ expected, reply }): CaseApplication => {
        let before = 0;
        let intentAt: number | null = null;
        return {
          variant: reply ? `refusal ${reply.status}` : 'accept',
          expected: expected as CaseApplication['expected'],
          fields: reply ? [] : fields,
          received: () => {
            const sent = doubles.submissions()[before];
            const values = new Map<string, unknown>();
            for (const field of fields) {
              const parts = (sent?.parts ?? []).filter(([name]) => name === field.name).map(([, value]) => (typeof value === 'string' ? value : { bytes: value.bytes }));
              values.set(field.name, parts.length === 0 ? undefined : field.name.endsWith('[]') ? parts : parts[0]);
            }
            return values;
          },
          writes: () => ({ beforeIntent: (intentAt ?? doubles.submissions().length) - before, total: doubles.submissions().length - before }),
          send: async (hooks) => {
            before = doubles.submissions().length;
            intentAt = null;
            if (reply) doubles.replyNext(reply);
            const counted = {
              beforeSubmit: async () => {
                intentAt = doubles.submissions().length;
                await hooks.beforeSubmit();
              },
            };
            return applier(application, counted, new AbortController().signal);
          },
        };
      });
      return { applications: sends, close: () => doubles.close() };
    },
  };
}

const greenhouseApiCase = apiCase('greenhouse', () => startGreenhouseApiDouble({ key: 'bench-greenhouse-key' }), async (doubles) => {
  const url = `https://job-boards.greenhouse.io/acme/jobs/${greenhouseDoubleJob()}`;
  const cv = cvFile();
  const answers: ResolvedAnswer[] = [
    { id: 'first_name', value: 'Ada' },
    { id: 'last_name', value: 'Lovelace' },
    { id: 'email', value: candidate.email },
    { id: 'resume', value: cv },
    { id: 'question_30000001', value: 'https://www.linkedin.com/in/ada' },
    { id: 'question_30000002', value: 'No' },
    { id: 'question_30000003', value: ['English', 'Spanish'] },
    { id: 'question_30000004', value: 'Engines.\nAnd analysis.' },
    { id: 'location', value: 'London' },
    { id: 'gender', value: 'Female' },
  ];
  return {
    application: { url, questions: await mineQuestions(url, doubles.endpoints), answers, candidate, credential: { ats: 'greenhouse', board: 'acme', key: 'bench-greenhouse-key' } },
    fields: [
      { name: 'first_name', value: 'Ada' },
      { name: 'last_name', value: 'Lovelace' },
      { name: 'email', value: candidate.email },
      { name: 'phone', value: candidate.phone },
      { name: 'question_30000001', value: 'https://www.linkedin.com/in/ada' },
      { name: 'question_30000002', value: '0' },
      { name: 'question_30000003[]', value: ['101', '102'] },
      { name: 'question_30000004', value: 'Engines.\nAnd analysis.' },
      { name: 'location', value: 'London' },
      { name: 'gender', value: '2' },
      { name: 'resume', value: { bytes: cv.bytes } },
    ],
    refusals: [
      [{ status: 400, body: { error: 'Invalid attachment: resume must be a pdf, doc, docx, txt or rtf file and > 0 bytes' } }, 'FileTypeNotSupported'],
      [{ status: 400, body: { error: 'This job is not live and published' } }, 'JobExpired'],
      [{ status: 400, body: { errors: [{ field: 'question_30000002', message: 'is required' }] } }, 'MandatoryQuestionsNotAnswered'],
      [{ status: 400, body: { error: 'Candidate has already applied to this job' } }, 'AlreadyApplied'],
    ],
  };
});

const leverApiCase = apiCase('lever', () => startLeverApiDouble({ key: 'bench-lever-key' }), async (doubles) => {
  const url = `https://jobs.lever.co/acme/${leverDoublePosting}`;
  const cv = cvFile();
  const answers: ResolvedAnswer[] = [
    { id: 'resume', value: cv },
    { id: 'name', value: 'Ada Lovelace' },
    { id: 'email', value: candidate.email },
    { id: 'phone', value: candidate.phone },
    { id: 'org', value: 'Analytical Engines Ltd' },
    { id: 'urls[GitHub]', value: 'https://github.com/ada' },
  ];
  return {
    application: { url, questions: await mineQuestions(`${url}/apply`, doubles.endpoints), answers, candidate, credential: { ats: 'lever', board: 'acme', key: 'bench-lever-key' } },
    fields: [
      { name: 'name', value: 'Ada Lovelace' },
      { name: 'email', value: candidate.email },
      { name: 'phone', value: candidate.phone },
      { name: 'org', value: 'Analytical Engines Ltd' },
      { name: 'urls[GitHub]', value: 'https://github.com/ada' },
      { name: 'resume', value: { bytes: cv.bytes } },
    ],
    refusals: [
      [{ status: 404, body: { ok: false, error: 'Posting not found' } }, 'JobExpired'],
      [{ status: 400, body: { ok: false, error: 'Invalid resume file: unsupported file type' } }, 'FileTypeNotSupported'],
      [{ status: 400, body: { ok: false, error: 'Missing required field: email' } }, 'MandatoryQuestionsNotAnswered'],
    ],
  };
});

/** Every (ATS, transport) the bench measures: register a case to add a row. */
const applyAccuracyCases: ApplyCase[] = [...hostedApplyCases, greenhouseApiCase, leverApiCase];

type Tally = { sent: number; fields: number; exact: number; outcomes: number; correct: number; earlyWrites: number; misses: string[] };
const percent = (part: number, whole: number) => (whole === 0 ? '—' : `${((100 * part) / whole).toFixed(1)}%`);
const codeOf = (outcome: SubmitOutcome) => (outcome.status === 'failed' ? outcome.errorCode : outcome.status);

/** An application that neither ends nor fails in this time counts as a wrong outcome (and keeps its browser context: the pool has room for a few), so one stuck page cannot stall the table. */
const applicationLimitMs = 60_000;
function withinLimit<T>(work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${applicationLimitMs / 1000} s`)), applicationLimitMs);
  });
  return Promise.race([work, limit]).finally(() => clearTimeout(timer));
}

/**
 * `npm run bench -- apply-accuracy`: sends every case's applications to its vendor double (the
 * hosted form in Chromium, the API transports over HTTP) and scores, per ATS and transport, the
 * answers that arrived exactly (under the vendor's field name, in its encoding, files byte for
 * byte), the outcomes classified as the vendor's answer means, and writes that reached the vendor
 * before the at-most-once intent (must be 0). Target: 100% on the doubles.
 */
export async function benchApplyAccuracy(): Promise<void> {
  const pool = createChromiumPool({ executablePath: process.env['QUARRY_CHROMIUM'] ?? '/usr/bin/chromium', recycleAfterJobs: 100, maxContexts: 4 });
  const rows: string[][] = [];
  const misses: string[] = [];
  try {
    for (const applyCase of applyAccuracyCases) {
      const tally: Tally = { sent: 0, fields: 0, exact: 0, outcomes: 0, correct: 0, earlyWrites: 0, misses: [] };
      const running = await applyCase.start(pool);
      try {
        for (const application of running.applications) {
          const outcome: SubmitOutcome = await withinLimit(application.send({ beforeSubmit: async () => {} }), `${applyCase.ats} ${application.variant}`).catch((error: unknown) => ({ status: 'unknown', message: String(error) }));
          tally.sent += 1;
          tally.outcomes += 1;
          if (codeOf(outcome) === application.expected) tally.correct += 1;
          else misses.push(`${applyCase.ats}/${applyCase.transport} ${application.variant}: expected ${application.expected}, got ${codeOf(outcome)} (${outcome.status === 'success' ? '' : outcome.message})`);
          tally.earlyWrites += application.writes().beforeIntent;
          const received = application.received();
          for (const field of application.fields) {
            tally.fields += 1;
            if (sameValue(field.value, received.get(field.name))) tally.exact += 1;
            else misses.push(`${applyCase.ats}/${applyCase.transport} field ${field.name}: expected ${JSON.stringify(field.value).slice(0, 80)}, received ${JSON.stringify(received.get(field.name))?.slice(0, 80)}`);
          }
        }
      } finally {
        await withinLimit(running.close(), `closing the ${applyCase.ats} double`).catch((error: unknown) => misses.push(String(error)));
      }
      rows.push([applyCase.ats, applyCase.transport, String(tally.sent), `${tally.exact}/${tally.fields}`, percent(tally.exact, tally.fields), `${tally.correct}/${tally.outcomes}`, percent(tally.correct, tally.outcomes), String(tally.earlyWrites)]);
    }
  } finally {
    await pool.close();
  }
  printTable('apply-accuracy: vendor doubles, per ATS and transport', ['ATS', 'transport', 'applications sent', 'fields exact', 'fields %', 'outcomes right', 'outcomes %', 'writes before intent'], rows);
  for (const miss of misses) console.log(`  miss: ${miss}`);
}
