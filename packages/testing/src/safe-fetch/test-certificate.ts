import crypto from 'node:crypto';

/*
 * A self-signed certificate built in-process, so the TLS tests need neither openssl nor a checked-in
 * private key. Only the handful of DER structures an X.509 v3 certificate needs are encoded.
 */

function length(size: number): Buffer {
  if (size < 0x80) return Buffer.from([size]);
  const bytes: number[] = [];
  for (let rest = size; rest > 0; rest >>= 8) bytes.unshift(rest & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function tlv(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), length(body.length), body]);
}

const sequence = (...content: Buffer[]): Buffer => tlv(0x30, ...content);

function objectId(dotted: string): Buffer {
  const [first = 0, second = 0, ...rest] = dotted.split('.').map(Number);
  const bytes = [first * 40 + second];
  for (const arc of rest) {
    const groups = [arc & 0x7f];
    for (let high = arc >> 7; high > 0; high >>= 7) groups.unshift((high & 0x7f) | 0x80);
    bytes.push(...groups);
  }
  return tlv(0x06, Buffer.from(bytes));
}

function utcTime(date: Date): Buffer {
  const text = date.toISOString().replace(/[-:T]/g, '').slice(2, 14) + 'Z';
  return tlv(0x17, Buffer.from(text, 'ascii'));
}

const commonName = (name: string): Buffer => sequence(tlv(0x31, sequence(objectId('2.5.4.3'), tlv(0x0c, Buffer.from(name, 'utf8')))));

type TestCertificate = { cert: string; key: string };

/** An ECDSA P-256 certificate for `dnsName`, valid from an hour ago for a day, usable as its own CA. */
export function createTestCertificate(dnsName: string): TestCertificate {
  const { publicKey, privateKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const ecdsaWithSha256 = sequence(objectId('1.2.840.10045.4.3.2'));
  const serial = crypto.randomBytes(8);
  serial[0] = ((serial[0] ?? 1) & 0x7f) | 0x01; // positive and without a leading zero byte
  const now = Date.now();
  const subjectAltName = sequence(objectId('2.5.29.17'), tlv(0x04, sequence(tlv(0x82, Buffer.from(dnsName, 'ascii')))));
  const basicConstraints = sequence(objectId('2.5.29.19'), tlv(0x04, sequence(tlv(0x01, Buffer.from([0xff])))));
  const tbs = sequence(
    tlv(0xa0, tlv(0x02, Buffer.from([2]))),
    tlv(0x02, serial),
    ecdsaWithSha256,
    commonName(dnsName),
    sequence(utcTime(new Date(now - 3_600_000)), utcTime(new Date(now + 86_400_000))),
    commonName(dnsName),
    publicKey.export({ type: 'spki', format: 'der' }),
    tlv(0xa3, sequence(subjectAltName, basicConstraints)),
  );
  const signature = crypto.sign('sha256', tbs, privateKey);
  const der = sequence(tbs, ecdsaWithSha256, tlv(0x03, Buffer.from([0]), signature));
  const base64 = der.toString('base64').replace(/.{64}/g, '$&\n');
  return {
    cert: `-----BEGIN CERTIFICATE-----\n${base64.trimEnd()}\n-----END CERTIFICATE-----\n`,
    key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}
