export { startMiningRole } from './mining-role.ts';
export type { MiningRole } from './mining-role.ts';
