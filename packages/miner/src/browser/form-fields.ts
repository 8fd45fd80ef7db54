import type { Question } from '@quarry/contracts';
import type { Frame } from 'playwright-core';
import { isPlaceholderOption } from '../generic-form-rules.ts';
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
  /** Label of the repeatable group ("Add another") this control is one instance of, or ''. */
  repeatGroup: string;
  /** Label of the question this control is one part of (a date as month + year), or ''. */
  fragment: string;
  fragmentRequired: boolean;
};

/** What the page script reads of one frame (page-scripts/snapshot-form.js). */
export type FrameSnapshot = {
  fields: RawField[];
  text: string;
  /** Password boxes in the frame, and how many of them are visible: what decides a login wall. */
  passwords: number;
  visiblePasswords: number;
};

/** The controls of every frame of a page, joined in frame order. */
export type FormSnapshot = FrameSnapshot & {
  /** Each frame's own read, so a probe can read again only the frame it changed. */
  byFrame: Map<Frame, FrameSnapshot>;
};

/** A key that survives re-rendering and re-mining: name, else id, else the label and section. */
export function fieldKey(field: RawField): string {
  if (field.groupKey) return field.groupKey;
  if (field.tag === 'literal') return `literal:${field.id || field.label.slice(0, 60)}`;
  return field.name || field.id || `${field.section}/${field.label}`;
}

/** Field names of a repeatable instance (`experience[0][company]`) name the sub-question (`company`). */
function subQuestionKey(field: RawField): string {
  const name = field.name || field.id;
  const bracketed = /\[([^\]]+)\]$/.exec(name);
  return bracketed?.[1] ?? name.replace(/^.*?[_-]\d+[_-]/, '') ?? name;
}

/**
 * Folds repeatable groups into one ArrayOfObjects question and split questions into one
 * FragmentedQuestion, each with its parts as options, at the position of its first part.
 */
export function fieldsToQuestions(fields: RawField[], defaultLabel: string): { questions: Question[]; byKey: Map<string, Question> } {
  const flat = flatQuestions(
    fields.filter((field) => !field.repeatGroup && !field.fragment),
    defaultLabel,
  );
  const composite = new Map<string, { kind: 'repeat' | 'fragment'; fields: RawField[] }>();
  for (const field of fields) {
    if (field.repeatGroup) {
      const key = `repeat:${field.repeatGroup}`;
      composite.set(key, { kind: 'repeat', fields: [...(composite.get(key)?.fields ?? []), field] });
    } else if (field.fragment) {
      const key = `fragment:${field.fragment}`;
      composite.set(key, { kind: 'fragment', fields: [...(composite.get(key)?.fields ?? []), field] });
    }
  }
  if (composite.size === 0) return flat;
  const positioned: Array<{ order: number; question: Question }> = flat.questions.map((question) => ({
    order: fields.find((field) => flat.byKey.get(fieldKey(field)) === question)?.order ?? 0,
    question,
  }));
  for (const [key, entry] of composite) {
    const first = entry.fields[0] as RawField;
    const title = entry.kind === 'repeat' ? first.repeatGroup : first.fragment;
    const parts = flatQuestions(
      entry.fields.map((field) => (entry.kind === 'repeat' ? { ...field, name: subQuestionKey(field), id: '' } : field)),
      defaultLabel,
    ).questions;
    const question: Question = {
      id: compositeId(key),
      question: title,
      inputType: entry.kind === 'repeat' ? 'ArrayOfObjects' : 'FragmentedQuestion',
      label: first.section || defaultLabel,
      mandatory:
        entry.kind === 'fragment' ? first.fragmentRequired || parts.some((part) => part.mandatory) : parts.some((part) => part.mandatory),
      options: parts,
    };
    const category = categorize({ label: title });
    if (category) question.category = category;
    positioned.push({ order: first.order, question });
    flat.byKey.set(key, question);
  }
  positioned.sort((a, b) => a.order - b.order);
  return { questions: positioned.map((entry) => entry.question), byKey: flat.byKey };
}

/** A repeatable group's or split question's id: its title as a slug. */
function compositeId(key: string): string {
  return (
    key
      .replace(/^(repeat|fragment):/, '')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/^_|_$/g, '') || key
  );
}

/** Where a question is on the page: its controls and, for a repeatable group or a split question, each instance's parts by id. */
export type LocatedQuestion = { question: Question; fields: RawField[]; instances: Array<Map<string, LocatedQuestion>> };

/**
 * The page's controls by question id, named exactly as fieldsToQuestions names them, so that the
 * ids the miner handed out find their controls again when the form is filled. The instances of a
 * repeatable group (`experience[0][company]`, `experience[1][company]`) are told apart by what
 * their names share before the part's own key, else by order, and each names its parts as the
 * first instance did when it was mined.
 */
export function locateQuestions(fields: RawField[]): Map<string, LocatedQuestion> {
  const byId = (flat: ReturnType<typeof flatQuestions>) => {
    const located = new Map<string, LocatedQuestion>();
    for (const [question, own] of flat.fieldsOf) located.set(question.id, { question, fields: own, instances: [] });
    return located;
  };
  const located = byId(
    flatQuestions(
      fields.filter((field) => !field.repeatGroup && !field.fragment),
      '',
    ),
  );
  const composite = new Map<string, RawField[]>();
  for (const field of fields) {
    const key = field.repeatGroup ? `repeat:${field.repeatGroup}` : field.fragment ? `fragment:${field.fragment}` : null;
    if (key) composite.set(key, [...(composite.get(key) ?? []), field]);
  }
  const { questions } = fieldsToQuestions(fields, '');
  for (const [key, members] of composite) {
    const question = questions.find(
      (candidate) =>
        candidate.id === compositeId(key) && candidate.inputType === (key.startsWith('repeat:') ? 'ArrayOfObjects' : 'FragmentedQuestion'),
    );
    if (!question) continue;
    if (key.startsWith('fragment:')) {
      located.set(question.id, { question, fields: members, instances: [byId(flatQuestions(members, ''))] });
      continue;
    }
    const instances = new Map<string, RawField[]>();
    const seen = new Map<string, number>();
    for (const field of members) {
      const part = subQuestionKey(field);
      const name = field.name || field.id;
      let instance: string;
      if (name.endsWith(`[${part}]`)) instance = name.slice(0, name.length - part.length - 2);
      else if (name !== part && name.endsWith(part)) instance = name.slice(0, name.length - part.length);
      else {
        instance = `#${seen.get(part) ?? 0}`;
        seen.set(part, (seen.get(part) ?? 0) + 1);
      }
      instances.set(instance, [...(instances.get(instance) ?? []), { ...field, name: part, id: '' }]);
    }
    located.set(question.id, {
      question,
      fields: members,
      instances: [...instances.values()].map((instance) => byId(flatQuestions(instance, ''))),
    });
  }
  return located;
}

function questionId(key: string): string {
  return (
    key
      .replace(/^group:/, '')
      .replace(/[^A-Za-z0-9_.:[\]-]+/g, '_')
      .slice(0, 120) || 'field'
  );
}

/**
 * Turns a page's controls into questions: radio and checkbox groups become one SelectOne or
 * SelectMultiple question, a lone checkbox a Boolean, comboboxes a SelectOne with the options
 * read from their listbox.
 */
function flatQuestions(
  fields: RawField[],
  defaultLabel: string,
): { questions: Question[]; byKey: Map<string, Question>; fieldsOf: Map<Question, RawField[]> } {
  const questions: Question[] = [];
  const byKey = new Map<string, Question>();
  const fieldsOf = new Map<Question, RawField[]>();
  const groups = new Map<string, { question: Question; members: RawField[] }>();
  const counts = new Map<string, number>();
  const uniqueId = (key: string) => {
    const count = counts.get(key) ?? 0;
    counts.set(key, count + 1);
    return count === 0 ? questionId(key) : `${questionId(key)}_${count + 1}`;
  };

  const checkable = (field: RawField) =>
    field.type === 'radio' || field.type === 'checkbox' || field.role === 'radio' || field.role === 'checkbox';
  const siblingsOf = (field: RawField) => fields.filter((other) => checkable(other) && fieldKey(other) === fieldKey(field));

  for (const field of fields) {
    const label = field.section || defaultLabel;
    if (checkable(field)) {
      // Controls sharing a name are one question whatever wraps them (checkboxes named
      // `skills[]` without a fieldset): the HTML extractor and the form submission both see one.
      const members = field.groupKey
        ? siblingsOf(field)
        : field.name
          ? fields.filter((other) => checkable(other) && other.name === field.name)
          : [field];
      const radio = field.type === 'radio' || field.role === 'radio';
      if (!radio && members.length === 1) {
        const category = categorize({ label: field.label, name: field.name });
        const question: Question = {
          id: uniqueId(fieldKey(field)),
          question: field.label,
          inputType: 'Boolean',
          label,
          mandatory: field.required,
          ...(category ? { category } : {}),
        };
        questions.push(question);
        byKey.set(fieldKey(field), question);
        fieldsOf.set(question, [field]);
        continue;
      }
      const key = fieldKey(field);
      const existing = groups.get(key);
      if (existing) {
        existing.members.push(field);
        fieldsOf.get(existing.question)?.push(field);
        continue;
      }
      // Without a group label, the first option's label is not the question: the name says more.
      const text = field.groupLabel || (members.length > 1 && field.name) || field.label;
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
      fieldsOf.set(question, [field]);
      continue;
    }
    if (field.tag === 'literal') {
      const question: Question = {
        id: uniqueId(fieldKey(field)),
        question: field.label.slice(0, 200),
        inputType: 'TextLiteral',
        label,
        mandatory: false,
        value: field.value,
      };
      questions.push(question);
      byKey.set(fieldKey(field), question);
      continue;
    }
    const category = categorize({ label: field.label, name: field.name, autocomplete: field.autocomplete, type: field.type });
    const before = questions.length;
    const base = {
      id: uniqueId(fieldKey(field)),
      question: field.label,
      label,
      mandatory: field.required && !field.optional,
      ...(category ? { category } : {}),
    };
    if (field.tag === 'select' || field.combobox) {
      questions.push({
        ...base,
        inputType: field.multiple ? 'SelectMultiple' : 'SelectOne',
        // A custom list's prompt ("Select…") is read from the open list, where no value marks it.
        options: field.options
          .filter((answer) => !isPlaceholderOption(undefined, answer))
          .map((answer) => ({ answer, conditionalQuestions: [] })),
      });
    } else if (field.role === 'slider') {
      questions.push({ ...base, inputType: 'Text' });
    } else if (field.tag === 'textarea' || field.tag !== 'input') {
      questions.push({ ...base, inputType: 'TextArea' });
    } else if (field.type === 'file') {
      const accept = field.accept
        .split(',')
        .map((entry) => entry.trim())
        .filter(Boolean);
      questions.push({ ...base, inputType: 'File', ...(accept.length > 0 ? { accept } : {}) });
    } else if (field.type === 'date' || field.type === 'datetime-local' || field.type === 'month') {
      questions.push({ ...base, inputType: 'Date' });
    } else {
      questions.push({ ...base, inputType: 'Text' });
    }
    if (questions.length > before) {
      const question = questions[questions.length - 1] as Question;
      byKey.set(fieldKey(field), question);
      fieldsOf.set(question, [field]);
    }
  }
  for (const { question, members } of groups.values()) {
    question.options = members.map((member) => ({ answer: member.label || member.value, conditionalQuestions: [] }));
  }
  return { questions, byKey, fieldsOf };
}
