import { AppError, renderError, type ErrorSurface } from '@quarry/contracts';
import { isStoreOutage } from '@quarry/jobs';
import { maskSecretsDeep, type Logger } from '@quarry/observability';
import type { NextFunction, Request, Response } from 'express';

type HttpError = Error & { status?: number; type?: string; expose?: boolean; limit?: number };

/** Errors raised by express's own body parsers, turned into our codes. */
function fromParserError(error: HttpError): AppError | null {
  if (error.type === 'entity.too.large') {
    const message = `body: larger than the limit of ${error.limit ?? 'the endpoint'} bytes`;
    return new AppError('PayloadTooLarge', message, { messages: [message], ...(error.limit ? { limitBytes: error.limit } : {}) });
  }
  if (error.type === 'entity.parse.failed') return new AppError('RequestParametersValidationError', 'Request body is not valid JSON', { messages: ['body: not valid JSON'] });
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
      error instanceof AppError ? error : (fromParserError(error as HttpError) ?? (isStoreOutage(error) ? new AppError('ServiceUnavailable') : null));
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
