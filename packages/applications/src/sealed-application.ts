import { Candidate, FileAnswer } from '@quarry/contracts';
import { z } from 'zod';
import type { Sealer } from './applications-ports.ts';

/** What is sealed in an application's row: everything that identifies the candidate. */
export const SealedApplication = z.object({
  candidate: Candidate,
  files: z.object({ cv: FileAnswer, coverLetter: FileAnswer.optional() }),
  answers: z.array(z.object({ id: z.string(), value: z.unknown() })),
});
export type SealedApplication = z.infer<typeof SealedApplication>;

export const sealApplication = (sealer: Sealer, application: SealedApplication): Buffer => sealer.seal(JSON.stringify(application));
export const openApplication = (sealer: Sealer, sealed: Buffer): SealedApplication => SealedApplication.parse(JSON.parse(sealer.open(sealed)));

export const Confirmation = z.object({ reference: z.string().optional(), text: z.string() });
export type Confirmation = z.infer<typeof Confirmation>;
