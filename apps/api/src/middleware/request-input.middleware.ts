import { AppError, findNul, nulMessage, validationError } from '@quarry/contracts';
import type { NextFunction, Request, Response } from 'express';

export type InputOptions = {
  /** Media types the endpoint reads its body as; anything else with a body is a 415. */
  bodyTypes?: readonly string[];
};

const jsonOnly = ['application/json'] as const;

function mediaTypeOf(request: Request): string {
  return (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

function hasBody(request: Request): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * The checks every endpoint's input passes before a route sees it, so no endpoint can forget
 * them: a body in a media type the endpoint does not read is a 415 (not a list of "required"
 * fields); a JSON body must be an object; and no string may carry a NUL character, which
 * PostgreSQL text cannot store (a 400 naming the field, or a 404 for a path naming a resource,
 * since no resource has such a name).
 */
export function inputProblem(request: Request, options: InputOptions = {}): AppError | null {
  for (const [name, value] of Object.entries(request.params ?? {})) {
    if (typeof value === 'string' && findNul(value) !== null)
      return new AppError('NotFound', `No such resource: ${name} contains a NUL character`);
  }
  const inQuery = findNul(request.query);
  if (inQuery !== null) return validationError([`${inQuery}: ${nulMessage}`]);
  if (!hasBody(request)) return null;
  const accepted = options.bodyTypes ?? jsonOnly;
  const type = mediaTypeOf(request);
  if (!accepted.includes(type)) {
    const message = `Content-Type: must be ${accepted.join(', ')}, not ${type ? `"${type}"` : 'missing'}`;
    return new AppError('UnsupportedMediaType', message, { messages: [message], accepted: [...accepted] });
  }
  if (type !== 'application/json') return null;
  const body: unknown = request.body;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return validationError(['body: must be a JSON object']);
  const inBody = findNul(body);
  return inBody === null ? null : validationError([`${inBody}: ${nulMessage}`]);
}

/** `inputProblem` as middleware, for the few endpoints that are not behind `requireClient`. */
export function checkInput(options: InputOptions = {}) {
  return (request: Request, _response: Response, next: NextFunction): void => {
    next(inputProblem(request, options) ?? undefined);
  };
}
