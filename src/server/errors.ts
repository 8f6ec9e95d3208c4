/**
 * Errors that handlers and services throw; the central error handler (plugins/errorHandler.ts) turns each into the
 * spec's `{errors: [...]}` body (spec part 1 §8). Messages of 4xx errors start with the field they are about.
 */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly errors: string[],
  ) {
    super(errors.join('; '));
  }
}

/** BadRequest: 400 with one message per invalid field, e.g. "users[0].email: Invalid email". */
export class BadRequest extends HttpError {
  constructor(errors: string[]) {
    super(400, errors);
  }
}

/** NotFound: 404, e.g. "id: no template 5f… in this project". */
export class NotFound extends HttpError {
  constructor(errors: string[]) {
    super(404, errors);
  }
}

/** Unauthorized: 401 for a missing or unknown x-api-key, or a failed login. */
export class Unauthorized extends HttpError {
  constructor(message = 'x-api-key: missing or unknown API key') {
    super(401, [message]);
  }
}

/** FieldErrors collects field messages and throws them together as one BadRequest. */
export class FieldErrors {
  readonly list: string[] = [];
  /** add records `${field}: ${message}` when message is set (so check results can be passed straight in). */
  add(field: string, message: string | undefined): void {
    if (message) this.list.push(`${field}: ${message}`);
  }
  /** throwIfAny throws a BadRequest when any message was added. */
  throwIfAny(): void {
    if (this.list.length) throw new BadRequest(this.list);
  }
}
