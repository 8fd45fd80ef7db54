export { createClusterLimiter } from './cluster-limiter.ts';
export type { ClusterLimiter, ClusterLimiterOptions, ClusterLimits, LimiterPriority } from './cluster-limiter.ts';
export { createFailureLimiter } from './failure-limiter.ts';
export type { FailureLimiter, FailureLimits } from './failure-limiter.ts';
