import type { Question } from '@quarry/contracts';
import { describe, expect, it } from 'vitest';
import { validateAnswers } from './answer-validation.ts';

const q = (id: string, inputType: Question['inputType'], extra: Partial<Question> = {}): Question => ({
  id,
  question: `Question ${id}`,
  inputType,
  label: 'Apply',
  mandatory: true,
  ...extra,
});
const file = (filename: string) => ({ type: 'File', url: `https://files.example/${filename}`, filename });
const candidate = { email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace', phone: '+44 20 7946 0000' };
const files = { cv: file('cv.pdf') as { type: 'File'; url: string; filename: string } };
const check = (
  questions: Question[],
  answers: Array<{ id: string; value: unknown }>,
  extra: Partial<{ files: typeof files & { coverLetter?: typeof files.cv } }> = {},
) => validateAnswers(questions, { candidate, files: extra.files ?? files, answers });
const ids = (result: ReturnType<typeof check>) => result.problems.map((problem) => `${problem.id}:${problem.kind}`);

describe('validateAnswers: each input type', () => {
  it('Text and TextArea take strings', () => {
    const questions = [q('t', 'Text'), q('ta', 'TextArea')];
    expect(
      check(questions, [
        { id: 't', value: 'x' },
        { id: 'ta', value: 'long\ntext' },
      ]).problems,
    ).toEqual([]);
    expect(
      ids(
        check(questions, [
          { id: 't', value: 3 },
          { id: 'ta', value: ['x'] },
        ]),
      ),
    ).toEqual(['t:invalid', 'ta:invalid']);
    expect(ids(check(questions, [{ id: 't', value: '  ' }]))).toEqual(['t:missing', 'ta:missing']);
  });

  it('SelectOne takes one of the options', () => {
    const questions = [
      q('s', 'SelectOne', {
        options: [
          { answer: 'Yes', conditionalQuestions: [] },
          { answer: 'No', conditionalQuestions: [] },
        ],
      }),
    ];
    expect(check(questions, [{ id: 's', value: 'No' }]).problems).toEqual([]);
    const wrong = check(questions, [{ id: 's', value: 'Maybe' }]);
    expect(ids(wrong)).toEqual(['s:invalid']);
    expect(wrong.problems[0]?.message).toContain('"Maybe" is not one of the options ("Yes", "No")');
    expect(ids(check(questions, [{ id: 's', value: ['Yes'] }]))).toEqual(['s:invalid']);
  });

  it('SelectMultiple takes distinct options as an array', () => {
    const options = ['Go', 'Rust', 'TypeScript'].map((answer) => ({ answer, conditionalQuestions: [] }));
    const questions = [q('m', 'SelectMultiple', { options })];
    expect(check(questions, [{ id: 'm', value: ['Go', 'Rust'] }]).problems).toEqual([]);
    expect(ids(check(questions, [{ id: 'm', value: 'Go' }]))).toEqual(['m:invalid']);
    expect(ids(check(questions, [{ id: 'm', value: ['Go', 'Cobol'] }]))).toEqual(['m:invalid']);
    expect(ids(check(questions, [{ id: 'm', value: ['Go', 'Go'] }]))).toEqual(['m:invalid']);
    expect(ids(check(questions, [{ id: 'm', value: [] }]))).toEqual(['m:missing']);
  });

  it('Date takes ISO 8601 dates and date-times that exist', () => {
    const questions = [q('d', 'Date')];
    for (const value of ['2025-02-28', '2024-02-29', '2025-01-01T09:30:00Z', '2025-01-01T09:30:00.123+02:00']) {
      expect(check(questions, [{ id: 'd', value }]).problems, value).toEqual([]);
    }
    for (const value of ['2025-02-29', '01/02/2025', '2025-13-01', 'tomorrow', 20250101, '2025-01-01T25:00:00Z']) {
      expect(ids(check(questions, [{ id: 'd', value }])), String(value)).toEqual(['d:invalid']);
    }
  });

  it('Boolean takes true or false, not strings', () => {
    const questions = [q('b', 'Boolean')];
    expect(check(questions, [{ id: 'b', value: false }]).problems).toEqual([]);
    expect(check(questions, [{ id: 'b', value: true }]).answers).toEqual([{ id: 'b', value: true }]);
    expect(ids(check(questions, [{ id: 'b', value: 'true' }]))).toEqual(['b:invalid']);
  });

  it('File takes a file object whose extension fits accept', () => {
    const questions = [q('f', 'File', { accept: ['.pdf', 'application/msword', 'image/*'] })];
    for (const name of ['a.pdf', 'A.PDF', 'a.doc', 'a.png', 'a.jpeg'])
      expect(check(questions, [{ id: 'f', value: file(name) }]).problems, name).toEqual([]);
    expect(ids(check(questions, [{ id: 'f', value: file('a.docx') }]))).toEqual(['f:file-type']);
    expect(ids(check(questions, [{ id: 'f', value: file('noextension') }]))).toEqual(['f:file-type']);
    expect(ids(check(questions, [{ id: 'f', value: { url: 'https://files.example/a.pdf' } }]))).toEqual(['f:invalid']);
    expect(ids(check(questions, [{ id: 'f', value: { type: 'File', url: 'ftp://files.example/a.pdf', filename: 'a.pdf' } }]))).toEqual([
      'f:invalid',
    ]);
    expect(check([q('any', 'File')], [{ id: 'any', value: file('a.zip') }]).problems).toEqual([]);
  });

  it('ArrayOfObjects takes instances, each an array of {id, value} checked against the sub-questions', () => {
    const jobs = q('jobs', 'ArrayOfObjects', {
      options: [q('company', 'Text'), q('from', 'Date'), q('current', 'Boolean', { mandatory: false })],
    });
    const good = check(
      [jobs],
      [
        {
          id: 'jobs',
          value: [
            [
              { id: 'company', value: 'Acme' },
              { id: 'from', value: '2020-01-01' },
            ],
            [
              { id: 'company', value: 'Initech' },
              { id: 'from', value: '2022-06-01' },
              { id: 'current', value: true },
            ],
          ],
        },
      ],
    );
    expect(good.problems).toEqual([]);
    expect(good.answers[0]?.value).toEqual([
      [
        { id: 'company', value: 'Acme' },
        { id: 'from', value: '2020-01-01' },
      ],
      [
        { id: 'company', value: 'Initech' },
        { id: 'from', value: '2022-06-01' },
        { id: 'current', value: true },
      ],
    ]);
    const bad = check(
      [jobs],
      [
        {
          id: 'jobs',
          value: [
            [
              { id: 'company', value: 'Acme' },
              { id: 'from', value: 'June' },
              { id: 'salary', value: 1 },
            ],
            [{ id: 'from', value: '2020-01-01' }],
          ],
        },
      ],
    );
    expect(ids(bad)).toEqual(['from:invalid', 'salary:unknown', 'company:missing']);
    expect(bad.problems.map((problem) => problem.message)).toEqual([
      'jobs[0].from: must be an ISO 8601 date (YYYY-MM-DD, or a date-time)',
      'jobs[0].salary: no such question here',
      'jobs[1].company: required (Text "Question company")',
    ]);
    expect(ids(check([jobs], [{ id: 'jobs', value: [{ id: 'company', value: 'Acme' }] }]))).toEqual(['jobs:invalid']);
    expect(ids(check([jobs], [{ id: 'jobs', value: [] }]))).toEqual(['jobs:missing']);
  });

  it('FragmentedQuestion takes one {id, value} per part', () => {
    const address = q('address', 'FragmentedQuestion', {
      options: [q('street', 'Text'), q('city', 'Text'), q('zip', 'Text', { mandatory: false })],
    });
    expect(
      check(
        [address],
        [
          {
            id: 'address',
            value: [
              { id: 'street', value: '1 Main St' },
              { id: 'city', value: 'London' },
            ],
          },
        ],
      ).problems,
    ).toEqual([]);
    expect(
      ids(
        check(
          [address],
          [
            {
              id: 'address',
              value: [
                { id: 'street', value: '1 Main St' },
                { id: 'street', value: '2 Main St' },
                { id: 'city', value: 'London' },
              ],
            },
          ],
        ),
      ),
    ).toEqual(['street:invalid']);
    expect(ids(check([address], [{ id: 'address', value: [{ id: 'street', value: '1 Main St' }] }]))).toEqual(['city:missing']);
    expect(ids(check([address], [{ id: 'address', value: { street: 'x' } }]))).toEqual(['address:invalid']);
  });

  it('TextLiteral takes no answer and is never missing', () => {
    const questions = [q('note', 'TextLiteral', { value: '<p>Read this</p>' })];
    expect(check(questions, []).problems).toEqual([]);
    expect(ids(check(questions, [{ id: 'note', value: 'ok' }]))).toEqual(['note:invalid']);
  });
});

describe('validateAnswers: the form as a whole', () => {
  // Two levels of conditional questions: "Do you need a visa?" Yes → "Which visa?" H-1B → "Expiry date".
  const visa = q('visa', 'SelectOne', {
    options: [
      {
        answer: 'Yes',
        conditionalQuestions: [
          q('visaType', 'SelectOne', {
            options: [
              { answer: 'H-1B', conditionalQuestions: [q('visaExpiry', 'Date')] },
              { answer: 'Other', conditionalQuestions: [q('visaOther', 'Text')] },
            ],
          }),
        ],
      },
      { answer: 'No', conditionalQuestions: [q('since', 'Date', { mandatory: false })] },
    ],
  });

  it('requires conditional questions revealed by the chosen options, two levels deep', () => {
    expect(ids(check([visa], [{ id: 'visa', value: 'Yes' }]))).toEqual(['visaType:missing']);
    expect(
      ids(
        check(
          [visa],
          [
            { id: 'visa', value: 'Yes' },
            { id: 'visaType', value: 'H-1B' },
          ],
        ),
      ),
    ).toEqual(['visaExpiry:missing']);
    const complete = check(
      [visa],
      [
        { id: 'visa', value: 'Yes' },
        { id: 'visaType', value: 'H-1B' },
        { id: 'visaExpiry', value: '2027-01-31' },
      ],
    );
    expect(complete.problems).toEqual([]);
    expect(complete.answers).toEqual([
      { id: 'visa', value: 'Yes' },
      { id: 'visaType', value: 'H-1B' },
      { id: 'visaExpiry', value: '2027-01-31' },
    ]);
    expect(check([visa], [{ id: 'visa', value: 'No' }]).problems).toEqual([]);
  });

  it('refuses answers to conditional questions the chosen options hide, and unknown ids', () => {
    const result = check(
      [visa],
      [
        { id: 'visa', value: 'No' },
        { id: 'visaType', value: 'H-1B' },
        { id: 'nope', value: 'x' },
      ],
    );
    expect(ids(result)).toEqual(['visaType:unknown', 'nope:unknown']);
    expect(result.problems[0]?.message).toBe('visaType: answers a conditional question that the chosen options do not reveal');
    expect(result.problems[1]?.message).toBe('nope: no such question in this job post');
  });

  it('a conditional question of a SelectMultiple is revealed by any chosen option', () => {
    const langs = q('langs', 'SelectMultiple', {
      options: [
        { answer: 'Go', conditionalQuestions: [q('goYears', 'Text')] },
        { answer: 'Rust', conditionalQuestions: [q('rustYears', 'Text')] },
      ],
    });
    expect(ids(check([langs], [{ id: 'langs', value: ['Rust'] }]))).toEqual(['rustYears:missing']);
  });

  it('answers candidate and file questions from candidate and files when the client did not', () => {
    const questions = [
      q('fn', 'Text', { category: 'firstName' }),
      q('ln', 'Text', { category: 'lastName' }),
      q('full', 'Text', { category: 'fullName' }),
      q('mail', 'Text', { category: 'email' }),
      q('tel', 'Text', { category: 'phone' }),
      q('cv', 'File', { category: 'resume', accept: ['.pdf'] }),
      q('cover', 'File', { category: 'coverLetter', mandatory: false }),
    ];
    const result = check(questions, [{ id: 'fn', value: 'Augusta' }]);
    expect(result.problems).toEqual([]);
    expect(result.answers).toEqual([
      { id: 'fn', value: 'Augusta' },
      { id: 'ln', value: 'Lovelace' },
      { id: 'full', value: 'Ada Lovelace' },
      { id: 'mail', value: 'ada@example.com' },
      { id: 'tel', value: '+44 20 7946 0000' },
      { id: 'cv', value: file('cv.pdf') },
    ]);
    // The CV named by files must fit the résumé question's accept too.
    expect(ids(check(questions, [], { files: { cv: file('cv.docx') as typeof files.cv } }))).toEqual(['cv:file-type']);
  });

  it('places files.cv and files.coverLetter on the file part of a file-or-text question, which either part answers', () => {
    const either = (id: string, category: Question['category'], mandatory: boolean) =>
      q(`${id}_or_text`, 'FragmentedQuestion', {
        category,
        mandatory,
        options: [q(id, 'File', { mandatory: false }), q(`${id}_text`, 'TextArea', { mandatory: false })],
      });
    const questions = [either('resume', 'resume', true), either('cover_letter', 'coverLetter', false)];
    const placed = check(questions, [], { files: { ...files, coverLetter: file('letter.pdf') as typeof files.cv } });
    expect(placed.problems).toEqual([]);
    expect(placed.answers).toEqual([
      { id: 'resume_or_text', value: [{ id: 'resume', value: file('cv.pdf') }] },
      { id: 'cover_letter_or_text', value: [{ id: 'cover_letter', value: file('letter.pdf') }] },
    ]);
    const asText = check(questions, [{ id: 'resume_or_text', value: [{ id: 'resume_text', value: 'Analyst, 1842.' }] }]);
    expect(asText.problems).toEqual([]);
    expect(asText.answers).toEqual([{ id: 'resume_or_text', value: [{ id: 'resume_text', value: 'Analyst, 1842.' }] }]);
    expect(ids(check(questions, [{ id: 'resume_or_text', value: [] }]))).toEqual(['resume_or_text:missing']);
  });

  it('refuses an answer id given twice', () => {
    expect(
      ids(
        check(
          [q('t', 'Text')],
          [
            { id: 't', value: 'a' },
            { id: 't', value: 'b' },
          ],
        ),
      ),
    ).toEqual(['t:invalid']);
  });
});
