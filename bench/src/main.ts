// `npm run bench -- <name>`: benchmark scripts that print a table. Never run as tests.
import { parseArgs } from 'node:util';
import { benchHttp } from './http.bench.ts';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { seconds: { type: 'string', default: '10' }, connections: { type: 'string', default: '50' } },
});
const benches: Record<string, () => Promise<void>> = {
  http: () => benchHttp({ seconds: Number(values.seconds), connections: Number(values.connections) }),
};
const selected = positionals.length > 0 ? positionals : Object.keys(benches);
for (const name of selected) {
  const bench = benches[name];
  if (!bench) {
    console.error(`unknown bench "${name}"; available: ${Object.keys(benches).join(', ')}`);
    process.exit(2);
  }
  await bench();
}
