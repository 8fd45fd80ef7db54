import { isoDate } from './vendor-transport.ts';

/** A field of an Ashby form definition, as jobPosting.info gives it. */
export type AshbyField = {
  path: string;
  title?: string | null;
  type: string;
  selectableValues?: Array<{ label: string; value: string }> | null;
};

type Encoded = { kind: 'value'; value: unknown } | { kind: 'invalid'; reason: string } | { kind: 'undocumented' };

const value = (encoded: unknown): Encoded => ({ kind: 'value', value: encoded });
const invalid = (reason: string): Encoded => ({ kind: 'invalid', reason });

/** An option's value from the label the candidate chose (the mined form keeps labels). */
function optionValue(field: AshbyField, label: unknown): string | null {
  const option = (field.selectableValues ?? []).find(
    (candidate) => candidate.label.trim().toLowerCase() === String(label).trim().toLowerCase(),
  );
  return option ? option.value : null;
}

const booleanOf = (answer: unknown): boolean | null =>
  typeof answer === 'boolean' ? answer : /^(yes|true)$/i.test(String(answer)) ? true : /^(no|false)$/i.test(String(answer)) ? false : null;

/**
 * A Location answer (one text box on the hosted form) as the object the reference takes:
 * "City, Region, Country", "City, Country" or a single place Ashby geocodes ("You may provide any
 * combination of these properties and we will attempt to geocode the location").
 */
function locationOf(answer: string): Record<string, string> {
  const parts = answer
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  if (parts.length >= 3) return { city: parts[0] ?? '', region: parts.slice(1, -1).join(', '), country: parts.at(-1) ?? '' };
  if (parts.length === 2) return { city: parts[0] ?? '', country: parts[1] ?? '' };
  return { city: answer.trim() };
}

const educationKeys = new Set(['schoolName', 'degree', 'major', 'startDate', 'endDate', 'isCurrent']);

/** An EducationHistory answer (a list of entries, each a list of `<path>.<key>` parts) as `[{schoolName, …}]`. */
function educationOf(field: AshbyField, answer: unknown): Encoded {
  if (!Array.isArray(answer)) return invalid('a list of schools is expected');
  const schools: Array<Record<string, unknown>> = [];
  for (const entry of answer) {
    const school: Record<string, unknown> = {};
    for (const part of Array.isArray(entry) ? (entry as Array<{ id?: unknown; value?: unknown }>) : []) {
      const key = String(part.id ?? '').slice(field.path.length + 1);
      if (!educationKeys.has(key)) return invalid(`"${String(part.id)}" is not a part of an education entry`);
      if (part.value === undefined || part.value === null || part.value === '') continue;
      school[key] = key.endsWith('Date') ? isoDate(part.value) : key === 'isCurrent' ? booleanOf(part.value) : String(part.value);
    }
    if (typeof school['schoolName'] !== 'string') return invalid('every school needs its name');
    schools.push(school);
  }
  return value(schools);
}

/**
 * An answer in the value applicationForm.submit documents for its field's type
 * (https://developers.ashbyhq.com/reference/applicationformsubmit): "undocumented" for a type the
 * reference lists no value for, which the hosted form must carry instead. LongText and Url are
 * not in that list but are text boxes on the hosted form (measured): they are sent as strings,
 * like String, and the double accepts that; the reference is silent on them.
 */
export function ashbyValue(field: AshbyField, answer: unknown): Encoded {
  switch (field.type) {
    case 'String':
    case 'Phone':
    case 'Email':
    case 'LongText':
    case 'Url':
      return typeof answer === 'string' || typeof answer === 'number' ? value(String(answer)) : invalid('text is expected');
    case 'Boolean': {
      const flag = booleanOf(answer);
      return flag === null ? invalid(`"${String(answer)}" is not yes or no`) : value(flag);
    }
    case 'Date':
      return value(isoDate(answer));
    case 'Number': {
      const number = Number(answer);
      return Number.isInteger(number) ? value(number) : invalid(`"${String(answer)}" is not a whole number (Ashby takes an integer)`);
    }
    case 'RichText':
      // "We do not support submitting rich text documents via the API but we do support … plain text values".
      return typeof answer === 'string' ? value({ type: 'PlainText', value: answer }) : invalid('text is expected');
    case 'Score': {
      const score = Number(answer);
      return Number.isInteger(score) && score >= 1 && score <= 4
        ? value({ score })
        : invalid(`"${String(answer)}" is not a score from 1 to 4`);
    }
    case 'ValueSelect': {
      const option = optionValue(field, answer);
      return option === null ? invalid(`"${String(answer)}" is not an option of "${field.title ?? field.path}"`) : value(option);
    }
    case 'MultiValueSelect': {
      const chosen = (Array.isArray(answer) ? answer : [answer]).map((choice) => [choice, optionValue(field, choice)] as const);
      const unknown = chosen.filter(([, option]) => option === null).map(([choice]) => `"${String(choice)}"`);
      return unknown.length > 0
        ? invalid(`${unknown.join(', ')} not an option of "${field.title ?? field.path}"`)
        : value(chosen.map(([, option]) => option));
    }
    case 'Location':
      return typeof answer === 'string' ? value(locationOf(answer)) : invalid('a place is expected');
    case 'EducationHistory':
      return educationOf(field, answer);
    default:
      return { kind: 'undocumented' };
  }
}
