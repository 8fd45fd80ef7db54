import { readFileSync } from 'node:fs';
import { htmlPage, type HostedReply, type HostedVendor } from './hosted-ats.double.ts';

export const jazzhrJobPath = '/apply/AbCdE00001/Test-Role';

const captured = () => readFileSync(new URL('../../../miner/fixtures/ats/jazzhr/tenant-a.html', import.meta.url), 'utf8');

/** Google's widget as a person meets it: a 304×78 "I'm not a robot" box (its script is never served here). */
const recaptchaShown = `<div class="g-recaptcha" data-sitekey="test-site-key" style="width:304px;height:78px;border:1px solid #d3d3d3"><span>I'm not a robot</span></div>`;

/**
 * JazzHR's hosted form ({company}.applytojob.com/apply/{id}/{slug}): the captured page, posting
 * natively (multipart) to the posting address; nothing leaves before Submit, a link ("Submit
 * Application") that submits the form. Closed: 410 "This position is no longer available".
 * Refused file: the 5 MB limit, checked at Submit. Bot check: the required reCAPTCHA v2 checkbox
 * ("Human Check") drawn on load; in the `accept` answer it is not drawn (its script is not served),
 * the case of a candidate Google lets through.
 */
export function jazzhrHostedVendor(): HostedVendor {
  const form = (botCheck: boolean, notice = '') => {
    const page = captured()
      .replace(/<script src="https:\/\/www\.google\.com\/recaptcha\/api\.js"[^>]*><\/script>/g, '')
      .replace('action="https://acme.applytojob.com/apply/AbCdE00001/Test-Role"', `action="${jazzhrJobPath}"`)
      .replace(
        '<div class="g-recaptcha" data-sitekey="test-site-key"></div>',
        botCheck ? recaptchaShown : '<div class="g-recaptcha" data-sitekey="test-site-key"></div>',
      );
    return htmlPage(
      'Test Role - Acme',
      `<link rel="canonical" href="https://acme.applytojob.com${jazzhrJobPath}">`,
      `${notice}${page}`,
      "document.getElementById('resumator-submit-resume').addEventListener('click', (event) => { event.preventDefault(); document.getElementById('form_submit_new_resume').requestSubmit(); });",
    );
  };
  const message = (status: number, body: string): HostedReply => ({ status, html: htmlPage('Acme', '', body, '') });
  return {
    ats: 'jazzhr',
    applyPath: jazzhrJobPath,
    variants: ['accept', 'closed', 'invalidFile', 'missingField', 'botCheck'],
    page: (variant) =>
      variant === 'closed'
        ? message(410, '<h2>This position is no longer available</h2>')
        : { status: 200, html: form(variant === 'botCheck') },
    post: (_request, variant) => {
      if (variant === 'invalidFile')
        return {
          kind: 'submission',
          reply: {
            status: 200,
            html: form(false, '<div class="alert alert-danger" role="alert">The resume file you uploaded is too large (limit 5MB).</div>'),
          },
        };
      if (variant === 'missingField')
        return {
          kind: 'submission',
          reply: {
            status: 200,
            html: form(false, '<div class="alert alert-danger" role="alert">Desired salary is a required field.</div>'),
          },
        };
      return {
        kind: 'submission',
        reply: message(200, '<h2>Thank you for applying!</h2><p>Your application has been submitted to Acme.</p>'),
      };
    },
  };
}
