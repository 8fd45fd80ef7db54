import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoSites, type DemoSites } from './demo-sites.ts';

// The careers page must take what its own form sends, as the browser applier sends it: the demo's
// quick start applies to it with the CV the demo serves.
let sites: DemoSites;

beforeAll(async () => {
  sites = await startDemoSites({ host: '127.0.0.77', port: 0, smtpPort: 0 });
});

afterAll(async () => {
  await sites?.close();
});

const cv = async () =>
  new Blob([new Uint8Array(await (await fetch(`${sites.origin}/files/jane-doe-cv.pdf`)).arrayBuffer())], { type: 'application/pdf' });

function form(fields: Record<string, string>, resume?: Blob): FormData {
  const body = new FormData();
  for (const [name, value] of Object.entries(fields)) body.append(name, value);
  if (resume) body.append('resume', resume, 'jane-doe-cv.pdf');
  return body;
}

const answers = { first_name: 'Jane', last_name: 'Doe', email: 'jane@example.com', experience: '3-5', work_permit: 'no' };

describe('the demo careers page', () => {
  it('serves a PDF CV to apply with', async () => {
    const response = await fetch(`${sites.origin}/files/jane-doe-cv.pdf`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/pdf');
    const text = Buffer.from(await response.arrayBuffer()).toString('latin1');
    expect(text.startsWith('%PDF-1.4\n')).toBe(true);
    // The cross-reference table points at each object.
    const offset = Number(/startxref\n(\d+)/.exec(text)?.[1]);
    expect(text.slice(offset, offset + 4)).toBe('xref');
    const firstObject = Number(/\n(\d{10}) 00000 n /.exec(text)?.[1]);
    expect(text.slice(firstObject, firstObject + 7)).toBe('1 0 obj');
  });

  it('takes an application sent by its form and confirms it with a reference', async () => {
    const response = await fetch(`${sites.origin}/jobs/backend-engineer/apply`, { method: 'POST', body: form(answers, await cv()) });
    expect(response.status).toBe(200);
    const page = await response.text();
    expect(page).toMatch(/Thank you for applying, Jane! Your application has been received\. Your reference is DR-\d+\./);
    const received = (await (await fetch(`${sites.origin}/applications`)).json()) as DemoSites['applications'];
    expect(received[0]).toMatchObject({
      fields: { first_name: ['Jane'], work_permit: ['no'] },
      files: [{ field: 'resume', filename: 'jane-doe-cv.pdf', contentType: 'application/pdf' }],
    });
    expect(page).toContain(received[0]!.reference);
  });

  it('refuses an application without a required answer, naming it, and keeps nothing', async () => {
    const before = sites.applications.length;
    const response = await fetch(`${sites.origin}/jobs/backend-engineer/apply`, {
      method: 'POST',
      body: form({ ...answers, work_permit: '' }),
    });
    expect(response.status).toBe(422);
    expect(await response.text()).toMatch(/role="alert".*work_permit, resume is required/);
    expect(sites.applications.length).toBe(before);
  });
});
