import { describe, expect, it } from 'vitest';
import { fitsAccept, sniffFileType } from './file-types.ts';

describe('sniffFileType', () => {
  it('tells the types job forms accept from their bytes', () => {
    expect(sniffFileType(Buffer.from('%PDF-1.7\n%âãÏÓ\n1 0 obj'))?.extension).toBe('.pdf');
    expect(sniffFileType(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]))?.extension).toBe('.png');
    expect(sniffFileType(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]))?.extension).toBe('.jpg');
    expect(sniffFileType(Buffer.from('{\\rtf1\\ansi Hello}'))?.extension).toBe('.rtf');
    expect(sniffFileType(Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0]))?.extension).toBe('.doc');
    const docx = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.from('....[Content_Types].xml....word/document.xml')]);
    expect(sniffFileType(docx)?.extension).toBe('.docx');
    expect(sniffFileType(Buffer.from('Ada Lovelace\nAnalyst, 1843 — résumé\n'))?.extension).toBe('.txt');
  });

  it('knows no other zip, binary or empty file', () => {
    expect(sniffFileType(Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.from('other.bin')]))).toBeNull();
    expect(sniffFileType(Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x00]))).toBeNull();
    expect(sniffFileType(Buffer.alloc(0))).toBeNull();
  });
});

describe('fitsAccept', () => {
  it('reads extensions, MIME types and wildcards', () => {
    expect(fitsAccept('cv.PDF', ['.pdf'])).toBe(true);
    expect(fitsAccept('cv.pdf', ['application/pdf'])).toBe(true);
    expect(fitsAccept('cv.jpeg', ['image/*'])).toBe(true);
    expect(fitsAccept('cv.txt', ['.pdf', '.docx'])).toBe(false);
    expect(fitsAccept('cv.exe', ['*/*'])).toBe(true);
  });
});
