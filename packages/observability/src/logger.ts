import { pino, type Logger } from 'pino';

export type { Logger };

// Paths whose values are credentials wherever they appear in a log object.
const redactedPaths = [
  'authorization',
  '*.authorization',
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'headers["x-api-key"]',
  '*.headers["x-api-key"]',
  'secret',
  '*.secret',
  'jwtSecret',
  '*.jwtSecret',
  'password',
  '*.password',
  'apiKey',
  '*.apiKey',
  'panToken',
  '*.panToken',
  // Card fields, also when a number arrives as a JSON number (the shapes below only see strings).
  'pan',
  '*.pan',
  'cvv',
  '*.cvv',
  'cookies',
  '*.cookies',
];

// Card tokens (panToken v1: 164 chars; v2: "v2:" + 296), card numbers and HTTP credentials can
// also hide inside free text, such as an error message quoting a request, so strings are masked by
// shape as well. Bounded by "no word character next to it" rather than \b: a token may begin or
// end with one of + / = - itself, where \b would not match and the token would be logged in clear.
// A card number (PAN) is 13 to 19 digits, possibly grouped by spaces or dashes; it is masked
// whether or not its Luhn digit matches (a mistyped number is still a card number). A UUID is
// matched first and kept: its all-digit groups would otherwise read as a grouped number. The
// price: any other run of 13+ digits in a string (an epoch in milliseconds) is masked too.
const uuid = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';
const secretShapes: Array<[RegExp, (match: string, uuidMatched?: string) => string]> = [
  [/(?<![A-Za-z0-9_])v2:[A-Za-z0-9+/=_-]{296}(?![A-Za-z0-9_])/g, () => '[Redacted]'],
  [/(?<![A-Za-z0-9_])[A-Za-z0-9+/=_-]{164}(?![A-Za-z0-9_])/g, () => '[Redacted]'],
  [
    new RegExp(`(?<![A-Za-z0-9_])(?:(${uuid})|(?:\\d[ -]?){12,18}\\d)(?![A-Za-z0-9_])`, 'g'),
    (match, uuidMatched) => uuidMatched ?? '[Redacted]',
  ],
  [/\b(Basic|Bearer)\s+[A-Za-z0-9+/=._-]{8,}/gi, () => '[Redacted]'],
];

/**
 * Whether `text` could hold a shape above: a token is 164 characters or more, a card number 13
 * digits or more, a credential follows the word Basic or Bearer (and 14 characters at least). Most
 * strings (every attribute of a plain request's span, most log fields) are none of these and skip
 * the four replacements, which cost about ten times the span they are masked in.
 */
function mayHoldSecret(text: string): boolean {
  if (text.length < 13) return false;
  if (text.length >= 164) return true;
  let digits = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code >= 48 && code <= 57 && ++digits === 13) return true;
  }
  return /basic|bearer/i.test(text);
}

// A secret in a URL's query string (Lever's posting key travels as `?key=`, a callback URL may
// carry a token): the value is masked, the parameter's name and the rest of the URL kept.
const querySecret =
  /([?&](?:key|api[_-]?key|apikey|token|access[_-]?token|refresh[_-]?token|secret|client[_-]?secret|password|passwd|otp|sig|signature|auth)=)[^&#\s"'<>]+/gi;

export function maskSecretShapes(text: string): string {
  let masked = text;
  if (masked.includes('=') && (masked.includes('?') || masked.includes('&'))) masked = masked.replace(querySecret, '$1[Redacted]');
  if (!mayHoldSecret(masked)) return masked;
  for (const [shape, replace] of secretShapes) masked = masked.replace(shape, replace);
  return masked;
}

/**
 * Field names whose values are secrets wherever they appear, at any depth, compared without case
 * and without `-` or `_` (`api_key`, `x-api-key` and `apiKey` alike).
 */
const secretNames = new Set([
  'authorization',
  'proxyauthorization',
  'cookie',
  'cookies',
  'setcookie',
  'xapikey',
  'apikey',
  'key',
  'secret',
  'jwtsecret',
  'clientsecret',
  'webhooksecret',
  'password',
  'passwd',
  'otp',
  'token',
  'accesstoken',
  'refreshtoken',
  'idtoken',
  'pantoken',
  'pan',
  'cvv',
  'cvc',
  'privatekey',
]);
const isSecretName = (name: string) => secretNames.has(name.replace(/[-_]/g, '').toLowerCase());

/** Masks every string inside a value (objects and arrays, 16 levels deep): error bodies, span attributes. */
export function maskSecretsDeep<T>(value: T): T {
  return maskDeep(value, 0) as T;
}

function maskDeep(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return maskSecretShapes(value);
  if (depth > 15 || value === null || typeof value !== 'object') return value;
  if (value instanceof Error) return value;
  if (Array.isArray(value)) return value.map((item) => maskDeep(item, depth + 1));
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key,
      item !== undefined && item !== null && isSecretName(key) ? '[Redacted]' : maskDeep(item, depth + 1),
    ]),
  );
}

export function createLogger(options: { level: string; name?: string; destination?: NodeJS.WritableStream }): Logger {
  return pino(
    {
      level: options.level,
      name: options.name ?? 'quarry',
      redact: { paths: redactedPaths, censor: '[Redacted]' },
      // Serializers run after `formatters.log`: an Error's message and stack, and the `msg` pino
      // takes from an Error logged without a message, are masked here.
      serializers: {
        err: (error: Error) => maskDeep(pino.stdSerializers.err(error), 0),
        msg: (message: unknown) => (typeof message === 'string' ? maskSecretShapes(message) : message),
      },
      formatters: { log: (object) => maskDeep(object, 0) as Record<string, unknown> },
      hooks: {
        logMethod(args, method) {
          method.apply(this, args.map((arg) => (typeof arg === 'string' ? maskSecretShapes(arg) : arg)) as never);
        },
      },
    },
    (options.destination as pino.DestinationStream | undefined) ?? pino.destination({ sync: false }),
  );
}
