import { describe, expect, it } from 'vitest';
import { classifyAfterClick, codeOfFieldError, refusalOf, type PageReading } from './outcome-page.ts';

const reading = (text: string, extra: Partial<PageReading> = {}): PageReading => ({
  url: 'https://jobs.example.com/apply/1',
  text,
  errors: [],
  challenge: false,
  botCheck: null,
  ...extra,
});
const form = reading('Apply for Analyst. First name Last name Email. This site is protected by reCAPTCHA and the Google Privacy Policy.');

describe('classifyAfterClick', () => {
  it('takes no success from wording the form page already showed', () => {
    const before = reading('Thank you for applying to Acme: fill in the form below.');
    expect(classifyAfterClick(before, before, 200)).toMatchObject({ status: 'pending' });
  });

  it('takes a confirmation address the page moved to as success', () => {
    expect(classifyAfterClick(form, { ...form, url: 'https://jobs.example.com/apply/1/confirmation' }, 200)).toMatchObject({
      status: 'success',
    });
  });

  it('does not read a "protected by reCAPTCHA" footer as a bot wall', () => {
    expect(refusalOf(form)).toBeNull();
    expect(classifyAfterClick(form, { ...form, text: `${form.text} Thank you for applying!` }, 200)).toMatchObject({ status: 'success' });
  });

  it('reads a reference only when it has a digit', () => {
    expect(classifyAfterClick(form, reading('Thank you for your application. Application received.'), 200)).toEqual({
      status: 'success',
      confirmation: { text: 'Thank you for your application. Application received.' },
    });
    expect(classifyAfterClick(form, reading('Thanks for applying! Confirmation number: 88-A12.'), 200)).toMatchObject({
      confirmation: { reference: '88-A12' },
    });
  });

  it('prefers a field error to a success word, and never calls a server error success', () => {
    expect(classifyAfterClick(form, reading('Thank you for applying', { errors: ['Email is not valid'] }), 200)).toMatchObject({
      status: 'failed',
      code: 'ApplicantDetailsInvalid',
    });
    expect(classifyAfterClick(form, reading('Internal Server Error'), 500)).toMatchObject({ status: 'pending' });
  });
});

describe('codeOfFieldError', () => {
  it.each([
    ['File type not supported. Please upload a PDF.', 'FileTypeNotSupported'],
    ['This file is invalid. Supported formats include PDF, DOC, DOCX, or RTF (max 20MB).', 'FileTypeNotSupported'],
    ['jane-doe-cv.pdf failed to upload', 'FileFailedToUpload'],
    ['Please enter a valid email address', 'ApplicantDetailsInvalid'],
    ["Email Requires an '@' symbol", 'ApplicantDetailsInvalid'],
    ['This field is required.', 'MandatoryQuestionsNotAnswered'],
    ['Please verify.', 'ApplicationFailed'],
  ])('%s → %s', (message, code) => {
    expect(codeOfFieldError(message)).toBe(code);
  });
});
