import { randomBytes } from 'node:crypto';
import type { FileToUpload } from '@quarry/hosted-form-apply';

type Part = { name: string; value: string } | { name: string; file: FileToUpload };

const quoted = (text: string) => text.replaceAll('\\', '\\\\').replaceAll('"', '%22').replaceAll('\r', '%0D').replaceAll('\n', '%0A');

/**
 * A multipart/form-data body written byte for byte. The platform's FormData rewrites every line
 * break of a text value to CRLF (the HTML serialisation rule), which would change candidates'
 * answers; here text and files go out exactly as given.
 */
export class MultipartBody {
  readonly #parts: Part[] = [];

  append(name: string, value: string | FileToUpload): void {
    this.#parts.push(typeof value === 'string' ? { name, value } : { name, file: value });
  }

  encode(): { body: Buffer; contentType: string } {
    const boundary = `----quarry${randomBytes(12).toString('hex')}`;
    const chunks: Buffer[] = [];
    for (const part of this.#parts) {
      const head =
        'file' in part
          ? `--${boundary}\r\nContent-Disposition: form-data; name="${quoted(part.name)}"; filename="${quoted(part.file.filename)}"\r\nContent-Type: ${part.file.contentType}\r\n\r\n`
          : `--${boundary}\r\nContent-Disposition: form-data; name="${quoted(part.name)}"\r\n\r\n`;
      chunks.push(Buffer.from(head, 'utf8'), 'file' in part ? part.file.bytes : Buffer.from(part.value, 'utf8'), Buffer.from('\r\n'));
    }
    chunks.push(Buffer.from(`--${boundary}--\r\n`));
    return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
  }
}
