import type { IncomingMessage } from 'node:http';

/** What the demo careers page received of one application: its fields, and each file's name and size. */
export type ReceivedApplication = {
  receivedAt: string;
  reference: string;
  fields: Record<string, string[]>;
  files: Array<{ field: string; filename: string; contentType: string; bytes: number }>;
};

/** Where the demo serves a candidate's CV: an application's File answer must be fetched from the one private address client URLs may reach. */
export const demoCvPath = '/files/jane-doe-cv.pdf';

/** Answers the careers page's own form requires, as a real site checks them on its side too. */
const requiredFields = ['first_name', 'last_name', 'email', 'experience', 'work_permit'];

/** A one-page PDF naming the demo candidate, built with its cross-reference table so viewers open it as is. */
export function demoCv(): Buffer {
  const text = 'BT /F1 18 Tf 72 770 Td (Jane Doe - Curriculum vitae) Tj ET';
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${text.length} >>\nstream\n${text}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let pdf = '%PDF-1.4\n';
  const offsets = objects.map((object, index) => {
    const offset = pdf.length;
    pdf += `${index + 1} 0 obj\n${object}\nendobj\n`;
    return offset;
  });
  const xref = pdf.length;
  pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('')}`;
  pdf += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(pdf, 'latin1');
}

const page = (title: string, body: string) =>
  `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${title} · Demo Robotics</title></head><body><h1>${title}</h1>${body}</body></html>`;

/**
 * Stands in for the employer's side of the careers page: takes the form's `POST` (multipart, as
 * its form sends it), refuses it with the site's own message when a required answer is missing,
 * and otherwise keeps a summary and answers with a confirmation and a reference, as careers sites do.
 */
export function createApplicationReceiver(maxKept = 20) {
  const applications: ReceivedApplication[] = [];
  let sequence = 1000;
  return {
    applications,
    async receive(request: IncomingMessage, maxBytes: number): Promise<{ status: number; html: string }> {
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of request) {
        size += (chunk as Buffer).length;
        if (size > maxBytes)
          return { status: 413, html: page('Too large', '<p role="alert">The application is larger than this site takes.</p>') };
        chunks.push(chunk as Buffer);
      }
      const form = await new Request('http://demo.invalid/', {
        method: 'POST',
        headers: { 'content-type': request.headers['content-type'] ?? 'application/x-www-form-urlencoded' },
        body: new Uint8Array(Buffer.concat(chunks)),
      }).formData();
      const received: ReceivedApplication = { receivedAt: new Date().toISOString(), reference: '', fields: {}, files: [] };
      for (const [name, value] of form) {
        if (typeof value === 'string') (received.fields[name] ??= []).push(value);
        else if (value.size > 0) received.files.push({ field: name, filename: value.name, contentType: value.type, bytes: value.size });
      }
      const missing = requiredFields.filter((name) => !received.fields[name]?.[0]?.trim());
      if (!received.files.some((file) => file.field === 'resume')) missing.push('resume');
      if (missing.length > 0)
        return {
          status: 422,
          html: page(
            'Backend Engineer',
            `<p role="alert" class="error">Please answer every required question: ${missing.join(', ')} is required.</p>`,
          ),
        };
      sequence += 1;
      received.reference = `DR-${sequence}`;
      applications.unshift(received);
      applications.splice(maxKept);
      const name = received.fields.first_name?.[0] ?? '';
      return {
        status: 200,
        html: page(
          'Application received',
          `<p>Thank you for applying, ${escapeHtml(name)}! Your application has been received. Your reference is ${received.reference}.</p>`,
        ),
      };
    },
  };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
