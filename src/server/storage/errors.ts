/**
 * Errors every Storage may throw, in a module of their own so that storage.ts and s3.ts both use the same classes
 * (callers test them with instanceof) without importing each other.
 */

/** ObjectTooLarge: a streamed object passed its size limit (`limit`, bytes). */
export class ObjectTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`the object is larger than ${limit} bytes`);
  }
}

/**
 * StorageUnavailable: the storage STORAGE_URL names cannot be used at start (an S3 endpoint that does not answer, a
 * bucket that does not exist or refuses the credentials); checkStorage throws it. The message starts with
 * `STORAGE_URL`. (A malformed STORAGE_URL is a plain Error of loadConfig, like every other malformed setting.)
 */
export class StorageUnavailable extends Error {}

/**
 * StorageFailure: a call to the storage service failed while running (S3 unreachable, refusing, timing out). A gateway
 * answers it with 503 and a Retry-After (plugins/errorHandler.ts), never a 500; the sender defers the email (stage
 * 'store'). The message names the operation and the key, never credentials.
 */
export class StorageFailure extends Error {}
