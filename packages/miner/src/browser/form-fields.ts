import type { Question } from '@quarry/contracts';
import { categorize } from '../question-categories.ts';

/** One control as the page script reports it (page-scripts/snapshot-form.js). */
export type RawField = {
  order: number;
  frameUrl: string;
  tag: string;
  type: string;
  role: string;
  id: string;
  name: string;
  autocomplete: string;
  label: string;
  groupLabel: string;
  groupKey: string;
  section: string;
  required: boolean;
  optional: boolean;
  multiple: boolean;
  accept: string;
  value: string;
  options: string[];
  listboxId: string;
  combobox: boolean;
  selector: string;
};

export type FormSnapshot = { fields: RawField[]; text: string };

/** A key that survives re-rendering and re-mining: name, else id, else the label and section. */
export function fieldKey(field: RawField): string {
  if (field.groupKey) return field.groupKey;
  return field.name || field.id || `${field.section}/${field.label}`;
}

function questionId(key: string): string {
  return key.replace(/^group:/, '').replace(/[^A-Za-z0-9_.:[\]-]+/g, '_').slice(0, 120) || 'field';
}

/**
 * Turns a page's controls into questions: radio and checkbox groups become one SelectOne or
 * SelectMultiple question, a lone checkbox a Boolean, comboboxes a SelectOne with the options
 * read from their listbox.
 */
export function fieldsToQuestions(fields: RawField[], defaultLabel: string): { questions: Question[]; byKey: Map<string, Question> } {
  const questions: Question[] = [];
  const byKey = new Map<string, Question>();
  const groups = new Map<string, { question: Question; members: RawField[] }>();
  const counts = new Map<string, number>();
  const uniqueId = (key: string) => {
    const count = counts.get(key) ?? 0;
    counts.set(key, count + 1);
    return count === 0 ? questionId(key) : `${questionId(key)}_${count + 1}`;
  };

  const checkable = (field: RawField) => field.type === 'radio' || field.type === 'checkbox' || field.role === 'radio' || field.role === 'checkbox';
  const siblingsOf = (field: RawField) => fields.filter((other) => checkable(other) && fieldKey(other) === fieldKey(field));

  for (const field of fields) {
    const label = field.section || defaultLabel;
    if (checkable(field)) {
      const members = field.groupKey ? siblingsOf(field) : [field];
      const radio = field.type === 'radio' || field.role === 'radio';
      if (!radio && members.length === 1) {
        const category = categorize({ label: field.label, name: field.name });
        const question: Question = { id: uniqueId(fieldKey(field)), question: field.label, inputType: 'Boolean', label, mandatory: field.required, ...(category ? { category } : {}) };
        questions.push(question);
        byKey.set(fieldKey(field), question);
        continue;
      }
      const key = fieldKey(field);
      const existing = groups.get(key);
      if (existing) {
        existing.members.push(field);
        continue;
      }
      const text = field.groupLabel || field.label;
      const category = categorize({ label: text, name: field.name });
      const question: Question = {
        id: uniqueId(key),
        question: text,
        inputType: radio ? 'SelectOne' : 'SelectMultiple',
        label,
        mandatory: members.some((member) => member.required),
        ...(category ? { category } : {}),
        options: [],
      };
      groups.set(key, { question, members: [field] });
      questions.push(question);
      byKey.set(key, question);
      continue;
    }
    const category = categorize({ label: field.label, name: field.name, autocomplete: field.autocomplete, type: field.type });
    const before = questions.length;
    const base = { id: uniqueId(fieldKey(field)), question: field.label, label, mandatory: field.required && !field.optional, ...(category ? { category } : {}) };
    if (field.tag === 'select' || field.combobox) {
      questions.push({
        ...base,
        inputType: field.multiple ? 'SelectMultiple' : 'SelectOne',
        options: field.options.map((answer) => ({ answer, conditionalQuestions: [] })),
      });
    } else if (field.tag === 'textarea' || field.tag !== 'input') {
      questions.push({ ...base, inputType: 'TextArea' });
    } else if (field.type === 'file') {
      const accept = field.accept.split(',').map((entry) => entry.trim()).filter(Boolean);
      questions.push({ ...base, inputType: 'File', ...(accept.length > 0 ? { accept } : {}) });
    } else if (field.type === 'date' || field.type === 'datetime-local' || field.type === 'month') {
      questions.push({ ...base, inputType: 'Date' });
    } else {
      questions.push({ ...base, inputType: 'Text' });
    }
    if (questions.length > before) byKey.set(fieldKey(field), questions[questions.length - 1] as Question);
  }
  for (const { question, members } of groups.values()) {
    question.options = members.map((member) => ({ answer: member.label || member.value, conditionalQuestions: [] }));
  }
  return { questions, byKey };
}
