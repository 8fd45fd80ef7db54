import { randomUUID } from 'node:crypto';

/** A field of a Workday step as the tenant stores it: its key, its widget, whether it is required. */
export type DraftField = { key: string; kind: string; required: boolean };
export type DraftStep = { name: string; fields: DraftField[] };

/** A file as the tenant keeps it and an application carries it. */
export type WorkdayFile = { name: string; bytes: Buffer };

/** What Submit sent the employer: the draft's values that answer a field (files with their bytes), by field key. */
export type WorkdayApplication = { email: string; job: string; values: Record<string, unknown> };

/** A file in a draft: the attachment the upload answered with, and its name. */
type AttachmentRef = { id: string; name: string };

/** The keys a field's value is saved under: month / day / year boxes each under their own. */
const savedKeys = (field: DraftField): string[] =>
  field.kind === 'date'
    ? ['Month', 'Day', 'Year'].map((part) => `${field.key}${part}`)
    : field.kind === 'monthYear'
      ? ['Month', 'Year'].map((part) => `${field.key}${part}`)
      : [field.key];

/** Does a saved value answer the field (a tick for a checkbox, something for the rest)? */
export function answers(field: DraftField, values: Record<string, unknown>): boolean {
  if (field.kind === 'date' || field.kind === 'monthYear') return ['Month', 'Year'].every((part) => Boolean(values[`${field.key}${part}`]));
  const value = values[field.key];
  return field.kind === 'checkbox'
    ? value === true
    : value !== undefined && value !== null && value !== '' && !(Array.isArray(value) && value.length === 0);
}

/**
 * The tenant's side of "Save and Continue" (modelled; Workday's storage was not measured): per
 * account and job, one draft of the application holding what each step's last save kept, files
 * by the attachment their upload made. The draft is what the page shows again when the same
 * account opens the same job's application, and what Submit sends the employer, after which the
 * draft is gone.
 */
export function createWorkdayDrafts(steps: DraftStep[]) {
  const attachments = new Map<string, { email: string } & WorkdayFile>();
  const drafts = new Map<string, Record<string, unknown>>();
  // The steps each draft's saves kept, in the order of the application.
  const savedSteps = new Map<string, Set<string>>();
  const submitted: WorkdayApplication[] = [];
  const draftKey = (email: string, job: string) => JSON.stringify([email, job]);
  const fileField = new Set(steps.flatMap((step) => step.fields.filter((field) => field.kind === 'file').map((field) => field.key)));
  const withBytes = (email: string, refs: unknown): WorkdayFile[] =>
    (Array.isArray(refs) ? (refs as AttachmentRef[]) : []).flatMap((ref) => {
      const kept = attachments.get(ref.id);
      return kept && kept.email === email ? [{ name: kept.name, bytes: kept.bytes }] : [];
    });
  const upload = (email: string, file: WorkdayFile): string => {
    const id = `attachment-${randomUUID()}`;
    attachments.set(id, { email, ...file });
    return id;
  };
  const resolved = (email: string, values: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(values).map(([key, value]) => [key, fileField.has(key) ? withBytes(email, value) : value]));

  return {
    submitted,
    /** An upload on choose: the attachment's id, which the step's save names. */
    upload,
    /** The draft's values as the page draws them (files as their attachments), and how many steps in a row from the first it saved. */
    read(email: string, job: string): { values: Record<string, unknown>; savedSteps: number } {
      const saved = savedSteps.get(draftKey(email, job)) ?? new Set<string>();
      const inARow = steps.findIndex((step) => !saved.has(step.name));
      return { values: { ...(drafts.get(draftKey(email, job)) ?? {}) }, savedSteps: inARow === -1 ? steps.length : inARow };
    },
    /** A step's save replaces everything the draft held for that step's fields. */
    save(email: string, job: string, stepName: string, values: Record<string, unknown>): void {
      const step = steps.find((candidate) => candidate.name === stepName);
      if (!step) return;
      const stepKeys = new Set(step.fields.flatMap(savedKeys));
      const others = Object.entries(drafts.get(draftKey(email, job)) ?? {}).filter(([key]) => !stepKeys.has(key));
      const saved = Object.entries(values).filter(([key]) => stepKeys.has(key));
      drafts.set(draftKey(email, job), Object.fromEntries([...others, ...saved]));
      savedSteps.set(draftKey(email, job), new Set([...(savedSteps.get(draftKey(email, job)) ?? []), stepName]));
    },
    /** Submit: the draft's answers become the application the employer receives; the draft is gone. */
    submit(email: string, job: string): WorkdayApplication {
      const draft = drafts.get(draftKey(email, job)) ?? {};
      drafts.delete(draftKey(email, job));
      savedSteps.delete(draftKey(email, job));
      const values: Record<string, unknown> = {};
      for (const field of steps.flatMap((step) => step.fields)) {
        if (!answers(field, draft)) continue;
        for (const key of savedKeys(field)) if (key in draft) values[key] = draft[key];
      }
      const application = { email, job, values: resolved(email, values) };
      submitted.push(application);
      return application;
    },
    /** The account's draft of the job with its files' names and bytes, or undefined when it has none. */
    draftOf(email: string, job: string): Record<string, unknown> | undefined {
      const draft = drafts.get(draftKey(email, job));
      return draft ? resolved(email, draft) : undefined;
    },
    /**
     * What an earlier attempt saved (a person who began the application, an application stopped
     * part-way): values over the draft's, files listed after the ones it holds.
     */
    keep(email: string, job: string, values: Record<string, unknown>, files: Record<string, WorkdayFile[]> = {}): void {
      const draft = { ...(drafts.get(draftKey(email, job)) ?? {}), ...values };
      for (const [key, list] of Object.entries(files)) {
        const refs = list.map((file) => ({ id: upload(email, file), name: file.name }));
        draft[key] = [...(Array.isArray(draft[key]) ? (draft[key] as AttachmentRef[]) : []), ...refs];
      }
      drafts.set(draftKey(email, job), draft);
    },
  };
}
