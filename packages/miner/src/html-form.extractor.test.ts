import type { Question } from '@quarry/contracts';
import { fixtureForms } from '@quarry/testing';
import { describe, expect, it } from 'vitest';
import { sectionsFormQuestions, summarize } from '@quarry/testing/miner';
import { extractHtmlForm } from './html-form.extractor.ts';

function questionsOf(html: string): Question[] {
  const extracted = extractHtmlForm(html, { defaultLabel: 'Application' });
  if (!extracted.ok) throw new Error(`expected a form, got ${extracted.errorCode}: ${extracted.detail}`);
  return extracted.questions;
}

const byId = (questions: Question[], id: string) => {
  const question = questions.find((candidate) => candidate.id === id);
  if (!question) throw new Error(`no question ${id} in ${questions.map((candidate) => candidate.id).join(', ')}`);
  return question;
};

describe('extractHtmlForm', () => {
  it('reads labelled inputs, sections, required markers, files and selects', () => {
    const questions = questionsOf(fixtureForms.basic);
    expect(questions.map((question) => question.id)).toEqual([
      'first_name',
      'last_name',
      'email',
      'phone',
      'resume',
      'cover_letter',
      'source',
    ]);
    expect(byId(questions, 'first_name')).toEqual({
      id: 'first_name',
      question: 'First name',
      inputType: 'Text',
      label: 'Personal information',
      mandatory: true,
      category: 'firstName',
    });
    expect(byId(questions, 'last_name')).toMatchObject({ mandatory: true, category: 'lastName' });
    expect(byId(questions, 'phone')).toMatchObject({ mandatory: false, category: 'phone' });
    expect(byId(questions, 'resume')).toMatchObject({
      inputType: 'File',
      accept: ['.pdf', '.docx'],
      label: 'Documents',
      category: 'resume',
    });
    expect(byId(questions, 'cover_letter')).toMatchObject({ inputType: 'TextArea', category: 'coverLetter' });
    expect(byId(questions, 'source')).toMatchObject({
      inputType: 'SelectOne',
      label: 'Questions',
      category: 'referral',
      options: [
        { answer: 'Website', conditionalQuestions: [] },
        { answer: 'A friend', conditionalQuestions: [] },
      ],
    });
  });

  it('reads wrapping labels, aria names, radio and checkbox groups, dates and consent boxes', () => {
    const questions = questionsOf(fixtureForms.grouped);
    expect(byId(questions, 'full_name')).toMatchObject({
      question: 'Full name',
      mandatory: true,
      category: 'fullName',
      label: 'About you',
    });
    expect(byId(questions, 'linkedin')).toMatchObject({ question: 'LinkedIn profile', category: 'linkedin' });
    expect(byId(questions, 'start')).toMatchObject({ question: 'Earliest start date', inputType: 'Date' });
    expect(byId(questions, 'work_auth')).toMatchObject({
      question: 'Are you authorized to work in the UK?',
      inputType: 'SelectOne',
      mandatory: true,
      category: 'workAuthorization',
      options: [
        { answer: 'Yes', conditionalQuestions: [] },
        { answer: 'No', conditionalQuestions: [] },
      ],
    });
    expect(byId(questions, 'languages')).toMatchObject({ inputType: 'SelectMultiple', mandatory: false });
    expect((byId(questions, 'languages').options ?? []).map((option) => ('answer' in option ? option.answer : ''))).toEqual([
      'English',
      'French',
      'German',
    ]);
    expect(byId(questions, 'privacy')).toMatchObject({ inputType: 'Boolean', mandatory: true, category: 'consent' });
    expect(byId(questions, 'skills')).toMatchObject({ inputType: 'SelectMultiple' });
  });

  it('labels each question with its section and names an unlabeled group by the text before it', () => {
    const actual = summarize(questionsOf(fixtureForms.sections));
    const read = sectionsFormQuestions
      .map(({ id }) => actual.find((question) => question.id === id))
      .map((question) => question && { id: question.id, question: question.question, label: question.label });
    expect(read).toEqual(sectionsFormQuestions.map(({ id, question, label }) => ({ id, question, label })));
  });

  it('drops placeholder options and widget internals, and keeps compound parts and multi-selects required', () => {
    expect(summarize(questionsOf(fixtureForms.sections))).toEqual(sectionsFormQuestions);
  });

  it('gives the same ids when the same form is mined again', () => {
    expect(questionsOf(fixtureForms.grouped).map((question) => question.id)).toEqual(
      questionsOf(fixtureForms.grouped).map((question) => question.id),
    );
  });

  it.each([
    ['closed', 'JobExpired'],
    ['login', 'LoginRequired'],
    ['noForm', 'FormNotFound'],
  ] as const)('maps the %s page to %s', (page, errorCode) => {
    expect(extractHtmlForm(fixtureForms[page], { defaultLabel: 'x' })).toMatchObject({ ok: false, errorCode });
  });

  it('reports a captcha wall as BotDetection', () => {
    const page = '<html><body><div class="g-recaptcha" data-sitekey="x"></div><form><input type="hidden" name="t"></form></body></html>';
    expect(extractHtmlForm(page, { defaultLabel: 'x' })).toMatchObject({ ok: false, errorCode: 'BotDetection' });
  });
});
