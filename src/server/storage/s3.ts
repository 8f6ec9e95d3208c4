/**
 * S3Storage: the Storage interface on one bucket of an S3-compatible service (Amazon S3, MinIO, Ceph, s3rver in the
 * tests), named by `STORAGE_URL=s3://<bucket>/<prefix>?endpoint=…&region=…&force_path_style=true`. The interface's
 * `bucket` becomes a folder inside that one bucket: object `<prefix>/<bucket>/<key>`. Credentials come from the AWS
 * SDK's default provider chain (AWS_ACCESS_KEY_ID + AWS_SECRET_ACCESS_KEY [+ AWS_SESSION_TOKEN], AWS_PROFILE, web
 * identity, the container or instance role), never from the URL.
 *
 * The SDK is loaded on first use, not when this module is: storage.ts imports this module in every process and
 * render thread, and loading @aws-sdk/client-s3 costs about 80 ms and 23 MB per thread here, which folder storage
 * should not pay.
 */
import { pipeline, Readable, Transform } from 'node:stream';
import type * as ClientS3 from '@aws-sdk/client-s3';
import type * as LibStorage from '@aws-sdk/lib-storage';
import { ObjectTooLarge, StorageFailure } from './errors.ts';

/** Where S3Storage keeps its objects: STORAGE_URL's parts (parseS3Url). */
export interface S3Location {
  /** The one S3 bucket (the URL's host). */
  bucket: string;
  /** Folder inside it for every object, without leading or trailing '/'; '' for the bucket's root. */
  prefix: string;
  /** The service's base URL (`endpoint`, http or https); undefined = Amazon S3 of `region`. */
  endpoint?: string;
  /** The signing region (`region`; default AWS_REGION, else us-east-1). */
  region: string;
  /** Path-style requests (`endpoint/bucket/key`) instead of virtual-hosted ones (`bucket.endpoint/key`). */
  forcePathStyle: boolean;
}

/** An upload's part (bytes): the most of a contact file held in memory at once is PART_BYTES × UPLOAD_QUEUE. */
const PART_BYTES = 8 * 1024 * 1024;
const UPLOAD_QUEUE = 2;

const PARAMS = ['endpoint', 'region', 'force_path_style'];

/**
 * parseS3Url reads an `s3://<bucket>/<prefix>?endpoint=<url>&region=<name>&force_path_style=true|false` STORAGE_URL.
 * `force_path_style` defaults to true when an endpoint is given (MinIO, Ceph and most S3-compatible services need
 * it) and false for Amazon S3; `region` defaults to AWS_REGION, then us-east-1. Throws an Error naming STORAGE_URL
 * for anything else: no or an invalid bucket name, credentials, a port or an unknown parameter in the URL, an
 * endpoint that is not an http(s) URL, a `..` in the prefix.
 */
export function parseS3Url(url: string, env: NodeJS.ProcessEnv = process.env): S3Location {
  const bad = (why: string): Error => new Error(`STORAGE_URL ${why}, got "${redacted(url)}" (expected s3://bucket/prefix?endpoint=…&region=…)`);
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw bad('is not a URL');
  }
  if (u.protocol !== 's3:') throw bad('is not an s3:// URL');
  if (u.username || u.password) throw bad('must not hold credentials (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)');
  if (u.port) throw bad('names a port: put the service in the endpoint parameter');
  const bucket = u.hostname;
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) throw bad('needs an S3 bucket name (3 to 63 lower-case letters, digits, dots and hyphens)');
  let prefix: string;
  try {
    // From the text as written: URL resolves '..' in its pathname.
    prefix = decodeURIComponent(/^s3:\/\/[^/?#]*([^?#]*)/i.exec(url)?.[1] ?? '').replace(/^\/+|\/+$/g, '');
  } catch {
    throw bad('has a malformed prefix');
  }
  if (prefix.split('/').some((s) => s === '..' || s === '.')) throw bad("has '.' or '..' in its prefix");
  const unknown = [...u.searchParams.keys()].filter((k) => !PARAMS.includes(k));
  if (unknown.length) throw bad(`has unknown parameters ${unknown.join(', ')} (known: ${PARAMS.join(', ')})`);
  const endpoint = u.searchParams.get('endpoint') || undefined;
  if (endpoint) {
    let e: URL | undefined;
    try {
      e = new URL(endpoint);
    } catch {
      e = undefined;
    }
    if (!e || (e.protocol !== 'http:' && e.protocol !== 'https:') || e.username || e.password)
      throw bad('needs an http:// or https:// endpoint without credentials');
  }
  const region = u.searchParams.get('region') || env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1';
  if (!/^[a-z0-9-]+$/.test(region)) throw bad(`has an invalid region "${region}"`);
  const style = u.searchParams.get('force_path_style');
  let forcePathStyle = !!endpoint;
  if (style !== null) {
    if (/^(true|on|yes|1)$/i.test(style)) forcePathStyle = true;
    else if (/^(false|off|no|0)$/i.test(style)) forcePathStyle = false;
    else throw bad('needs force_path_style=true or false');
  }
  return { bucket, prefix, endpoint: endpoint?.replace(/\/+$/, ''), region, forcePathStyle };
}

/** redacted is a URL as it may be shown: with any user:password removed. */
function redacted(url: string): string {
  return url.replace(/^([a-z0-9+.-]+:\/\/)[^/@]*@/i, '$1');
}

/** The SDK's parts this module uses, loaded once per thread (see the module's comment). */
interface Sdk {
  s3: typeof ClientS3;
  Upload: typeof LibStorage.Upload;
}
let sdkLoading: Promise<Sdk> | undefined;
function loadSdk(): Promise<Sdk> {
  sdkLoading ??= Promise.all([import('@aws-sdk/client-s3'), import('@aws-sdk/lib-storage')]).then(([s3, lib]) => ({ s3, Upload: lib.Upload }));
  return sdkLoading;
}

/** The error's name when it says more than "Error", and its message (or code: a refused connection may have none). */
function reasonOf(err: unknown): string {
  const e = err as Error & { code?: string; errors?: Error[] };
  const message = e?.message || e?.errors?.map((x) => x.message).join('; ') || e?.code || String(err);
  return e?.name && e.name !== 'Error' && !message.startsWith(e.name) ? `${e.name}: ${message}` : message;
}

/** isMissing says whether an S3 error means "no such object" (404), and not a missing bucket. */
function isMissing(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  if (e?.name === 'NoSuchBucket') return false;
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.$metadata?.httpStatusCode === 404;
}

/**
 * S3Storage stores objects in one bucket of an S3-compatible service (see the module's comment). Every failure of
 * the service (unreachable, refused, a missing bucket) is thrown as an Error whose message names the operation, the
 * object and the service's reason, with the SDK's error as its `cause`; a missing object is not a failure (get and
 * size resolve undefined, getStream's stream errors with code ENOENT).
 */
// Checked against the Storage interface where openStorage (storage.ts) returns it; not named here, so that the two
// modules do not import each other.
export class S3Storage {
  private client?: Promise<{ sdk: Sdk; client: ClientS3.S3Client }>;

  constructor(readonly location: S3Location) {}

  /** description names the bucket, prefix and endpoint for messages (no credentials). */
  get description(): string {
    const { bucket, prefix, endpoint, region } = this.location;
    return `s3://${bucket}/${prefix}${endpoint ? ` at ${endpoint}` : ` in ${region}`}`;
  }

  /** sdk loads the SDK and makes this storage's client, once. */
  private sdk(): Promise<{ sdk: Sdk; client: ClientS3.S3Client }> {
    this.client ??= loadSdk().then((sdk) => {
      const { endpoint, region, forcePathStyle } = this.location;
      const client = new sdk.s3.S3Client({
        endpoint,
        region,
        forcePathStyle,
        // Checksums only where S3 requires them (the SDK's behaviour before 2025): the newer default sends streamed
        // bodies aws-chunked with a trailing checksum, which several S3-compatible services store as it is.
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
        // A service that does not answer fails the request (and the attempt is retried, up to 3 in all) instead of
        // holding an email or an upload forever.
        requestHandler: { connectionTimeout: 5_000, socketTimeout: 60_000 },
      });
      return { sdk, client };
    });
    return this.client;
  }

  /** key is the S3 key of bucket/key: `<prefix>/<bucket>/<key>`; throws for a key that would leave its folder. */
  private key(bucket: string, key: string): string {
    const parts = [bucket, ...key.split('/')];
    if (!bucket || parts.some((p) => p === '..' || p === '.') || key.startsWith('/')) throw new Error(`storage key escapes its root: ${bucket}/${key}`);
    return this.location.prefix ? `${this.location.prefix}/${bucket}/${key}` : `${bucket}/${key}`;
  }

  private failure(op: string, key: string, err: unknown): Error {
    return new StorageFailure(`S3 ${op} ${this.location.bucket}/${key} failed: ${reasonOf(err)}`, { cause: err });
  }

  /** put stores bytes under bucket/key with one PutObject (atomic on S3: `unseen` changes nothing). */
  async put(bucket: string, key: string, body: Buffer | string, _opts?: { unseen?: boolean }): Promise<void> {
    const Key = this.key(bucket, key);
    const { sdk, client } = await this.sdk();
    try {
      await client.send(new sdk.s3.PutObjectCommand({ Bucket: this.location.bucket, Key, Body: body }));
    } catch (err) {
      throw this.failure('PutObject', Key, err);
    }
  }

  /**
   * deleteMany removes the objects bucket/keys with DeleteObjects, 1,000 keys a request (absent ones count as
   * removed). Throws StorageFailure naming the first key S3 could not remove.
   */
  async deleteMany(bucket: string, keys: string[]): Promise<void> {
    const { sdk, client } = await this.sdk();
    for (let i = 0; i < keys.length; i += 1000) {
      const Objects = keys.slice(i, i + 1000).map((k) => ({ Key: this.key(bucket, k) }));
      let failed: { Key?: string; Message?: string } | undefined;
      try {
        const res = await client.send(new sdk.s3.DeleteObjectsCommand({ Bucket: this.location.bucket, Delete: { Objects, Quiet: true } }));
        failed = res.Errors?.[0];
      } catch (err) {
        throw this.failure('DeleteObjects', Objects[0].Key, err);
      }
      if (failed) throw this.failure('DeleteObjects', failed.Key ?? '', new Error(failed.Message ?? 'refused'));
    }
  }

  /** get returns the object's bytes (GetObject), or undefined when there is none. */
  async get(bucket: string, key: string): Promise<Buffer | undefined> {
    const Key = this.key(bucket, key);
    const { sdk, client } = await this.sdk();
    try {
      const res = await client.send(new sdk.s3.GetObjectCommand({ Bucket: this.location.bucket, Key }));
      return Buffer.from(await res.Body!.transformToByteArray());
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw this.failure('GetObject', Key, err);
    }
  }

  /**
   * putStream uploads a stream with lib-storage's Upload (one PutObject for up to PART_BYTES, else a multipart upload
   * of PART_BYTES parts, UPLOAD_QUEUE at once) and resolves its size in bytes. Past `maxBytes` the counting stream
   * errors, the upload is abandoned (a multipart upload aborted) and ObjectTooLarge is thrown; an error of `body` is
   * thrown as it is. Either way no object is stored.
   */
  async putStream(bucket: string, key: string, body: Readable, maxBytes: number): Promise<number> {
    const Key = this.key(bucket, key);
    let bytes = 0;
    let tooLarge = false;
    let bodyError: Error | undefined;
    const limit = new Transform({
      transform(chunk: Buffer, _enc, done) {
        bytes += chunk.length;
        if (bytes > maxBytes) tooLarge = true;
        done(tooLarge ? new ObjectTooLarge(maxBytes) : null, chunk);
      },
    });
    // Listeners first, before any await: the body's error must not go unhandled while the SDK loads.
    body.once('error', (err) => (bodyError ??= err));
    pipeline(body, limit, () => {}); // its errors reach the upload, which reads `limit`
    const { sdk, client } = await this.sdk();
    const upload = new sdk.Upload({ client, params: { Bucket: this.location.bucket, Key, Body: limit }, partSize: PART_BYTES, queueSize: UPLOAD_QUEUE });
    try {
      await upload.done();
      return bytes;
    } catch (err) {
      // The upload's own error may be its failed abort (a service without AbortMultipartUpload): ours comes first.
      const thrown = tooLarge ? new ObjectTooLarge(maxBytes) : (bodyError ?? this.failure('upload', Key, err));
      limit.destroy(); // stop reading the body when the service failed
      throw thrown;
    }
  }

  /**
   * getStream reads an object as a stream (GetObject, sent when the stream is first read); the stream errors with
   * an error whose code is ENOENT when there is none, and with the service's failure otherwise.
   */
  getStream(bucket: string, key: string): Readable {
    const Key = this.key(bucket, key);
    const read = async function* (this: S3Storage): AsyncGenerator<Buffer> {
      const { sdk, client } = await this.sdk();
      let res: ClientS3.GetObjectCommandOutput;
      try {
        res = await client.send(new sdk.s3.GetObjectCommand({ Bucket: this.location.bucket, Key }));
      } catch (err) {
        if (isMissing(err)) throw Object.assign(new Error(`ENOENT: no object at s3://${this.location.bucket}/${Key}`), { code: 'ENOENT' });
        throw this.failure('GetObject', Key, err);
      }
      yield* res.Body as Readable;
    }.call(this);
    return Readable.from(read, { objectMode: false });
  }

  /** size returns an object's size in bytes (HeadObject), or undefined when there is none. */
  async size(bucket: string, key: string): Promise<number | undefined> {
    const Key = this.key(bucket, key);
    const { sdk, client } = await this.sdk();
    try {
      return (await client.send(new sdk.s3.HeadObjectCommand({ Bucket: this.location.bucket, Key }))).ContentLength ?? 0;
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw this.failure('HeadObject', Key, err);
    }
  }

  /** check resolves when the bucket exists and the credentials may use it (HeadBucket); throws the reason otherwise. */
  async check(): Promise<void> {
    const { sdk, client } = await this.sdk();
    try {
      await client.send(new sdk.s3.HeadBucketCommand({ Bucket: this.location.bucket }));
    } catch (err) {
      const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      const reason = status === 404 ? 'the bucket does not exist' : status === 403 ? 'access denied (check the AWS credentials)' : reasonOf(err);
      throw new Error(`cannot use ${this.description}: ${reason}`, { cause: err });
    }
  }
}
