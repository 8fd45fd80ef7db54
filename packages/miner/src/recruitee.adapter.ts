import type { Question } from '@quarry/contracts';
import { z } from 'zod';
import { expandBase, MiningFailure, parsePayload, readJson, request, type AtsAdapter } from './adapter-support.ts';
import { buildQuestion, choices, htmlToText } from './question-builder.ts';

const Requirement = z.enum(['required', 'optional', 'off']).catch('off');
const OpenQuestion = z.object({
  id: z.union([z.number(), z.string()]),
  body: z.string(),
  kind: z.string(),
  required: z.boolean().nullish(),
  open_question_options: z.array(z.object({ body: z.string() })).nullish(),
});
const RecruiteeOffers = z.object({
  offers: z.array(
    z.object({
      slug: z.string(),
      title: z.string().nullish(),
      options_cv: Requirement.optional(),
      options_cover_letter: Requirement.optional(),
      options_phone: Requirement.optional(),
      options_photo: Requirement.optional(),
      open_questions: z.array(OpenQuestion).nullish(),
    }),
  ),
});
type Offer = z.infer<typeof RecruiteeOffers>['offers'][number];

const kinds: Record<string, Question['inputType']> = {
  string: 'Text',
  number: 'Text',
  salary: 'Text',
  text: 'TextArea',
  boolean: 'Boolean',
  legal: 'Boolean',
  single_choice: 'SelectOne',
  multi_choice: 'SelectMultiple',
  date: 'Date',
  file: 'File',
  video: 'File',
  infobox: 'TextLiteral',
};

function mapRecruiteeOffer(offer: Offer, fallbackLabel: string): Question[] {
  const label = offer.title?.trim() || fallbackLabel;
  const questions: Question[] = [
    buildQuestion({ id: 'candidate.name', question: 'Full name', inputType: 'Text', label, mandatory: true, category: 'fullName' }),
    buildQuestion({ id: 'candidate.email', question: 'Email address', inputType: 'Text', label, mandatory: true, category: 'email' }),
  ];
  const standard: Array<
    [
      Requirement: z.infer<typeof Requirement> | undefined,
      id: string,
      text: string,
      inputType: Question['inputType'],
      category: 'phone' | 'resume' | 'coverLetter' | null,
    ]
  > = [
    [offer.options_phone, 'candidate.phone', 'Phone number', 'Text', 'phone'],
    [offer.options_photo, 'candidate.photo', 'Photo', 'File', null],
    [offer.options_cv, 'candidate.cv', 'CV or resume', 'File', 'resume'],
    [offer.options_cover_letter, 'candidate.cover_letter', 'Cover letter', 'TextArea', 'coverLetter'],
  ];
  for (const [requirement, id, text, inputType, category] of standard) {
    if (requirement === 'required' || requirement === 'optional')
      questions.push(buildQuestion({ id, question: text, inputType, label, mandatory: requirement === 'required', category }));
  }
  for (const entry of offer.open_questions ?? []) {
    const inputType = kinds[entry.kind] ?? 'Text';
    const base = {
      id: `open_question_${entry.id}`,
      question: htmlToText(entry.body),
      inputType,
      label,
      mandatory: entry.required === true,
    };
    if (inputType === 'TextLiteral') questions.push(buildQuestion({ ...base, mandatory: false, category: null, value: entry.body }));
    else if (inputType === 'SelectOne' || inputType === 'SelectMultiple')
      questions.push(buildQuestion({ ...base, options: choices((entry.open_question_options ?? []).map((option) => option.body)) }));
    else questions.push(buildQuestion({ ...base, category: entry.kind === 'legal' ? 'consent' : undefined }));
  }
  return questions;
}

export const recruiteeAdapter =
  (baseUrl: string): AtsAdapter<{ company: string; slug: string }> =>
  async (target, context) => {
    const response = await request(context, `${expandBase(baseUrl, { company: target.company })}/api/offers/`, {
      headers: { accept: 'application/json' },
    });
    const { offers } = parsePayload(RecruiteeOffers, await readJson(response), 'Recruitee offers');
    // Only published offers are listed: a slug that is not there was closed or removed.
    const offer = offers.find((candidate) => candidate.slug === target.slug);
    if (!offer) throw new MiningFailure('JobNotFound', `no published Recruitee offer "${target.slug}"`);
    return mapRecruiteeOffer(offer, context.jobPost.jobTitle);
  };
