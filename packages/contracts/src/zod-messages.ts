import type { z } from 'zod';

/** Turns zod issues into one message per problem, each naming its field: `nights: Required`. */
export function describeIssues(error: z.ZodError, prefix = ''): string[] {
  return error.issues.map((issue) => {
    const path = issue.path.map(String).join('.');
    const where = [prefix, path].filter(Boolean).join(' ');
    return where ? `${where}: ${issue.message}` : issue.message;
  });
}
