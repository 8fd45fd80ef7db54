import type { Question } from '@quarry/contracts';
import { load, type Cheerio, type CheerioAPI } from 'cheerio/slim';
import type { AnyNode, Element } from 'domhandler';
import { MiningFailure } from './adapter-support.ts';
import { isAnswerable, selectAnswers, visibleLabel } from './html-support.ts';
import { buildQuestion, choices, extensions } from './question-builder.ts';

type Category = NonNullable<Question['category']>;

const categories: Record<string, Category | null> = {
  'candidate[first_name]': 'firstName',
  'candidate[last_name]': 'lastName',
  'candidate[email]': 'email',
  'candidate[phone]': 'phone',
  'candidate[location][query]': 'address',
  'candidate[resume_remote_url]': 'resume',
  'candidate[file_remote_url]': null,
  'candidate[job_applications_attributes][0][cover_letter]': 'coverLetter',
  'candidate[consent_given]': 'consent',
  'candidate[consent_given_future_jobs]': 'consent',
};

function labelOf($: CheerioAPI, control: Cheerio<Element>): Cheerio<AnyNode> {
  const id = control.attr('id');
  const byFor = id ? $(`label[for="${id}"]`).first() : $();
  return byFor.length ? byFor : control.closest('label');
}

function markedRequired(label: Cheerio<AnyNode>): boolean {
  return label.find('sup[data-asterisk="true"]').length > 0 || /^required\.?$/i.test(label.find('.sr-only').first().text().trim());
}

/** A fieldset legend's title plus its description line ("Work Eligibility for Canada: Are you …?"). */
function legendText(legend: Cheerio<AnyNode>): string {
  const title = visibleLabel(legend.children('span').first());
  const description = visibleLabel(legend.children('div').first());
  return [title, description].filter(Boolean).join(': ') || visibleLabel(legend);
}

/**
 * Teamtailor's application form, as the `Turbo-Frame: application_form` request returns
 * it: qualifying yes/no knockouts, `div.question` employer questions, standard candidate fields,
 * Dropzone uploads (no file input: a disabled URL box holds the upload) and consent boxes.
 */
export function extractTeamtailorForm(html: string, fallbackLabel: string): Question[] {
  const $ = load(html);
  const form = $('#job-application-form').first().length ? $('#job-application-form').first() : $('form').first();
  if (!form.length) {
    if (/no longer (accepting|available|open)|job (is )?(closed|unpublished)/i.test($('body').text()))
      throw new MiningFailure('JobExpired', 'Teamtailor says the job is closed');
    throw new MiningFailure('FormNotFound', 'no application form on the Teamtailor page');
  }
  const questions: Question[] = [];
  const done = new Set<AnyNode>();
  let label = fallbackLabel;
  form.find('h2, [data-controller~="forms--inputs--upload"], input, select, textarea').each((_, node) => {
    const element = $(node);
    if (element.is('h2')) {
      label = visibleLabel(element) || label;
      return;
    }
    if (done.has(node)) return;
    if (element.is('[data-controller~="forms--inputs--upload"]')) {
      element.find('input, select, textarea').each((__, inner) => void done.add(inner));
      const uploadLabel = element.find('label').first();
      // The URL box that receives the upload sits inside a <template>, out of the parsed tree; the
      // label still points at its id (candidate_resume_remote_url → candidate[resume_remote_url]).
      const target = uploadLabel.attr('for') ?? '';
      const name =
        element.find('input[name$="_remote_url]"]').first().attr('name') ??
        (/^candidate_/.test(target) ? `candidate[${target.slice('candidate_'.length)}]` : target);
      questions.push(
        buildQuestion({
          id: name,
          question: visibleLabel(uploadLabel) || name,
          inputType: 'File',
          label,
          mandatory: markedRequired(uploadLabel),
          category: categories[name],
          accept: extensions([element.attr('data-forms--inputs--upload-accepted-files-value')]),
        }),
      );
      return;
    }
    if (!isAnswerable(element)) return;
    const control = element as Cheerio<Element>;
    const name = control.attr('name') ?? '';
    const wrapper = control.closest('.question[data-question-uuid]');
    const fromWrapper = wrapper.length ? wrapper.attr('data-question-mandatory') === 'true' : undefined;
    const type = (control.attr('type') ?? '').toLowerCase();
    if (type === 'radio') {
      const group = form.find(`input[type="radio"][name="${name}"]`).toArray();
      group.forEach((radio) => done.add(radio));
      const fieldset = control.closest('fieldset');
      const legend = fieldset.children('legend').first();
      const values = group.map((radio) => $(radio).attr('value'));
      const answers = group.map((radio) => visibleLabel(labelOf($, $(radio))) || $(radio).attr('value'));
      const base = { id: name, question: legendText(legend), label, mandatory: fromWrapper ?? markedRequired(legend) };
      // Teamtailor boolean questions are a true/false radio pair.
      if (values.length === 2 && values.includes('true') && values.includes('false'))
        questions.push(buildQuestion({ ...base, inputType: 'Boolean' }));
      else questions.push(buildQuestion({ ...base, inputType: 'SelectOne', options: choices(answers) }));
      return;
    }
    const questionLabel = labelOf($, control);
    const text = visibleLabel(questionLabel) || control.attr('aria-label') || name;
    const base = { id: name, question: text, label, mandatory: fromWrapper ?? markedRequired(questionLabel), category: categories[name] };
    if (type === 'checkbox') {
      const group = form.find(`input[type="checkbox"][name="${name}"]`).toArray();
      group.forEach((box) => done.add(box));
      if (group.length > 1) {
        const multiple = wrapper.attr('data-question-multiple-choice') !== 'false';
        questions.push(
          buildQuestion({
            ...base,
            question: legendText(control.closest('fieldset').children('legend').first()) || text,
            inputType: multiple ? 'SelectMultiple' : 'SelectOne',
            options: choices(group.map((box) => visibleLabel(labelOf($, $(box))))),
          }),
        );
      } else {
        questions.push(buildQuestion({ ...base, inputType: 'Boolean' }));
      }
    } else if (control.is('select')) {
      questions.push(
        buildQuestion({
          ...base,
          inputType: control.is('[multiple]') || wrapper.attr('data-question-multiple-choice') === 'true' ? 'SelectMultiple' : 'SelectOne',
          options: choices(selectAnswers($, control)),
        }),
      );
    } else if (control.is('textarea')) {
      questions.push(buildQuestion({ ...base, inputType: 'TextArea' }));
    } else if (type === 'file') {
      questions.push(buildQuestion({ ...base, inputType: 'File', accept: extensions([control.attr('accept')]) }));
    } else {
      questions.push(buildQuestion({ ...base, inputType: type === 'date' ? 'Date' : 'Text' }));
    }
  });
  if (questions.length === 0) throw new MiningFailure('FormNotFound', 'the Teamtailor form has no questions');
  return questions;
}
