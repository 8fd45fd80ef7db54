import type { Question } from '@quarry/contracts';
import { load, type Cheerio, type CheerioAPI } from 'cheerio/slim';
import type { AnyNode, Element } from 'domhandler';
import { MiningFailure } from './adapter-support.ts';
import { answerableControls, selectAnswers, visibleLabel } from './html-support.ts';
import { buildQuestion, choices, extensions } from './question-builder.ts';

type Category = NonNullable<Question['category']>;

const categories: Record<string, Category | null> = {
  'resumator-firstname-value': 'firstName',
  'resumator-lastname-value': 'lastName',
  'resumator-email-value': 'email',
  'resumator-phone-value': 'phone',
  'resumator-address-value': 'address',
  'resumator-city-value': 'city',
  'resumator-state-value': null,
  'resumator-postal-value': 'zip',
  'resumator-resume-value': 'resume',
  'resumator-salary-value': 'salary',
  'resumator-eeo_gender-value': 'gender',
  'resumator-eeo_race-value': 'race',
  'resumator-eeo_veteran-value': 'veteran',
  'resumator-eeo_disability-value': 'disability',
  'resumator-eeoc_veteran-value': 'veteran',
  'resumator-eeoc_disability-value': 'disability',
  'resumator-coverletter-value': 'coverLetter',
  'resumator-linkedin-value': 'linkedin',
  'resumator-website-value': 'website',
  'resumator-start-value': 'startDate',
  'resumator-referral-value': 'referral',
  'resumator-relocate-value': 'relocation',
  'resumator-citizen-value': 'workAuthorization',
  'resumator-education-value': 'education',
};
// The paste-text alternative to the resume file and JazzHR's own parser scratch box are not questions.
const skippedNames = new Set(['resumator-resumetext-value', 'resumator-xml-value']);
const noSelection = ['', 'resumator_no_selection'];

function labelFor($: CheerioAPI, control: Cheerio<Element>): Cheerio<AnyNode> {
  const id = control.attr('id');
  const byFor = id ? $(`label[for="${id}"]`).first() : $();
  return byFor.length ? byFor : control.closest('label');
}

function hasAsterisk(label: Cheerio<AnyNode>): boolean {
  return label.find('i.asterisk').length > 0 || /\*\s*$/.test(label.text().trim());
}

/**
 * JazzHR's server-rendered apply form: one label over the four address boxes
 * (→ FragmentedQuestion), resume as a file (or pasted text, the same question), questionnaire
 * selects with a "-- No answer --" sentinel, checkbox questionnaires answered through a hidden box.
 */
export function extractJazzForm(html: string, label: string): Question[] {
  const $ = load(html);
  const form = $('#form_submit_new_resume').first().length ? $('#form_submit_new_resume').first() : $('form').first();
  if (!form.length) {
    if (/no longer (accepting|available|open)|position (has been )?(closed|filled)/i.test($('body').text()))
      throw new MiningFailure('JobExpired', 'JazzHR says the position is closed');
    throw new MiningFailure('FormNotFound', 'no application form on the JazzHR page');
  }
  const questions: Question[] = [];
  const done = new Set<AnyNode>();
  answerableControls($, form).each((_, node) => {
    const control = $(node);
    const name = control.attr('name') ?? '';
    if (done.has(node) || skippedNames.has(name) || control.is('.none')) return;

    const address = control.closest('#resumator-address');
    if (address.length) {
      const parts = answerableControls($, address).toArray();
      parts.forEach((part) => done.add(part));
      const groupLabel = $('#resumator-address-label');
      questions.push(
        buildQuestion({
          id: 'resumator-address',
          question: visibleLabel(groupLabel) || 'Address',
          inputType: 'FragmentedQuestion',
          label,
          mandatory: hasAsterisk(groupLabel),
          category: 'address',
          options: parts.map((part) => {
            const partName = $(part).attr('name') ?? '';
            // The asterisk on "Address" marks the whole block: a required address needs every part of it.
            return buildQuestion({
              id: partName,
              question: $(part).attr('placeholder') ?? partName,
              inputType: 'Text',
              label,
              mandatory: hasAsterisk(groupLabel),
              category: categories[partName],
            });
          }),
        }),
      );
      return;
    }

    if (control.is('.resumator-questionnaire-checkbox')) {
      const group = control.closest('.form-group');
      const boxes = group.find('input.resumator-questionnaire-checkbox').toArray();
      boxes.forEach((box) => done.add(box));
      const answer = group.find('input[type="hidden"][name^="resumator-questionnaire["]').first();
      const questionLabel = group.find('label.control-label').first();
      questions.push(
        buildQuestion({
          id: answer.attr('name') ?? name,
          question: visibleLabel(questionLabel),
          inputType: 'SelectMultiple',
          label,
          mandatory: hasAsterisk(questionLabel),
          options: choices(boxes.map((box) => visibleLabel($(box).closest('label')) || $(box).attr('value'))),
        }),
      );
      return;
    }

    if (control.attr('type') === 'radio') {
      // EEO status radios (`resumator-eeoc_veteran-value`, `…eeoc_disability-value`): one question per name.
      const group = form.find(`input[type="radio"][name="${name}"]`).toArray();
      group.forEach((radio) => done.add(radio));
      const groupLabel = control.closest('.form-group').find('label.control-label').first();
      questions.push(
        buildQuestion({
          id: name,
          question: visibleLabel(groupLabel) || name,
          inputType: 'SelectOne',
          label,
          mandatory: hasAsterisk(groupLabel),
          category: categories[name],
          options: choices(group.map((radio) => visibleLabel($(radio).closest('label')) || $(radio).attr('value'))),
        }),
      );
      return;
    }

    const questionLabel = labelFor($, control);
    const base = {
      id: name,
      question: visibleLabel(questionLabel) || name,
      label,
      mandatory: hasAsterisk(questionLabel),
      category: categories[name],
    };
    if (control.is('select')) {
      questions.push(
        buildQuestion({
          ...base,
          inputType: control.is('[multiple]') ? 'SelectMultiple' : 'SelectOne',
          options: choices(selectAnswers($, control, noSelection)),
        }),
      );
    } else if (control.is('textarea')) {
      questions.push(buildQuestion({ ...base, inputType: 'TextArea' }));
    } else if (control.attr('type') === 'file') {
      // "Attach resume as .pdf, .doc, .docx, .odt, .txt, or .rtf (limit 5MB)"
      const hint = control.closest('#resumator-resume').find('.resumator-resume-text').text();
      questions.push(buildQuestion({ ...base, inputType: 'File', accept: extensions(hint.match(/\.[a-z0-9]{2,5}\b/gi) ?? []) }));
    } else if (control.attr('type') === 'checkbox') {
      questions.push(buildQuestion({ ...base, inputType: 'Boolean' }));
    } else {
      questions.push(buildQuestion({ ...base, inputType: control.attr('type') === 'date' ? 'Date' : 'Text' }));
    }
  });
  if (questions.length === 0) throw new MiningFailure('FormNotFound', 'the JazzHR form has no questions');
  return questions;
}
