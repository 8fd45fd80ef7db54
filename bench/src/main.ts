// `npm run bench -- <name>`: benchmark scripts that print a table. Never run as tests.
import { parseArgs } from 'node:util';
import { benchApply } from './apply.bench.ts';
import { benchApplyAccuracy } from './apply-accuracy.bench.ts';
import { benchBatchIntake } from './batch-intake.bench.ts';
import { benchBookings } from './bookings.bench.ts';
import { benchBrowserThroughput } from './browser-throughput.bench.ts';
import { benchCallbacks } from './callbacks.bench.ts';
import { benchHttp } from './http.bench.ts';
import { benchMailboxes } from './mailboxes.bench.ts';
import { benchMiningAccuracy } from './mining-accuracy.bench.ts';
import { benchMiningThroughput } from './mining-throughput.bench.ts';
import { benchQuestions } from './questions.bench.ts';
import { benchRates } from './rates.bench.ts';
import { benchScaleOut } from './scale-out.bench.ts';
import { benchSmtp } from './smtp.bench.ts';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    runs: { type: 'string' },
    // mailboxes: the accounts watched, the messages appended across them, and the append pace.
    accounts: { type: 'string', default: '1000' },
    messages: { type: 'string', default: '10000' },
    rate: { type: 'string', default: '250' },
    // smtp: a main.cf setting for the Postfix reference, `name=value`; repeatable.
    'postfix-setting': { type: 'string', multiple: true, default: [] },
    // apply-accuracy: only the rows of these ATSs (repeatable), and of this transport.
    ats: { type: 'string', multiple: true, default: [] },
    transport: { type: 'string' },
    // scale-out: the CPU each host may use, the most hosts, and the roles (repeatable).
    quota: { type: 'string', default: '0.4' },
    hosts: { type: 'string', default: '4' },
    roles: { type: 'string', multiple: true, default: [] },
    // rates: only these parts (pull, push, cold), repeatable; all by default.
    only: { type: 'string', multiple: true, default: [] },
  },
});
const benches: Record<string, () => Promise<void>> = {
  // As many applications in flight as a browser pool of five contexts allows.
  apply: () => benchApply({ seconds: Math.max(20, Number(values.seconds)), concurrency: 5 }),
  http: () => benchHttp({ seconds: Number(values.seconds), connections: Number(values.connections), runs: Number(values.runs ?? 3) }),
  'batch-intake': () => benchBatchIntake({ runs: Number(values.runs ?? 3) }),
  // 20,000 events for throughput; 500 events/s for 20 s for latency (the target's rate).
  callbacks: () => benchCallbacks({ events: 20_000, rate: 500, seconds: Math.max(20, Number(values.seconds)) }),
  bookings: () =>
    benchBookings({ seconds: Math.max(10, Number(values.seconds)), connections: Number(values.connections), concurrency: 64 }),
  // One mail process watching every account; APPEND paced above the 200 messages/s target.
  mailboxes: () =>
    benchMailboxes({ accounts: Number(values.accounts), messages: Number(values.messages), rate: Number(values.rate), appenders: 25 }),
  questions: () => benchQuestions({ seconds: Number(values.seconds), connections: Number(values.connections) }),
  rates: () => benchRates({ seconds: Number(values.seconds), connections: Number(values.connections), parts: values.only }),
  // One run by default: each takes about a minute (Quarry, then Postfix, in both modes).
  smtp: () =>
    benchSmtp({
      messages: 10_000,
      sessions: 20,
      bytes: 10_240,
      processes: 1,
      runs: Number(values.runs ?? 1),
      postfixSettings: postfixSettings(values['postfix-setting']),
    }),
  'apply-accuracy': () => benchApplyAccuracy({ ats: values.ats, ...(values.transport ? { transport: values.transport } : {}) }),
  'mining-accuracy': () => benchMiningAccuracy(),
  'scale-out': () =>
    benchScaleOut({
      seconds: Math.max(10, Number(values.seconds)),
      quota: Number(values.quota),
      maxHosts: Number(values.hosts),
      roles: values.roles.length > 0 ? values.roles : ['mining', 'bookings', 'mail'],
    }),
  'mining-throughput': async () => {
    await benchMiningThroughput({ seconds: Number(values.seconds) });
    // As many forms in flight as production's BROWSER_CONTEXTS allows by default.
    await benchBrowserThroughput({ seconds: Math.max(20, Number(values.seconds)), concurrency: 5 });
  },
};

function postfixSettings(pairs: string[]): Record<string, string> {
  return Object.fromEntries(
    pairs.map((pair) => {
      const match = /^([a-z0-9_]+)=(.*)$/.exec(pair);
      if (!match) throw new Error(`--postfix-setting wants name=value, got "${pair}"`);
      return [match[1], match[2]];
    }),
  );
}

const selected = positionals.length > 0 ? positionals : Object.keys(benches);
for (const name of selected) {
  const bench = benches[name];
  if (!bench) {
    console.error(`unknown bench "${name}"; available: ${Object.keys(benches).join(', ')}`);
    process.exit(2);
  }
  await bench();
}
