import { readFileSync } from 'node:fs';
import { htmlPage, type HostedReply, type HostedVendor } from './hosted-ats.double.ts';

const leverApplyPageFixture = () => readFileSync(new URL('../../../miner/fixtures/ats/lever/tenant-b.html', import.meta.url), 'utf8');

export const leverPostingId = '5ac21346-8e0c-4494-8e7a-3eb92ff77902';

/** Lever's stylesheet, as far as the form needs it: the upload states and the hidden hCaptcha submit are drawn only when shown. */
const style = `<style>.hidden{display:none}.resume-upload-failure,.resume-upload-working,.resume-upload-success,.resume-upload-oversize{display:none}
.show{display:block!important}.h-captcha.challenge{width:300px;height:80px;border:1px solid #ccc}</style>`;

/**
 * The page's own behaviour, as Lever's measured: choosing the résumé POSTs it to `/parseResume`
 * at once (the stored id goes to `resumeStorageId`; "Couldn't auto-read resume." when refused);
 * "Submit application" runs hCaptcha, then submits the form natively (multipart, every box by its
 * name). `botCheck` makes hCaptcha show its challenge instead.
 */
const script = (botCheck: boolean) => `
const form = document.getElementById('application-form');
const resume = document.getElementById('resume-upload-input');
resume.addEventListener('change', async () => {
  const show = (name) => { for (const state of ['failure', 'working', 'success']) document.querySelector('.resume-upload-' + state).classList.toggle('show', state === name); };
  show('working');
  const body = new FormData(); body.append('resume', resume.files[0], resume.files[0].name);
  const answer = await fetch('/parseResume', { method: 'POST', body });
  if (!answer.ok) { show('failure'); document.querySelector('.resume-upload-failure').setAttribute('role', 'alert'); return; }
  form.querySelector('[name=resumeStorageId]').value = (await answer.json()).resumeStorageId;
  show('success');
});
document.getElementById('btn-submit').addEventListener('click', () => {
  if (${botCheck}) { document.getElementById('h-captcha').classList.add('challenge'); document.getElementById('h-captcha').innerHTML = '<iframe src="about:blank#frame=challenge&host=jobs.lever.co&hcaptcha.com" title="hCaptcha challenge" width="300" height="80"></iframe>'; return; }
  if (form.reportValidity()) form.requestSubmit(document.getElementById('hcaptchaSubmitBtn'));
});`;

/**
 * Lever's hosted form (jobs.lever.co/{site}/{id}/apply): the captured page of the fixture, served
 * as is but for its third-party scripts, posting to itself. Success moves to `…/thanks`
 * (the research expects it there; unmeasured). Closed: 404 "Sorry, we couldn't find anything
 * here…". Refused résumé: "Couldn't auto-read resume." Bot check: hCaptcha at Submit (4 of 4
 * tenants measured). Lever merges a repeat e-mail into one candidate: no duplicate refusal.
 */
export function leverHostedVendor(): HostedVendor {
  const applyPath = `/acme/${leverPostingId}/apply`;
  const captured = leverApplyPageFixture()
    .replace(/<script type="IN\/AwliWidget"[^>]*><\/script>/g, '')
    .replace(
      '<form id="application-form" enctype="multipart/form-data" method="POST">',
      `<form id="application-form" enctype="multipart/form-data" method="POST" action="${applyPath}">`,
    );
  // The capture is the page's `<form>`: it gets the page around it.
  const page = (botCheck: boolean) =>
    htmlPage(
      'Acme - Software Engineer',
      `<link rel="canonical" href="https://jobs.lever.co${applyPath}">${style}`,
      `<div class="application-page">${captured}</div>`,
      script(botCheck),
    );
  const message = (status: number, title: string, body: string): HostedReply => ({ status, html: htmlPage(title, '', body, '') });
  return {
    ats: 'lever',
    applyPath,
    variants: ['accept', 'closed', 'invalidFile', 'missingField', 'botCheck'],
    page: (variant) =>
      variant === 'closed'
        ? message(
            404,
            'Not found – 404 error',
            "<h2>Sorry, we couldn't find anything here</h2><p>The job posting you're looking for might have closed, or it has been removed.</p>",
          )
        : { status: 200, html: page(variant === 'botCheck') },
    post: (request, variant) => {
      if (request.path === '/parseResume') {
        if (variant === 'invalidFile') return { kind: 'early', reply: { status: 422, json: { error: 'unsupported file' } } };
        return { kind: 'early', reply: { status: 200, json: { resumeStorageId: 'c1d2e3f4-0000-4000-8000-00000000cafe' } } };
      }
      if (variant === 'missingField')
        return {
          kind: 'submission',
          reply: {
            status: 400,
            html: page(false).replace(
              '<ul>',
              '<div class="error-message" role="alert">Please fill out this field: Current location</div><ul>',
            ),
          },
        };
      return { kind: 'submission', reply: { status: 303, headers: { location: applyPath.replace(/\/apply$/, '/thanks') } } };
    },
    extraPages: {
      [applyPath.replace(/\/apply$/, '/thanks')]: message(
        200,
        'Acme',
        '<h3>Application submitted!</h3><p>Thanks for applying to Acme. We will be in touch.</p>',
      ),
    },
  };
}
