/**
 * Object storage for exact copies of sent emails (spec part 1 §1: "an exact copy of every sent email is stored"),
 * uploaded contact files and template images. The interface is S3-shaped (bucket + key); FileStorage keeps objects
 * under a folder as `<root>/<bucket>/<key>`, S3Storage (s3.ts) in one S3 bucket as `<prefix>/<bucket>/<key>`.
 */
import { mkdir, mkdtemp, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { createReadStream, createWriteStream, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import { ObjectTooLarge, StorageUnavailable } from './errors.ts';
import { parseS3Url, S3Storage } from './s3.ts';

export { ObjectTooLarge, StorageFailure, StorageUnavailable } from './errors.ts';

export interface Storage {
  /**
   * put stores bytes under bucket/key, replacing any object there; the write is atomic (temp file + rename; on S3 one
   * PutObject). With `unseen` the caller promises that no reader can know the key before put resolves (a sent email's
   * copy, whose location is recorded only after delivery): FileStorage then writes a new object in place, without the
   * temp file and rename (about 25 µs of a render thread's time per email here). An object already there is still
   * replaced atomically. A crash mid-write can then leave a partial object that nothing refers to, until a put
   * replaces it.
   */
  put(bucket: string, key: string, body: Buffer | string, opts?: { unseen?: boolean }): Promise<void>;
  /** get returns the object's bytes, or undefined when there is none. */
  get(bucket: string, key: string): Promise<Buffer | undefined>;
  /**
   * putStream stores a stream under bucket/key without holding it in memory and resolves its size in bytes. Nothing is
   * stored (and ObjectTooLarge is thrown) when it passes `maxBytes`; a stream error is thrown as it is, storing nothing.
   */
  putStream(bucket: string, key: string, body: Readable, maxBytes: number): Promise<number>;
  /** getStream reads an object as a stream; the stream errors with ENOENT when there is none. */
  getStream(bucket: string, key: string): Readable;
  /** size returns an object's size in bytes, or undefined when there is none. */
  size(bucket: string, key: string): Promise<number | undefined>;
  /** deleteMany removes objects of `bucket` (one that is not there counts as removed); throws when one cannot be removed. */
  deleteMany(bucket: string, keys: string[]): Promise<void>;
  /**
   * localPath names the file that holds an object, for readers that need random access (an XLSX's zip directory),
   * or is undefined for storage that keeps no local files (withLocalFile copies the object to a temporary file then).
   */
  localPath?(bucket: string, key: string): string | undefined;
  /** check resolves when the storage can be used, and throws the reason otherwise (see checkStorage). */
  check?(): Promise<void>;
}

/**
 * withLocalFile runs `work` with a local file holding bucket/key: the storage's own file when it has one, otherwise
 * a temporary copy streamed from getStream (removed afterwards). Errors of the copy (ENOENT) and of `work` pass through.
 */
export async function withLocalFile<T>(storage: Storage, bucket: string, key: string, work: (file: string) => Promise<T>): Promise<T> {
  const own = storage.localPath?.(bucket, key);
  if (own) return await work(own);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'mw-object-'));
  try {
    const file = path.join(dir, path.basename(key));
    await pipeline(storage.getStream(bucket, key), createWriteStream(file));
    return await work(file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** createdInPlace runs an exclusive create ('wx'): true when it made the file, false when one was there (EEXIST). */
async function createdInPlace(write: () => void | Promise<void>): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

/** FileStorage stores objects in a folder on disk. */
export class FileStorage implements Storage {
  /** Folders known to exist, so a put costs one mkdir per folder, not one per object. */
  private readonly folders = new Set<string>();

  /**
   * `sync` writes with blocking calls: right on a thread of its own (the render threads), where one blocking write of a
   * few kB costs far less than the four thread-pool round trips of the async calls.
   */
  constructor(
    private readonly root: string,
    private readonly sync = false,
  ) {}

  private file(bucket: string, key: string): string {
    const full = path.resolve(this.root, bucket, key);
    if (!full.startsWith(path.resolve(this.root) + path.sep)) throw new Error(`storage key escapes its root: ${bucket}/${key}`);
    return full;
  }

  async put(bucket: string, key: string, body: Buffer | string, opts: { unseen?: boolean } = {}): Promise<void> {
    const file = this.file(bucket, key);
    const folder = path.dirname(file);
    const tmp = `${file}.${randomUUID()}.tmp`;
    if (this.sync) {
      if (!this.folders.has(folder)) mkdirSync(folder, { recursive: true });
      this.folders.add(folder);
      if (opts.unseen && (await createdInPlace(() => writeFileSync(file, body, { flag: 'wx' })))) return;
      writeFileSync(tmp, body);
      renameSync(tmp, file);
    } else {
      if (!this.folders.has(folder)) await mkdir(folder, { recursive: true });
      this.folders.add(folder);
      if (opts.unseen && (await createdInPlace(() => writeFile(file, body, { flag: 'wx' })))) return;
      await writeFile(tmp, body);
      await rename(tmp, file);
    }
  }

  async putStream(bucket: string, key: string, body: Readable, maxBytes: number): Promise<number> {
    const file = this.file(bucket, key);
    const folder = path.dirname(file);
    const tmp = `${file}.${randomUUID()}.tmp`;
    if (!this.folders.has(folder)) await mkdir(folder, { recursive: true });
    this.folders.add(folder);
    let bytes = 0;
    const limit = new Transform({
      transform(chunk: Buffer, _enc, done) {
        bytes += chunk.length;
        done(bytes > maxBytes ? new ObjectTooLarge(maxBytes) : null, chunk);
      },
    });
    try {
      await pipeline(body, limit, createWriteStream(tmp));
      await rename(tmp, file);
      return bytes;
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
  }

  getStream(bucket: string, key: string): Readable {
    return createReadStream(this.file(bucket, key));
  }

  localPath(bucket: string, key: string): string {
    return this.file(bucket, key);
  }

  async size(bucket: string, key: string): Promise<number | undefined> {
    try {
      return (await stat(this.file(bucket, key))).size;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  async deleteMany(bucket: string, keys: string[]): Promise<void> {
    for (const key of keys) await rm(this.file(bucket, key), { force: true });
  }

  async get(bucket: string, key: string): Promise<Buffer | undefined> {
    try {
      return await readFile(this.file(bucket, key));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }
}

/**
 * openStorage returns the storage named by STORAGE_URL: a folder path or a file:// URL (FileStorage; `sync` for a
 * dedicated thread, see FileStorage), or an s3:// URL (S3Storage, see parseS3Url; `sync` does not apply). Opening
 * touches nothing (checkStorage does). Throws an Error naming STORAGE_URL for a malformed s3:// URL or another scheme.
 */
export function openStorage(url: string, opts: { sync?: boolean } = {}): Storage {
  if (url.startsWith('file://')) return new FileStorage(fileURLToPath(url), opts.sync);
  if (/^s3:\/\//i.test(url)) return new S3Storage(parseS3Url(url));
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1];
  if (scheme) throw new Error(`STORAGE_URL must be a folder path, a file:// URL or an s3:// URL, not ${scheme}://`);
  return new FileStorage(path.resolve(url), opts.sync);
}

/** checkStorageUrl returns STORAGE_URL as it is when openStorage can open it; throws openStorage's Error naming STORAGE_URL otherwise. */
export function checkStorageUrl(url: string): string {
  openStorage(url);
  return url;
}

/**
 * checkStorage makes sure, at start, that the storage can be used: for S3 that the bucket exists and the credentials
 * may use it (HeadBucket); folder storage needs nothing. Throws StorageUnavailable ("STORAGE_URL: cannot use …: why").
 */
export async function checkStorage(storage: Storage): Promise<void> {
  try {
    await storage.check?.();
  } catch (err) {
    throw new StorageUnavailable(`STORAGE_URL: ${(err as Error).message}`, { cause: err });
  }
}
