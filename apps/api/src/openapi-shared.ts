import { QuestionsErrorBodySchema, StandardErrorBodySchema } from '@quarry/contracts';

export const securedBy: Array<Record<string, string[]>> = [{ basic: [] }, { bearer: [] }];

const statusDescriptions: Record<number, string> = {
  400: 'Invalid request; details.messages names each problem',
  401: 'Missing or invalid credential',
  403: 'The credential lacks the scope this endpoint needs',
  404: 'Not found (or not yours)',
  409: 'Conflict',
  413: 'Body too large',
  415: 'Unsupported Content-Type',
  500: 'Unexpected error; retry later',
  503: 'Service unavailable; retry later',
};

/** OpenAPI responses for error statuses, in the standard body shape or the question-retrieval one. */
export function errorResponses(statuses: number[], shape: 'standard' | 'questions' = 'standard') {
  const schema = shape === 'standard' ? StandardErrorBodySchema : QuestionsErrorBodySchema;
  return Object.fromEntries(
    statuses.map((status) => [status, { description: statusDescriptions[status] ?? 'Error', content: { 'application/json': { schema } } }]),
  );
}
