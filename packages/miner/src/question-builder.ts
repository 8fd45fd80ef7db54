import type { Question } from '@quarry/contracts';
import { load } from 'cheerio/slim';
import { categorize } from './question-categories.ts';

type Category = NonNullable<Question['category']>;
type InputType = Question['inputType'];

export type QuestionSpec = {
  id: string;
  question: string;
  inputType: InputType;
  label: string;
  mandatory: boolean;
  /** An explicit category (from the vendor's field name); `null` means "never guess one". */
  category?: Category | null | undefined;
  /** Vendor field name, used as a categorisation hint when no explicit category is given. */
  name?: string | undefined;
  options?: Question['options'] | undefined;
  value?: string | undefined;
  accept?: string[] | undefined;
};

/** Whitespace collapsed and trimmed: vendor labels carry newlines, NBSPs and trailing spaces. */
export function cleanText(text: string): string {
  return text.replace(/[\s\u00a0]+/g, ' ').trim();
}

/** The visible text of an HTML fragment (vendor descriptions, labels with markup). */
export function htmlToText(html: string): string {
  return cleanText(load(`<div>${html}</div>`)('div').first().text());
}

/**
 * One question in the contract's shape, without undefined keys (goldens compare exact JSON), with a
 * category from the explicit vendor mapping when there is one, else from the words.
 */
export function buildQuestion(spec: QuestionSpec): Question {
  const category = spec.category === null ? undefined : (spec.category ?? categorize({ label: spec.question, name: spec.name }));
  const question: Question = {
    id: spec.id,
    question: cleanText(spec.question),
    inputType: spec.inputType,
    label: cleanText(spec.label),
    mandatory: spec.mandatory,
  };
  if (category) question.category = category;
  if (spec.options !== undefined) question.options = spec.options;
  if (spec.value !== undefined) question.value = spec.value;
  if (spec.accept !== undefined && spec.accept.length > 0) question.accept = spec.accept;
  return question;
}

/** Select options from their answer texts (blank ones dropped, each without conditional questions yet). */
export function choices(answers: Array<string | null | undefined>): Array<{ answer: string; conditionalQuestions: Question[] }> {
  return answers
    .map((answer) => cleanText(answer ?? ''))
    .filter((answer) => answer.length > 0)
    .map((answer) => ({ answer, conditionalQuestions: [] }));
}

/** A comma-separated extension list ("pdf, .docx") as `accept` entries (".pdf", ".docx"). */
export function extensions(list: Array<string | null | undefined>): string[] {
  return list
    .flatMap((entry) => (entry ?? '').split(','))
    .map((entry) => entry.trim().toLowerCase())
    .filter((entry) => entry.length > 0)
    .map((entry) => (entry.startsWith('.') || entry.includes('/') ? entry : `.${entry}`));
}
