import { FileAnswer, type ApplyBody, type Question } from '@quarry/contracts';
import { fitsAccept } from './file-types.ts';

export type AnswerProblem = {
  /** The question id (or the answer id when it names no question). */
  id: string;
  /** missing: a mandatory question has no answer; invalid: the value does not fit the question; unknown: no such question here; file-type: a File outside `accept`. */
  kind: 'missing' | 'invalid' | 'unknown' | 'file-type';
  message: string;
};

/** One answer per question, as the engine gets it (File values still references to fetch). */
export type PlannedAnswer = { id: string; value: unknown };

type Given = Map<string, unknown>;
type Derived = (question: Question) => unknown;

const isoDate = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

function isIsoDate(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  const match = isoDate.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return false;
  const [hours, minutes, seconds] = [Number(match[4] ?? 0), Number(match[5] ?? 0), Number(match[6] ?? 0)];
  return hours < 24 && minutes < 60 && seconds < 60;
}

const choicesOf = (question: Question) =>
  (question.options ?? []).filter(
    (option): option is { answer: string; conditionalQuestions: Question[] } => 'conditionalQuestions' in option,
  );
const partsOf = (question: Question) =>
  (question.options ?? []).filter((option): option is Question => !('conditionalQuestions' in option));

/** Every question id reachable in a set (conditional questions of every option, at any depth). */
function collectIds(questions: Question[], into: Set<string>): Set<string> {
  for (const question of questions) {
    into.add(question.id);
    for (const choice of choicesOf(question)) collectIds(choice.conditionalQuestions, into);
  }
  return into;
}

const isBlank = (value: unknown) =>
  value === undefined ||
  value === null ||
  (typeof value === 'string' && value.trim() === '') ||
  (Array.isArray(value) && value.length === 0);

/**
 * Checks a set of answers against a set of questions: the top level of a form, one instance of
 * an ArrayOfObjects, or the parts of a FragmentedQuestion. Conditional questions count only when
 * the chosen option reveals them, to any depth; an answer to a question no chosen option reveals
 * is refused like an unknown id, since the engine could not place it.
 */
function checkSet(
  questions: Question[],
  given: Given,
  derive: Derived,
  problems: AnswerProblem[],
  planned: PlannedAnswer[],
  where: string,
): void {
  const reached = new Set<string>();
  const visit = (list: Question[]) => {
    for (const question of list) {
      reached.add(question.id);
      const name = `${where}${question.id}`;
      if (question.inputType === 'TextLiteral') {
        if (given.has(question.id)) problems.push({ id: question.id, kind: 'invalid', message: `${name}: a TextLiteral takes no answer` });
        continue;
      }
      const value = given.has(question.id) ? given.get(question.id) : derive(question);
      if (isBlank(value)) {
        if (question.mandatory)
          problems.push({ id: question.id, kind: 'missing', message: `${name}: required (${question.inputType} "${question.question}")` });
        continue;
      }
      const accepted = checkValue(question, value, derive, problems, name);
      if (accepted === undefined) continue;
      planned.push({ id: question.id, value: accepted });
      if (question.inputType === 'SelectOne' || question.inputType === 'SelectMultiple') {
        const chosen = new Set(Array.isArray(value) ? (value as string[]) : [value as string]);
        for (const choice of choicesOf(question)) if (chosen.has(choice.answer)) visit(choice.conditionalQuestions);
      }
    }
  };
  visit(questions);
  const known = collectIds(questions, new Set());
  for (const id of given.keys()) {
    if (reached.has(id)) continue;
    problems.push(
      known.has(id)
        ? { id, kind: 'unknown', message: `${where}${id}: answers a conditional question that the chosen options do not reveal` }
        : { id, kind: 'unknown', message: `${where}${id}: no such question${where ? ' here' : ' in this job post'}` },
    );
  }
}

function checkValue(question: Question, value: unknown, derive: Derived, problems: AnswerProblem[], name: string): unknown {
  const invalid = (message: string) => {
    problems.push({ id: question.id, kind: 'invalid', message: `${name}: ${message}` });
    return undefined;
  };
  switch (question.inputType) {
    case 'Text':
    case 'TextArea':
      return typeof value === 'string' ? value : invalid('must be a string');
    case 'SelectOne': {
      if (typeof value !== 'string') return invalid('must be a string, one of the options');
      const answers = choicesOf(question).map((choice) => choice.answer);
      return answers.includes(value)
        ? value
        : invalid(`"${value}" is not one of the options (${answers.map((answer) => `"${answer}"`).join(', ')})`);
    }
    case 'SelectMultiple': {
      if (!Array.isArray(value) || !value.every((item) => typeof item === 'string'))
        return invalid('must be an array of strings, each one of the options');
      const answers = new Set(choicesOf(question).map((choice) => choice.answer));
      const outside = value.filter((item) => !answers.has(item));
      if (outside.length > 0) return invalid(`not among the options: ${outside.map((item) => `"${item}"`).join(', ')}`);
      if (new Set(value).size !== value.length) return invalid('an option is chosen twice');
      return value;
    }
    case 'Date':
      return isIsoDate(value) ? value : invalid('must be an ISO 8601 date (YYYY-MM-DD, or a date-time)');
    case 'Boolean':
      return typeof value === 'boolean' ? value : invalid('must be true or false');
    case 'File': {
      const file = FileAnswer.safeParse(value);
      if (!file.success) return invalid('must be a file object {type: "File", url, filename, headers?}');
      if (question.accept && question.accept.length > 0 && !fitsAccept(file.data.filename, question.accept)) {
        problems.push({
          id: question.id,
          kind: 'file-type',
          message: `${name}: "${file.data.filename}" is not one of the accepted types (${question.accept.join(', ')})`,
        });
        return undefined;
      }
      return file.data;
    }
    case 'ArrayOfObjects': {
      if (!Array.isArray(value)) return invalid('must be an array of instances, each an array of {id, value}');
      const instances: PlannedAnswer[][] = [];
      value.forEach((instance, index) => {
        const given = pairs(instance, `${name}[${index}]`, question.id, problems);
        if (!given) return;
        const planned: PlannedAnswer[] = [];
        checkSet(partsOf(question), given, () => undefined, problems, planned, `${name}[${index}].`);
        instances.push(planned);
      });
      return instances.length === value.length ? instances : undefined;
    }
    case 'FragmentedQuestion': {
      const given = pairs(value, name, question.id, problems);
      if (!given) return undefined;
      const planned: PlannedAnswer[] = [];
      // A part may be a candidate detail (a name split in two): derived like a top-level one.
      checkSet(partsOf(question), given, derive, problems, planned, `${name}.`);
      return planned;
    }
    case 'TextLiteral':
      return undefined;
  }
}

/** `[{id, value}]` → a map, refusing a malformed entry or an id given twice. */
function pairs(value: unknown, name: string, questionId: string, problems: AnswerProblem[]): Given | null {
  if (!Array.isArray(value)) {
    problems.push({ id: questionId, kind: 'invalid', message: `${name}: must be an array of {id, value}` });
    return null;
  }
  const given: Given = new Map();
  for (const entry of value) {
    if (typeof entry !== 'object' || entry === null || typeof (entry as { id?: unknown }).id !== 'string') {
      problems.push({ id: questionId, kind: 'invalid', message: `${name}: every entry must be {id: string, value}` });
      return null;
    }
    const { id, value: answer } = entry as { id: string; value: unknown };
    if (given.has(id)) problems.push({ id, kind: 'invalid', message: `${name}.${id}: answered twice` });
    given.set(id, answer);
  }
  return given;
}

/**
 * A request file on the question that asks for it: the question itself when it is a File, or
 * the File part of a file-or-text question (Greenhouse's résumé: a file, or the same as text).
 */
function placedFile(question: Question, file: unknown): unknown {
  if (file === undefined || question.inputType === 'File') return file;
  const filePart = question.inputType === 'FragmentedQuestion' ? partsOf(question).find((part) => part.inputType === 'File') : undefined;
  return filePart ? [{ id: filePart.id, value: file }] : undefined;
}

/**
 * What the candidate and files of the request answer when the client did not: questions whose
 * category says they ask for a name, email or phone, the résumé or the cover letter.
 */
function derivedFrom(application: Pick<ApplyBody, 'candidate' | 'files'>): Derived {
  const { candidate, files } = application;
  return (question) => {
    switch (question.category) {
      case 'firstName':
        return candidate.firstName;
      case 'lastName':
        return candidate.lastName;
      case 'fullName':
        return `${candidate.firstName} ${candidate.lastName}`;
      case 'email':
        return candidate.email;
      case 'phone':
        return candidate.phone;
      case 'resume':
        return placedFile(question, files.cv);
      case 'coverLetter':
        return placedFile(question, files.coverLetter);
      default:
        return undefined;
    }
  };
}

/**
 * Checks an application's answers against the questions mined for its post (item by item, every
 * problem named by question id) and plans the answers the engine gets.
 */
export function validateAnswers(
  questions: Question[],
  application: Pick<ApplyBody, 'candidate' | 'files' | 'answers'>,
): { problems: AnswerProblem[]; answers: PlannedAnswer[] } {
  const problems: AnswerProblem[] = [];
  const planned: PlannedAnswer[] = [];
  const given = pairs(application.answers, 'answers', 'answers', problems) ?? new Map<string, unknown>();
  checkSet(questions, given, derivedFrom(application), problems, planned, '');
  return { problems, answers: planned };
}
