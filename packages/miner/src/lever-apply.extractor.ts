import type { Question } from '@quarry/contracts';
import { load, type Cheerio, type CheerioAPI } from 'cheerio/slim';
import type { Element } from 'domhandler';
import { z } from 'zod';
import { MiningFailure, parsePayload } from './adapter-support.ts';
import { answerableControls, selectAnswers, visibleLabel } from './html-support.ts';
import { buildQuestion, choices, cleanText, htmlToText } from './question-builder.ts';

type Category = NonNullable<Question['category']>;

// Only `fields[]` is read: templates also carry stale `fields0`, `fields1`… that are never rendered.
const CardTemplate = z.object({
  text: z.string().nullish(),
  instructions: z.string().nullish(),
  fields: z.array(
    z.object({
      type: z.string(),
      text: z.string(),
      description: z.string().nullish(),
      required: z.boolean().nullish(),
      options: z.array(z.object({ text: z.string() })).nullish(),
    }),
  ),
});

const cardTypes: Record<string, Question['inputType']> = {
  text: 'Text',
  textarea: 'TextArea',
  'multiple-choice': 'SelectOne',
  dropdown: 'SelectOne',
  'multiple-select': 'SelectMultiple',
  'file-upload': 'File',
};

const standardCategories: Record<string, Category | null> = {
  resume: 'resume',
  name: 'fullName',
  email: 'email',
  phone: 'phone',
  location: null,
  org: null,
  comments: null,
  'urls[LinkedIn]': 'linkedin',
  'urls[GitHub]': 'github',
  'urls[Portfolio]': 'website',
  'urls[Other]': 'website',
  'urls[Twitter]': null,
  pronouns: 'pronouns',
  'consent[marketing]': 'consent',
  'consent[store]': 'consent',
  'eeo[gender]': 'gender',
  'eeo[race]': 'race',
  'eeo[veteran]': 'veteran',
  'eeo[disability]': 'disability',
};

function cardQuestions(
  template: z.infer<typeof CardTemplate>,
  answerName: (index: number) => string,
  label: string,
  optional: boolean,
): Question[] {
  const questions: Question[] = [];
  const instructions = template.instructions?.trim() ?? '';
  if (instructions && htmlToText(instructions)) {
    questions.push(
      buildQuestion({
        id: `${answerName(0).replace(/\[field0\]$/, '')}[instructions]`,
        question: htmlToText(instructions),
        inputType: 'TextLiteral',
        label,
        mandatory: false,
        category: null,
        value: instructions,
      }),
    );
  }
  template.fields.forEach((field, index) => {
    const inputType = cardTypes[field.type] ?? 'Text';
    questions.push(
      buildQuestion({
        id: answerName(index),
        question: field.text,
        inputType,
        label,
        mandatory: !optional && field.required === true,
        options:
          inputType === 'SelectOne' || inputType === 'SelectMultiple'
            ? choices((field.options ?? []).map((option) => option.text))
            : undefined,
      }),
    );
  });
  return questions;
}

function standardQuestion($: CheerioAPI, row: Cheerio<Element>, label: string): Question | null {
  const controls = answerableControls($, row);
  const first = controls.first();
  const name = first.attr('name');
  if (!name) return null; // "Apply with LinkedIn" and other button-only rows
  const labelElement = row.find('.application-label').first();
  const text = visibleLabel(labelElement.length ? labelElement : row) || name;
  const mandatory = row.find('.required').length > 0 || controls.is('[required]');
  const base = { id: name, question: text, label, mandatory, category: standardCategories[name] };
  const type = (first.attr('type') ?? first.prop('tagName') ?? '').toLowerCase();
  if (type === 'radio' || type === 'checkbox') {
    const group = controls.filter((_, element) => $(element).attr('name') === name);
    if (type === 'checkbox' && group.length === 1) return buildQuestion({ ...base, inputType: 'Boolean' });
    // EEO options carry a long explanation beside their words; the answer is the words.
    const answers = group
      .toArray()
      .map((element) => visibleLabel($(element).closest('label'), ['eeo-option-description']) || ($(element).attr('value') ?? ''));
    return buildQuestion({ ...base, inputType: type === 'radio' ? 'SelectOne' : 'SelectMultiple', options: choices(answers) });
  }
  if (first.is('select'))
    return buildQuestion({
      ...base,
      inputType: first.is('[multiple]') ? 'SelectMultiple' : 'SelectOne',
      options: choices(selectAnswers($, first)),
    });
  if (first.is('textarea')) return buildQuestion({ ...base, inputType: 'TextArea' });
  if (type === 'file') {
    const accept = (first.attr('accept') ?? '')
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean);
    return buildQuestion({ ...base, inputType: 'File', accept });
  }
  return buildQuestion({ ...base, inputType: 'Text' });
}

function parseTemplate(raw: string | undefined, what: string): z.infer<typeof CardTemplate> {
  let data: unknown;
  try {
    data = JSON.parse(raw ?? '');
  } catch {
    throw new MiningFailure('GenericWebsiteError', `the Lever ${what} template is not JSON`);
  }
  return parsePayload(CardTemplate, data, `Lever ${what}`);
}

/**
 * Lever's apply page: standard rows and the EEO block from the HTML; employer cards and
 * surveys from the JSON template each one embeds. The disability signature (name + date) appears
 * once a disability status is chosen, so it hangs off every option of that question.
 */
export function extractLeverForm(html: string, fallbackLabel: string): Question[] {
  const $ = load(html);
  const form = $('form#application-form').first().length ? $('form#application-form').first() : $('form').first();
  if (!form.length) {
    if (/no longer (accepting|available|open)|has been filled|posting (is )?closed/i.test($('body').text()))
      throw new MiningFailure('JobExpired', 'Lever says the posting is closed');
    throw new MiningFailure('FormNotFound', 'no application form on the Lever page');
  }
  const questions: Question[] = [];
  form.find('.application-form').each((_, sectionNode) => {
    const section = $(sectionNode);
    const heading = section.find('h4').first();
    const label = visibleLabel(heading, ['eeo-light-text']) || fallbackLabel;
    const card = section.find('input[name^="cards["][name$="[baseTemplate]"]').first();
    if (card.length) {
      const cardId = /^cards\[([^\]]+)\]/.exec(card.attr('name') ?? '')?.[1] ?? '';
      const template = parseTemplate(card.attr('value'), 'card');
      questions.push(
        ...cardQuestions(template, (index) => `cards[${cardId}][field${index}]`, cleanText(template.text ?? '') || label, false),
      );
      return;
    }
    const survey = section.find('[name^="surveysResponses["][name$="[baseTemplate]"], [data-name^="surveysResponses["]').first();
    if (survey.length) {
      const name = survey.attr('name') ?? survey.attr('data-name') ?? '';
      const surveyId = /^surveysResponses\[([^\]]+)\]/.exec(name)?.[1] ?? '';
      const template = parseTemplate(survey.attr('value') ?? survey.attr('data-value'), 'survey');
      // Surveys are voluntary: every field optional whatever the template says.
      questions.push(
        ...cardQuestions(
          template,
          (index) => `surveysResponses[${surveyId}][responses][field${index}]`,
          cleanText(template.text ?? '') || label,
          true,
        ),
      );
      return;
    }
    const signatureRows = section.find('#disabilitySignatureSection .application-question');
    const signature = signatureRows.toArray().flatMap((row) => {
      const question = standardQuestion(
        $,
        $(row),
        section.find('h4').last().text() ? visibleLabel(section.find('h4').last(), ['eeo-light-text']) : label,
      );
      if (!question) return [];
      // "Name and date are only required if you filled out Disability status."
      const date = /date/i.test(question.id);
      return [
        {
          ...question,
          mandatory: true,
          inputType: date ? ('Date' as const) : question.inputType,
          ...(date ? {} : { category: 'fullName' as const }),
        },
      ];
    });
    // The EEO section holds several headed blocks (EEO, veteran, disability): each row takes the last heading.
    let rowLabel = label;
    section.find('h4, .application-question').each((_, rowNode) => {
      const row = $(rowNode);
      if (row.is('h4')) {
        rowLabel = visibleLabel(row, ['eeo-light-text']) || rowLabel;
        return;
      }
      if (row.closest('#disabilitySignatureSection').length) return;
      const question = standardQuestion($, row, rowLabel);
      if (!question) return;
      if (question.id === 'eeo[disability]' && signature.length > 0) {
        question.options = (question.options ?? []).map((option) =>
          'answer' in option ? { answer: option.answer, conditionalQuestions: signature } : option,
        );
      }
      questions.push(question);
    });
  });
  if (questions.length === 0) throw new MiningFailure('FormNotFound', 'the Lever form has no questions');
  return questions;
}
