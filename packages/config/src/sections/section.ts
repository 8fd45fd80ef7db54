import { z } from 'zod';

/** What a section's reader receives: its variables as its schema parses them. */
export type VariablesOf<Shape extends z.ZodRawShape> = z.output<z.ZodObject<Shape>>;

/**
 * One section of the settings: the variables it declares (each variable is declared by exactly one
 * section), the variables of other sections it also reads (`borrowed`, taken from their owners'
 * declarations, possibly made optional), and its reader. The settings' type is the reader's.
 */
export type Section<Own extends z.ZodRawShape, Borrowed extends z.ZodRawShape, Settings extends object> = {
  readonly variables: Own;
  readonly borrowed: Borrowed;
  /** Parses what the section reads from `env` (unset variables absent), then reads it into settings. */
  readonly parse: (env: Record<string, string>) => { ok: true; read: () => Settings } | { ok: false; problems: string[] };
};

export function defineSection<Own extends z.ZodRawShape, Borrowed extends z.ZodRawShape, Settings extends object>(
  variables: Own,
  borrowed: Borrowed,
  read: (vars: VariablesOf<Borrowed & Own>) => Settings,
): Section<Own, Borrowed, Settings> {
  const schema = z.object({ ...borrowed, ...variables });
  return {
    variables,
    borrowed,
    parse: (env) => {
      const parsed = schema.safeParse(env);
      if (!parsed.success) return { ok: false, problems: parsed.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`) };
      const vars: VariablesOf<Borrowed & Own> = parsed.data;
      return { ok: true, read: () => read(vars) };
    },
  };
}

export const port = z.coerce.number().int().min(0).max(65_535);
export const positiveMs = z.coerce.number().int().positive();
export const trueOrFalse = z.enum(['true', 'false'], { error: 'must be true or false' });
