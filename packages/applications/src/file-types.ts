/**
 * The file types an application may carry, told from the bytes (never from the name or the
 * server's Content-Type, which the client's storage sets). Magic numbers for the formats job
 * forms accept: `file-type` (the usual library) reports Word 97 files only as a generic compound
 * file and plain text not at all, which are two of the formats that matter here.
 */
export type SniffedType = { extension: string; contentType: string };

const types = {
  pdf: { extension: '.pdf', contentType: 'application/pdf' },
  doc: { extension: '.doc', contentType: 'application/msword' },
  docx: { extension: '.docx', contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' },
  odt: { extension: '.odt', contentType: 'application/vnd.oasis.opendocument.text' },
  rtf: { extension: '.rtf', contentType: 'application/rtf' },
  txt: { extension: '.txt', contentType: 'text/plain' },
  png: { extension: '.png', contentType: 'image/png' },
  jpg: { extension: '.jpg', contentType: 'image/jpeg' },
} as const satisfies Record<string, SniffedType>;

const startsWith = (bytes: Buffer, signature: number[]) =>
  bytes.length >= signature.length && signature.every((byte, index) => bytes[index] === byte);

/** Plain text: valid UTF-8 without NUL or other control bytes than tab, newlines and form feed. */
function isText(bytes: Buffer): boolean {
  if (bytes.length === 0) return false;
  const sample = bytes.subarray(0, 64 * 1024);
  for (const byte of sample) if (byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d && byte !== 0x0c) return false;
  try {
    // A sample cut inside a multi-byte character is still text: trim up to 3 bytes at the end.
    new TextDecoder('utf-8', { fatal: true }).decode(sample.length < bytes.length ? sample.subarray(0, sample.length - 3) : sample);
    return true;
  } catch {
    return false;
  }
}

export function sniffFileType(bytes: Buffer): SniffedType | null {
  if (startsWith(bytes, [0x25, 0x50, 0x44, 0x46, 0x2d])) return types.pdf; // %PDF-
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return types.png;
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return types.jpg;
  if (startsWith(bytes, [0x7b, 0x5c, 0x72, 0x74, 0x66])) return types.rtf; // {\rtf
  if (startsWith(bytes, [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])) return types.doc; // OLE2 compound file (Word 97-2003)
  if (startsWith(bytes, [0x50, 0x4b, 0x03, 0x04])) {
    // A zip: an OpenDocument file names its type in the first entry; a Word file has word/ entries.
    const head = bytes.subarray(0, Math.min(bytes.length, 256)).toString('latin1');
    if (head.includes('mimetypeapplication/vnd.oasis.opendocument.text')) return types.odt;
    if (
      bytes.includes('word/document.xml', 0, 'latin1') ||
      (bytes.includes('[Content_Types].xml', 0, 'latin1') && bytes.includes('word/', 0, 'latin1'))
    )
      return types.docx;
    return null;
  }
  return isText(bytes) ? types.txt : null;
}

const mimeExtensions: Record<string, string[]> = {
  'application/pdf': ['.pdf'],
  'application/msword': ['.doc'],
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': ['.docx'],
  'application/vnd.oasis.opendocument.text': ['.odt'],
  'application/rtf': ['.rtf'],
  'text/rtf': ['.rtf'],
  'text/plain': ['.txt'],
  'image/png': ['.png'],
  'image/jpeg': ['.jpg', '.jpeg'],
};

/** The extensions an `accept` list allows (`.pdf`, `application/pdf`, `image/*`); null: anything. */
function acceptedExtensions(accept: readonly string[]): Set<string> | null {
  const extensions = new Set<string>();
  for (const raw of accept) {
    const entry = raw.trim().toLowerCase();
    if (entry === '' || entry === '*' || entry === '*/*') return null;
    if (entry.startsWith('.')) extensions.add(entry === '.jpeg' ? '.jpg' : entry);
    else if (entry.endsWith('/*')) {
      for (const [mime, list] of Object.entries(mimeExtensions))
        if (mime.startsWith(entry.slice(0, -1))) list.forEach((extension) => extensions.add(extension));
    } else for (const extension of mimeExtensions[entry] ?? []) extensions.add(extension);
  }
  if (extensions.has('.jpg')) extensions.add('.jpeg');
  return extensions;
}

const extensionOf = (filename: string) => {
  const dot = filename.lastIndexOf('.');
  return dot < 0 ? '' : filename.slice(dot).toLowerCase();
};

/** Whether a file name's extension is one the question accepts. */
export function fitsAccept(filename: string, accept: readonly string[]): boolean {
  const allowed = acceptedExtensions(accept);
  return allowed === null || allowed.has(extensionOf(filename));
}

/** Whether sniffed bytes are of a type the question accepts (a `.jpeg` name and JPEG bytes agree). */
export function typeFitsAccept(type: SniffedType, accept: readonly string[]): boolean {
  const allowed = acceptedExtensions(accept);
  return allowed === null || allowed.has(type.extension);
}
