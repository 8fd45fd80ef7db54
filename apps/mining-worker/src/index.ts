export { startMiningRole } from './mining-worker.role.ts';
export type { MiningRole } from './mining-worker.role.ts';
