import { z } from 'zod';

/**
 * The parts of a Greenhouse job definition (`GET /v1/boards/{board}/jobs/{id}?questions=true`,
 * https://developers.greenhouse.io/job-board.html#retrieve-a-job) the transport reads.
 */
const GhField = z.object({
  name: z.string(),
  type: z.string(),
  values: z.array(z.object({ label: z.string(), value: z.unknown().optional() })).nullish(),
});
const GhQuestion = z.object({ label: z.string(), required: z.boolean().nullish(), fields: z.array(GhField) });
export const GhJob = z.object({
  questions: z.array(GhQuestion).nullish(),
  location_questions: z.array(GhQuestion).nullish(),
  compliance: z.array(z.object({ questions: z.array(GhQuestion).nullish() })).nullish(),
  demographic_questions: z
    .object({
      questions: z.array(
        z.object({
          id: z.number(),
          label: z.string(),
          required: z.boolean().nullish(),
          answer_options: z.array(z.object({ id: z.number(), label: z.string(), free_form: z.boolean().nullish() })),
        }),
      ),
    })
    .nullish(),
  data_compliance: z
    .array(
      z.object({
        requires_consent: z.boolean().nullish(),
        requires_processing_consent: z.boolean().nullish(),
        requires_retention_consent: z.boolean().nullish(),
      }),
    )
    .nullish(),
});
export type GhJob = z.infer<typeof GhJob>;
export type GhField = z.infer<typeof GhField>;

/**
 * Every field of the post's questions, location questions and EEOC compliance questions by name
 * (`question_123[]` as `question_123`, the miner's id); hidden fields included (the location's
 * coordinates are hidden fields).
 */
export function postFields(job: GhJob): Map<string, { field: GhField; label: string }> {
  const fields = new Map<string, { field: GhField; label: string }>();
  const entries = [
    ...(job.questions ?? []),
    ...(job.location_questions ?? []),
    ...(job.compliance ?? []).flatMap((block) => block.questions ?? []),
  ];
  for (const entry of entries) for (const field of entry.fields) fields.set(field.name.replace(/\[\]$/, ''), { field, label: entry.label });
  return fields;
}
