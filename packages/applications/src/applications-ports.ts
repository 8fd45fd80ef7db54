import type { Applier } from '@quarry/hosted-form-apply';
import type { Question } from '@quarry/contracts';
import type { Pool } from '@quarry/db';
import type { Sealer as KeyringSealer } from '@quarry/keyring';
import type { Enqueue } from '@quarry/jobs';
import type { JobPostToMine, Miner, MineOutcome } from '@quarry/miner';
import type { SafeFetch } from '@quarry/safe-fetch';

/**
 * Seals what identifies a candidate (the keyring's, each value bound to its row) and hashes the
 * email (keyed HMAC) so a candidate's applications are found without the address being readable.
 */
export type Sealer = KeyringSealer;

/** A post's mined questions and page, when this client mined it (recruitment's `findMinedPost`). */
export type FindMinedPost = (
  clientId: string,
  jobPostId: string,
) => Promise<{ url: string; employer: string; jobTitle: string; country: string; questions: Question[] } | null>;

/** What the API side needs: store, check, enqueue. */
export type ApplicationsPorts = {
  pool: Pool;
  sealer: Sealer;
  findMinedPost: FindMinedPost;
  enqueueApply: Enqueue<'applications.apply'>;
  /** The SSRF policy callback deliveries follow (a request's callbackUrl is checked before anything is stored); absent: callbackUrl is refused. */
  checkCallbackUrl?: (url: string) => Promise<void>;
};

/** Runs `work` within the employer host's share of the cluster-wide politeness budget. */
export type HostLimiter = <T>(host: string, work: () => Promise<T>, signal: AbortSignal) => Promise<T>;

/**
 * Records a post the job mined (it was not mined for this client) as mining records its own
 * (recruitment's `recordMinedPost`), so the client's retrieval endpoints show it.
 */
export type RecordMining = (
  post: JobPostToMine & { clientId: string; jobPostId: string },
  mined: MineOutcome,
  durationMs: number,
) => Promise<void>;

/** What the worker side needs on top: the miner (posts not mined yet) and its record, the files' fetch, the engine. */
export type RunPorts = Omit<ApplicationsPorts, 'enqueueApply'> & {
  miner: Miner;
  recordMining: RecordMining;
  applier: Applier;
  fetchFile: SafeFetch;
  limitHost: HostLimiter;
  maxFileBytes: number;
  fileTimeoutMs?: number;
  now?: () => Date;
  /** A run's lease on its application (default 30 s, renewed every third of it). */
  leaseMs?: number;
};
