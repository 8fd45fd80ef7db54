import { AppError, renderError, type ErrorSurface } from '@quarry/contracts';
import { isStoreOutage } from '@quarry/jobs';
import { maskSecretsDeep, type Logger } from '@quarry/observability';
import type { NextFunction, Request, Response } from 'express';

type HttpError = Error & { status?: number; type?: string; expose?: boolean; limit?: number; body?: unknown };

/**
 * Where JSON.parse stopped in the body, with its line and column and what it expected: `at position
 * 9 (line 1, column 10): Expected ',' or '}' after property value`. Never the body's text itself:
 * it may hold secrets (V8 quotes the body in "Unexpected token" messages, which is cut).
 */
function whereJsonBroke(body: unknown): string {
  if (typeof body !== 'string') return '';
  let message: string;
  try {
    JSON.parse(body);
    return '';
  } catch (error) {
    message = (error as Error).message;
  }
  const token = /^Unexpected token '(.)'/.exec(message);
  const reported = /at position (\d+)/.exec(message);
  const position = reported
    ? Number(reported[1])
    : token
      ? body.indexOf(token[1] as string)
      : /end of JSON input/.test(message)
        ? body.length
        : -1;
  const problem = token ? `Unexpected token '${token[1]}'` : message.replace(/\s*(in JSON )?at position \d+.*$/, '');
  if (position < 0) return `: ${problem}`;
  const before = body.slice(0, position).split('\n');
  return ` at position ${position} (line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}): ${problem}`;
}

/** Errors raised by express's own body parsers, turned into our codes. */
function fromParserError(error: HttpError): AppError | null {
  if (error.type === 'entity.too.large') {
    const message = `body: larger than the limit of ${error.limit ?? 'the endpoint'} bytes`;
    return new AppError('PayloadTooLarge', message, { messages: [message], ...(error.limit ? { limitBytes: error.limit } : {}) });
  }
  if (error.type === 'entity.parse.failed') {
    const message = `body: not valid JSON${whereJsonBroke(error.body)}`;
    return new AppError('RequestParametersValidationError', message, { messages: [message] });
  }
  if (error.type === 'encoding.unsupported' || error.type === 'charset.unsupported') return new AppError('UnsupportedMediaType');
  return null;
}

/**
 * The one place an error becomes a status and body; unknown errors are logged and answered
 * generically. A store that cannot be reached is 503 with Retry-After (the process logs the
 * outage once, through the store's health log, not once per request).
 */
export function errorHandler(logger: Logger) {
  return (error: unknown, request: Request, response: Response, _next: NextFunction): void => {
    const surface = (response.locals.errorSurface as ErrorSurface | undefined) ?? 'standard';
    const appError =
      error instanceof AppError
        ? error
        : (fromParserError(error as HttpError) ?? (isStoreOutage(error) ? new AppError('ServiceUnavailable') : null));
    if (!appError) {
      logger.error({ err: error, method: request.method, path: request.path }, 'unhandled error');
    }
    const { status, body, headers } = renderError(appError ?? new AppError('InternalError'), surface);
    if (response.headersSent) {
      response.destroy();
      return;
    }
    for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
    // Card numbers, card tokens and credentials are masked by shape in every error body, whatever
    // message or detail carried them (an upstream's error quoting a request, a client's own input).
    response.status(status).json(maskSecretsDeep(body));
  };
}

export function notFoundHandler(_request: Request, _response: Response, next: NextFunction): void {
  next(new AppError('NotFound', 'No such endpoint'));
}
