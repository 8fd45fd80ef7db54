export { createClusterLimiter } from './cluster-limiter.ts';
export type { ClusterLimiter, ClusterLimiterOptions, ClusterLimits } from './cluster-limiter.ts';
