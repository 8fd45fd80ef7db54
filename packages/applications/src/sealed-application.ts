import { Candidate, FileAnswer } from '@quarry/contracts';
import { sealedColumns } from '@quarry/keyring';
import { z } from 'zod';
import type { Sealer } from './applications-ports.ts';

/** What is sealed in an application's row: everything that identifies the candidate. */
export const SealedApplication = z.object({
  candidate: Candidate,
  files: z.object({ cv: FileAnswer, coverLetter: FileAnswer.optional() }),
  answers: z.array(z.object({ id: z.string(), value: z.unknown() })),
});
export type SealedApplication = z.infer<typeof SealedApplication>;

export const sealApplication = (sealer: Pick<Sealer, 'seal'>, applicationId: string, application: SealedApplication): Buffer =>
  sealer.seal(sealedColumns.application, applicationId, JSON.stringify(application));
export const openApplication = (sealer: Pick<Sealer, 'open'>, applicationId: string, sealed: Buffer): SealedApplication =>
  SealedApplication.parse(JSON.parse(sealer.open(sealedColumns.application, applicationId, sealed)));

export const Confirmation = z.object({ reference: z.string().optional(), text: z.string() });
export type Confirmation = z.infer<typeof Confirmation>;
