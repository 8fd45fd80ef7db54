import type { Answer, Question } from '@quarry/contracts';

const textByCategory: Partial<Record<NonNullable<Question['category']>, string>> = {
  firstName: 'Jane',
  lastName: 'Doe',
  fullName: 'Jane Doe',
  email: 'jane.doe@example.com',
  phone: '+44 20 7946 0000',
  address: '1 Example Street',
  city: 'London',
  zip: 'SW1A 1AA',
  country: 'United Kingdom',
  linkedin: 'https://www.linkedin.com/in/janedoe',
  website: 'https://janedoe.example.com',
  github: 'https://github.com/janedoe',
  salary: '50000',
  startDate: '2026-12-01',
};

function answerFor(question: Question): unknown {
  switch (question.inputType) {
    case 'Text':
      return (question.category && textByCategory[question.category]) ?? 'Yes';
    case 'TextArea':
      return 'I am excited about this role and believe my experience is a strong match.';
    case 'SelectOne': {
      const first = question.options?.[0];
      return first && 'answer' in first ? first.answer : undefined;
    }
    case 'SelectMultiple': {
      const first = question.options?.[0];
      return first && 'answer' in first ? [first.answer] : [];
    }
    case 'Boolean':
      return true;
    case 'Date':
      return '2026-12-01';
    case 'File':
      return { type: 'File', url: 'https://example.com/files/jane-doe-cv.pdf', filename: 'jane-doe-cv.pdf' };
    // Interface: one array of {id, value} per instance of the repeatable group.
    case 'ArrayOfObjects':
      return [partsOf(question)];
    // Interface: one {id, value} per part of the question.
    case 'FragmentedQuestion':
      return partsOf(question);
    default:
      return undefined;
  }
}

function partsOf(question: Question): Answer[] {
  return (question.options ?? []).flatMap((part) => {
    if ('answer' in part) return [];
    const value = answerFor(part);
    return value === undefined ? [] : [{ id: part.id, value }];
  });
}

/** The answers the miner used (or would use) to get through the form: one per answerable question. */
export function syntheticAnswers(questions: Question[]): Answer[] {
  return questions.flatMap((question) => {
    const value = answerFor(question);
    return value === undefined ? [] : [{ id: question.id, value }];
  });
}
