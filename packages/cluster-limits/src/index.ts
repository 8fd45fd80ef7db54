export { createClusterLimiter } from './cluster-limiter.ts';
export type { ClusterLimiter, ClusterLimiterOptions, ClusterLimits, LimiterPriority } from './cluster-limiter.ts';
