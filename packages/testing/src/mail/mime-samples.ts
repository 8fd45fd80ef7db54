/**
 * A multipart message with one text part in the given transfer encoding and an attachment already
 * in base64: what the 8-bit → 7-bit tests convert and send.
 */
export function multipartSample(options: { from: string; textEncoding: string; text: string; preamble?: string }): Buffer {
  return Buffer.from(
    [
      `From: ${options.from}`,
      'To: b@example.net',
      'Subject: =?UTF-8?Q?Gr=C3=BC=C3=9Fe?=',
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="b1"',
      '',
      ...(options.preamble ? [options.preamble] : []),
      '--b1',
      'Content-Type: text/plain; charset=utf-8',
      `Content-Transfer-Encoding: ${options.textEncoding}`,
      '',
      options.text,
      '--b1',
      'Content-Type: application/octet-stream',
      'Content-Transfer-Encoding: base64',
      '',
      'AAECAwQF',
      '--b1--',
      '',
    ].join('\r\n'),
  );
}
