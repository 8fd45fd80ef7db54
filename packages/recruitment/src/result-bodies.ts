import type { MinedForm, Question } from '@quarry/contracts';

function withoutCategories(questions: Question[]): Question[] {
  return questions.map(({ category: _category, options, ...rest }) => ({
    ...rest,
    ...(options
      ? {
          options: options.map((option) =>
            'conditionalQuestions' in option
              ? { answer: option.answer, conditionalQuestions: withoutCategories(option.conditionalQuestions) }
              : (withoutCategories([option])[0] as Question),
          ),
        }
      : {}),
  }));
}

/**
 * Retrieval answers are serialized once, when the result is stored, so that reading one is a
 * single indexed lookup returning text. `body` is the v2 shape (with categories); `bodyV1` omits
 * categories.
 */
export function serializeResult(jobPostId: string, succeededAt: Date, form: MinedForm): { body: string; bodyV1: string } {
  const base = { jobPostId, succeededAt: succeededAt.toISOString(), answers: form.answers };
  return {
    body: JSON.stringify({ ...base, questions: form.questions }),
    bodyV1: JSON.stringify({ ...base, questions: withoutCategories(form.questions) }),
  };
}
