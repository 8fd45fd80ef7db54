// `npm run faults [-- <scenario>… | --quick | --list]`: every role as its own process against a
// private PostgreSQL and Redis, real work through them, one fault per scenario; prints one row per
// scenario and exits 1 naming every target missed. Not part of `npm test` (about 20 minutes).
import { parseArgs } from 'node:util';
import { startFaultCluster } from './fault-cluster.ts';
import { printTable, scenarioRow, type ScenarioRow } from './report.ts';
import { scenarios, type Scenario } from './scenarios.ts';
import { createWorkload } from './workload.ts';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
/** Load before the fault (a batch under way, messages and pushes flowing) and after it ends. */
const WARMUP_MS = 8_000;
const LOAD_AFTER_MS = 8_000;
/** How long after the fault accepted work may take to finish before it counts as stuck. */
const DRAIN_MS = 120_000;
/** How long after the fault an unknown outcome may still be replaced by a definite one before it counts. */
const UNKNOWN_SETTLE_MS = 30_000;

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { quick: { type: 'boolean', default: false }, list: { type: 'boolean', default: false } },
});
if (values.list) {
  for (const scenario of scenarios) console.log(`${scenario.name}${scenario.quick ? ' (quick)' : ''}`);
  process.exit(0);
}
const unknown = positionals.filter((name) => !scenarios.some((scenario) => scenario.name === name));
if (unknown.length > 0) {
  console.error(`unknown scenario ${unknown.join(', ')}; available: ${scenarios.map((scenario) => scenario.name).join(', ')}`);
  process.exit(2);
}
const selected = scenarios.filter((scenario) =>
  positionals.length > 0 ? positionals.includes(scenario.name) : !values.quick || scenario.quick,
);

console.log(`faults: starting private PostgreSQL and Redis and every role twice (${selected.length} scenarios)`);
const cluster = await startFaultCluster();
// Interrupted: the processes, stores and network namespaces go too.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void cluster.stop().finally(() => process.exit(130)));
const rows: ScenarioRow[] = [];
let mailSettings = '';

async function runScenario(scenario: Scenario): Promise<ScenarioRow> {
  const settings = Object.entries(scenario.mailEnv ?? {})
    .map(([name, value]) => `${name}=${value}`)
    .join(' ');
  if (settings !== mailSettings) {
    await cluster.restartMail(scenario.mailEnv ?? {});
    mailSettings = settings;
  }
  await cluster.allReady();
  const exitsBefore = cluster.exits.length;
  const workload = createWorkload(cluster, scenario.name.replace(/[^a-z0-9]/g, ''));
  workload.start();
  const intake = await workload.batch('b', 40);
  if (intake !== 200) throw new Error(`${scenario.name}: the batch before the fault answered ${intake}`);
  await sleep(WARMUP_MS);
  const rowsInFlight = await workload.rowsInFlight();
  console.log(`${scenario.name}: fault`);
  const readsBefore = cluster.hotel.requests.get('OTA_ReadRQ') ?? 0;
  const window = await scenario.inject(cluster, workload);
  await sleep(LOAD_AFTER_MS);
  await workload.stop();
  // An unknown outcome of a run that lived on (paused, cut off) is replaced by its late answer: waited for a while.
  await workload.drain(window.end + DRAIN_MS, window.end + UNKNOWN_SETTLE_MS);
  window.readsByReference = (cluster.hotel.requests.get('OTA_ReadRQ') ?? 0) - readsBefore;
  const row = await scenarioRow(scenario.name, workload, window, rowsInFlight, cluster.exits.slice(exitsBefore), settings);
  console.log(`${scenario.name}: ${row.missed.length === 0 ? 'every target met' : `MISSED ${row.missed.join('; ')}`}`);
  return row;
}

try {
  for (const scenario of selected) rows.push(await runScenario(scenario));
} finally {
  await cluster.stop();
}
console.log('');
printTable(rows);
const missed = rows.filter((row) => row.missed.length > 0);
if (missed.length > 0) {
  console.error(`\nfaults: targets missed in ${missed.map((row) => row.name).join(', ')}`);
  process.exit(1);
}
console.log('\nfaults: every target met');
