import type { Kind, Unit, Workload } from './workload.ts';
import type { FaultWindow } from './scenarios.ts';
import type { UnexpectedExit } from './role-processes.ts';

/** One row of the table: what one scenario did to the work put through Quarry. */
export type ScenarioRow = {
  name: string;
  accepted: number;
  completed: number;
  lost: number;
  /** Extra copies at a destination (mail) and rows a batch counted twice. */
  duplicated: number;
  stuck: number;
  /** Final statuses of applications and bookings that disagree with what the site or hotel holds. */
  untruthful: number;
  /** Applications and bookings that ended with an unknown outcome (truthful, but a client must check by hand). */
  unknown: number;
  exits: number;
  /** Seconds from the fault's end until the work it held up was done; null: some never was. */
  recoveryS: number | null;
  slowestApiMs: number;
  /** Requests that got no answer at all (their API process was killed under them). */
  unanswered: number;
  manual: string;
  settings: string;
  perKind: string;
  notes: string[];
  missed: string[];
};

const TARGETS = { recoveryS: 15, apiMs: 2_000, mailConcurrency: 20, windowMs: 1_000 };

/**
 * Work pending when the fault ended: accepted by then and not done by then. Batch rows count only
 * when they were mid-work at the fault (`rowsInFlight`): rows still queued behind the batch's rate
 * limit were never held up by the fault.
 */
function pendingAtEnd(units: Unit[], window: FaultWindow, rowsInFlight: Set<string>): Unit[] {
  return units.filter((unit) => {
    if (unit.acceptedAt > window.end) return false;
    if (unit.completedAt !== undefined && unit.completedAt <= window.end) return false;
    return unit.kind !== 'batch-row' || rowsInFlight.has(unit.key);
  });
}

export async function scenarioRow(
  name: string,
  workload: Workload,
  window: FaultWindow,
  rowsInFlight: Set<string>,
  exits: UnexpectedExit[],
  settings: string,
): Promise<ScenarioRow> {
  await workload.refresh();
  const units = [...workload.units.values()];
  const open = units.filter((unit) => unit.completedAt === undefined);
  // With Redis' data lost, a booking whose card's CVV went with it ends CvvUnavailable before
  // anything is sent: a named, truthful refusal its client answers by storing the card again.
  const cardsToStoreAgain = window.cvvsLost
    ? units.filter((unit) => unit.kind === 'booking' && /^CvvUnavailable\b/.test(unit.failed ?? '') && unit.copies === 0)
    : [];
  const failed = units.filter((unit) => unit.failed !== undefined && !cardsToStoreAgain.includes(unit));
  const untruthful = units.filter((unit) => unit.untruthful !== undefined);
  const unknown = units.filter((unit) => unit.unknown === true);
  // Extra submissions at a careers site, extra orders at the hotel: the outside world written twice.
  const writtenTwice = units.filter((unit) => (unit.kind === 'application' || unit.kind === 'booking') && unit.copies > 1);
  const extraWrites = writtenTwice.reduce((sum, unit) => sum + unit.copies - 1, 0);
  // Mail not at its destination: still queued in Postgres is stuck, anything else is lost.
  const openMail = open.filter((unit) => unit.kind === 'mail').length;
  const pendingMail = openMail > 0 ? await workload.pendingMailDeliveries() : 0;
  const stuckMail = Math.min(openMail, pendingMail);
  const stuck = open.length - openMail + stuckMail;
  // A receiver that got an older state after a newer has lost the newer one.
  const lost = failed.length + (openMail - stuckMail) + workload.regressions();
  const mailCopies = units.filter((unit) => unit.kind === 'mail' && unit.copies > 1);
  const mailDuplicates = mailCopies.reduce((sum, unit) => sum + unit.copies - 1, 0);
  const doubleCounted = await workload.doubleCounted();

  const pending = pendingAtEnd(units, window, rowsInFlight);
  const recoveryS = pending.some((unit) => unit.completedAt === undefined)
    ? null
    : Math.max(0, ...pending.map((unit) => ((unit.completedAt ?? window.end) - window.end) / 1000));

  // Answers to requests sent during the fault, and for an instant fault (a kill) the 15 s after it.
  const until = Math.max(window.end, window.start + 15_000);
  const during = workload.calls.filter((call) => call.startedAt >= window.start && call.startedAt <= until);
  const slowestApiMs = Math.max(0, ...during.map((call) => call.ms ?? 0));
  const unanswered = during.filter((call) => call.ms === null).length;

  const missed: string[] = [];
  if (lost > 0)
    missed.push(
      `lost ${lost} (target 0; older push after newer: ${workload.regressions()})${
        failed.length
          ? `: failed ${failed
              .map((unit) => `${unit.key} ${unit.failed}`)
              .slice(0, 3)
              .join(', ')}`
          : ''
      }`,
    );
  if (stuck > 0)
    missed.push(
      `stuck ${stuck} (target 0): ${open
        .map((unit) => `${unit.kind} ${unit.key}`)
        .slice(0, 4)
        .join(', ')}`,
    );
  if (exits.length > 0)
    missed.push(`process exits ${exits.length} (target 0): ${exits.map((exit) => `${exit.name} ${exit.code ?? exit.signal}`).join(', ')}`);
  if (recoveryS === null) missed.push('recovery: work held up by the fault never finished');
  else if (recoveryS > TARGETS.recoveryS)
    missed.push(`recovery ${recoveryS.toFixed(1)} s (target ≤ ${TARGETS.recoveryS} s): slowest ${describeSlowest(pending, window)}`);
  const slowestCall = during.find((call) => call.ms === slowestApiMs);
  if (slowestApiMs > TARGETS.apiMs)
    missed.push(`slowest API answer ${slowestApiMs} ms (target ≤ ${TARGETS.apiMs} ms): ${slowestCall?.path ?? ''}`);
  if (unanswered > 0 && !name.startsWith('api-')) missed.push(`${unanswered} API requests got no answer`);
  if (doubleCounted > 0) missed.push(`batch rows counted twice: ${doubleCounted} (target 0)`);
  if (extraWrites > 0)
    missed.push(
      `written to the outside world more than once: ${extraWrites} (target 0): ${writtenTwice
        .map((unit) => `${unit.kind} ${unit.key} ×${unit.copies}`)
        .slice(0, 3)
        .join(', ')}`,
    );
  if (untruthful.length > 0)
    missed.push(
      `untruthful statuses ${untruthful.length} (target 0): ${untruthful
        .map((unit) => `${unit.kind} ${unit.key}: ${unit.untruthful}`)
        .slice(0, 3)
        .join('; ')}`,
    );
  // An unknown outcome is the promise only for a process killed after its intent: a paused,
  // partitioned or stopped one lives on to read the answer, which must replace it.
  if (unknown.length > 0 && !window.unknownAllowed)
    missed.push(
      `unknown outcomes ${unknown.length} (target 0 when no process died after its intent): ${unknown
        .map((unit) => `${unit.kind} ${unit.key}`)
        .slice(0, 3)
        .join(', ')}`,
    );
  // Mail duplicates are allowed only inside the RFC 1047 window of a killed mail process.
  const outsideWindow = mailCopies.filter(
    (unit) =>
      !window.mailKillsAt.some(
        (kill) => unit.completedAt !== undefined && unit.completedAt <= kill && kill - unit.completedAt <= TARGETS.windowMs,
      ),
  );
  if (outsideWindow.length > 0)
    missed.push(
      `mail duplicates outside the duplicate window: ${outsideWindow.length} (${outsideWindow
        .map((unit) => unit.key)
        .slice(0, 3)
        .join(', ')})`,
    );
  if (mailDuplicates > TARGETS.mailConcurrency * window.mailKillsAt.length)
    missed.push(`mail duplicates ${mailDuplicates} above MAIL_DELIVERY_CONCURRENCY per kill`);

  const kinds: Kind[] = ['job-post', 'batch-row', 'mail', 'push', 'application', 'booking'];
  // What the fault did, to read the row by: each kind's slowest recovery, the API's refusals during
  // the fault, unknown outcomes a late answer replaced, orders the hotel was asked to read back.
  const recoveryByKind = kinds
    .map((kind) => {
      const held = pending.filter((unit) => unit.kind === kind && unit.completedAt !== undefined);
      return held.length
        ? `${kind} ${Math.max(...held.map((unit) => ((unit.completedAt ?? window.end) - window.end) / 1000)).toFixed(1)} s`
        : '';
    })
    .filter(Boolean);
  const refusals = new Map<string, number>();
  for (const call of during) {
    if (call.status !== null && call.status < 400) continue;
    const key = `${call.method} ${call.path.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, ':id').replace(/\?.*$/, '')} ${call.status ?? 'no answer'}`;
    refusals.set(key, (refusals.get(key) ?? 0) + 1);
  }
  const replaced = units.filter((unit) => unit.unknownReplaced).length;
  const extraNotes = [
    ...(recoveryByKind.length ? [`recovery by kind: ${recoveryByKind.join(', ')}`] : []),
    ...(refusals.size
      ? [`API answers during the fault that were not 2xx/3xx: ${[...refusals].map(([key, count]) => `${key} ×${count}`).join(', ')}`]
      : []),
    ...(replaced ? [`unknown outcomes replaced by a late definite answer: ${replaced}`] : []),
    ...(window.readsByReference ? [`orders read back by reference (OTA_ReadRQ): ${window.readsByReference}`] : []),
    ...(cardsToStoreAgain.length
      ? [
          `bookings ended CvvUnavailable, nothing sent, their CVV lost with Redis' data (the client stores the card again): ${cardsToStoreAgain.length}`,
        ]
      : []),
  ];
  const perKind = kinds
    .map((kind) => {
      const ofKind = units.filter((unit) => unit.kind === kind);
      return `${kind} ${ofKind.filter((unit) => unit.completedAt !== undefined).length}/${ofKind.length}`;
    })
    .join(', ');
  return {
    name,
    accepted: units.length,
    completed: units.length - open.length - failed.length - unknown.length - cardsToStoreAgain.length,
    lost,
    duplicated: mailDuplicates + doubleCounted + extraWrites,
    stuck,
    untruthful: untruthful.length,
    unknown: unknown.length,
    exits: exits.length,
    recoveryS,
    slowestApiMs,
    unanswered,
    manual:
      stuck > 0 || lost > 0 || untruthful.length > 0
        ? 'needed'
        : [
            ...(unknown.length > 0 ? [`check ${unknown.length} unknown`] : []),
            ...(cardsToStoreAgain.length > 0 ? [`store ${cardsToStoreAgain.length} cards again`] : []),
          ].join(', ') || 'none',
    settings,
    perKind,
    notes: [
      ...window.notes,
      ...extraNotes,
      ...(unknown.length ? [`unknown outcomes: ${unknown.map((unit) => `${unit.kind} ${unit.key}`).join(', ')}`] : []),
      ...(workload.smtpFailures.length
        ? [`SMTP sends not accepted: ${workload.smtpFailures.length} (${[...new Set(workload.smtpFailures)].slice(0, 3).join(', ')})`]
        : []),
    ],
    missed,
  };
}

function describeSlowest(pending: Unit[], window: FaultWindow): string {
  const slowest = pending.reduce<Unit | undefined>(
    (worst, unit) => ((unit.completedAt ?? 0) > (worst?.completedAt ?? 0) ? unit : worst),
    undefined,
  );
  return slowest ? `${slowest.kind} ${slowest.key} done ${(((slowest.completedAt ?? 0) - window.end) / 1000).toFixed(1)} s after` : 'none';
}

export function printTable(rows: ScenarioRow[]): void {
  const header = [
    'scenario',
    'accepted',
    'completed',
    'lost',
    'duplicated',
    'stuck',
    'untruthful',
    'exits',
    'recovery',
    'slowest API',
    'manual',
    'settings changed',
  ];
  const lines = rows.map((row) => [
    row.name,
    String(row.accepted),
    String(row.completed),
    String(row.lost),
    String(row.duplicated),
    String(row.stuck),
    String(row.untruthful),
    String(row.exits),
    row.recoveryS === null ? 'never' : `${row.recoveryS.toFixed(1)} s`,
    `${row.slowestApiMs} ms${row.unanswered ? ` (${row.unanswered} cut)` : ''}`,
    row.manual,
    row.settings || 'none',
  ]);
  console.log(`| ${header.join(' | ')} |`);
  console.log(`| ${header.map(() => '---').join(' | ')} |`);
  for (const line of lines) console.log(`| ${line.join(' | ')} |`);
  console.log('');
  for (const row of rows) {
    console.log(`${row.name}: ${row.perKind}${row.notes.length ? `; ${row.notes.join('; ')}` : ''}`);
    for (const miss of row.missed) console.log(`  MISSED ${miss}`);
  }
}
