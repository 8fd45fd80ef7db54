import type { SubmitOutcome } from '@quarry/hosted-form-apply';
import { hostedApplyCases, sameValue, type ApplyCase } from '@quarry/testing/hosted-form-apply';
import { createChromiumPool } from '@quarry/browser';
import { greenhouseApiCase } from './apply-accuracy/greenhouse.case.ts';
import { leverApiCase } from './apply-accuracy/lever.case.ts';
import { recruiteeApiCase } from './apply-accuracy/recruitee.case.ts';
import { ashbyApiCase } from './apply-accuracy/ashby.case.ts';
import { workableApiCase } from './apply-accuracy/workable.case.ts';
import { smartRecruitersApiCase } from './apply-accuracy/smartrecruiters.case.ts';
import { bambooApiCase } from './apply-accuracy/bamboohr.case.ts';
import { jazzApiCase } from './apply-accuracy/jazzhr.case.ts';
import { breezyApiCase } from './apply-accuracy/breezy.case.ts';
import { teamtailorApiCase } from './apply-accuracy/teamtailor.case.ts';
import { printTable } from './harness.ts';

/** Every (ATS, transport) the bench measures: register a case to add a row. */
const applyAccuracyCases: ApplyCase[] = [
  ...hostedApplyCases,
  greenhouseApiCase,
  leverApiCase,
  recruiteeApiCase,
  ashbyApiCase,
  workableApiCase,
  smartRecruitersApiCase,
  bambooApiCase,
  jazzApiCase,
  breezyApiCase,
  teamtailorApiCase,
];

type Tally = {
  sent: number;
  fields: number;
  exact: number;
  outcomes: number;
  correct: number;
  earlyWrites: number;
  notCarried: number | null;
  misses: string[];
};
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
export async function benchApplyAccuracy(only: { ats: string[]; transport?: string } = { ats: [] }): Promise<void> {
  const cases = applyAccuracyCases.filter(
    (applyCase) =>
      (only.ats.length === 0 || only.ats.includes(applyCase.ats)) && (!only.transport || only.transport === applyCase.transport),
  );
  const pool = createChromiumPool({
    executablePath: process.env['QUARRY_CHROMIUM'] ?? '/usr/bin/chromium',
    recycleAfterJobs: 100,
    maxContexts: 4,
  });
  const rows: string[][] = [];
  const misses: string[] = [];
  try {
    for (const applyCase of cases) {
      const tally: Tally = { sent: 0, fields: 0, exact: 0, outcomes: 0, correct: 0, earlyWrites: 0, notCarried: null, misses: [] };
      const running = await applyCase.start(pool);
      try {
        for (const application of running.applications) {
          const outcome: SubmitOutcome = await withinLimit(
            application.send({ beforeSubmit: async () => {} }),
            `${applyCase.ats} ${application.variant}`,
          ).catch((error: unknown) => ({ status: 'unknown', message: String(error) }));
          tally.sent += 1;
          tally.outcomes += 1;
          if (codeOf(outcome) === application.expected) tally.correct += 1;
          else
            misses.push(
              `${applyCase.ats}/${applyCase.transport} ${application.variant}: expected ${application.expected}, got ${codeOf(outcome)} (${outcome.status === 'success' ? '' : outcome.message})`,
            );
          tally.earlyWrites += application.writes().beforeIntent;
          const received = application.received();
          // An answer of an application reported success that reached none of its fields was dropped.
          if (application.answerFields) {
            tally.notCarried ??= 0;
            for (const answer of application.answerFields) {
              if (outcome.status !== 'success' || answer.fields.some((name) => received.get(name) !== undefined)) continue;
              tally.notCarried += 1;
              misses.push(
                `${applyCase.ats}/${applyCase.transport} answer ${answer.id}: reported success, but none of its fields (${answer.fields.join(', ') || 'none named'}) arrived`,
              );
            }
          }
          for (const field of application.fields) {
            tally.fields += 1;
            if (sameValue(field.value, received.get(field.name))) tally.exact += 1;
            else
              misses.push(
                `${applyCase.ats}/${applyCase.transport} field ${field.name}: expected ${JSON.stringify(field.value).slice(0, 80)}, received ${JSON.stringify(received.get(field.name))?.slice(0, 80)}`,
              );
          }
        }
      } finally {
        await withinLimit(running.close(), `closing the ${applyCase.ats} double`).catch((error: unknown) => misses.push(String(error)));
      }
      rows.push([
        applyCase.ats,
        applyCase.transport,
        String(tally.sent),
        `${tally.exact}/${tally.fields}`,
        percent(tally.exact, tally.fields),
        tally.notCarried === null ? '—' : String(tally.notCarried),
        `${tally.correct}/${tally.outcomes}`,
        percent(tally.correct, tally.outcomes),
        String(tally.earlyWrites),
      ]);
    }
  } finally {
    await pool.close();
  }
  printTable(
    'apply-accuracy: vendor doubles, per ATS and transport',
    [
      'ATS',
      'transport',
      'applications sent',
      'fields exact',
      'fields %',
      'answers not carried',
      'outcomes named',
      'outcomes %',
      'writes before intent',
    ],
    rows,
  );
  for (const miss of misses) console.log(`  miss: ${miss}`);
}
