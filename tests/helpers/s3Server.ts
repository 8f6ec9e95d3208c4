/**
 * A real S3-compatible server for tests: s3rver on 127.0.0.1 over a temp folder, with one bucket made at start.
 * s3rver checks request signatures against its one fixed account, so startS3Server sets this test process's
 * AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY to that account ('S3RVER') for the SDK's default credential chain, and
 * `env` carries the same for child processes. stop() takes the service away (open connections dropped, as an outage
 * would) and start() brings it back on the same port with the same objects.
 *
 * storageUnderTest gives API tests of storage paths either storage kind, folder or S3, with a listing of its objects.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';

export interface S3Server {
  /** The service's base URL, http://127.0.0.1:<port>. */
  endpoint: string;
  bucket: string;
  /** STORAGE_URL for the bucket under `prefix` (path-style, us-east-1). */
  storageUrl: string;
  /** STORAGE_URL and the AWS credentials of s3rver's account, for a child process's environment. */
  env: NodeJS.ProcessEnv;
  /** keys lists the S3 keys under `under` (default: the whole bucket), sorted. */
  keys(under?: string): Promise<string[]>;
  /** stop closes the service and drops its open connections; the objects stay on disk for start(). */
  stop(): Promise<void>;
  /** start serves again on the same port and folder after stop(). */
  start(): Promise<void>;
  /** close stops the service for good and removes its folder. */
  close(): Promise<void>;
}

const CREDENTIALS = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' };

/** startS3Server starts s3rver with a fresh folder and bucket `bucket` on a free port (or `port`); see S3Server. */
export async function startS3Server(opts: { bucket?: string; prefix?: string; port?: number } = {}): Promise<S3Server> {
  const bucket = opts.bucket ?? 'mailwright-test';
  const prefix = opts.prefix ?? 'mw';
  const directory = await mkdtemp(path.join(os.tmpdir(), 'mw-s3rver-'));
  Object.assign(process.env, CREDENTIALS);
  let port = opts.port ?? 0;
  let server: S3rver | undefined;
  const start = async () => {
    server = new S3rver({ address: '127.0.0.1', port, silent: true, directory, configureBuckets: [{ name: bucket }] });
    port = (await server.run()).port;
  };
  await start();
  const endpoint = `http://127.0.0.1:${port}`;
  const storageUrl = `s3://${bucket}/${prefix}?endpoint=${encodeURIComponent(endpoint)}&region=us-east-1&force_path_style=true`;
  const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
  const stop = async () => {
    const s = server;
    server = undefined;
    if (!s) return;
    const closed = s.close();
    s.httpServer?.closeAllConnections();
    await closed;
  };
  return {
    endpoint,
    bucket,
    storageUrl,
    env: { STORAGE_URL: storageUrl, ...CREDENTIALS },
    async keys(under = '') {
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: under, ContinuationToken: token }));
        keys.push(...(page.Contents ?? []).map((o) => o.Key!));
        token = page.NextContinuationToken;
      } while (token);
      return keys.sort();
    },
    stop,
    async start() {
      if (!server) await start();
    },
    async close() {
      await stop();
      client.destroy();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/** The storages the API tests of storage paths run on: the folder (FileStorage) and S3 (S3Storage on s3rver). */
export const STORAGE_KINDS = ['folder', 's3'] as const;
export type StorageKind = (typeof STORAGE_KINDS)[number];

/** A storage for one API test file: the STORAGE_URL to give the harness, a listing of its objects, and its clean-up. */
export interface StorageUnderTest {
  kind: StorageKind;
  storageUrl: string;
  /** The running s3rver (kind 's3' only), e.g. to stop it for an outage. */
  s3?: S3Server;
  /** objects lists the keys stored in the storage's `bucket` under `under/` (relative to it), sorted. */
  objects(bucket: string, under: string): Promise<string[]>;
  close(): Promise<void>;
}

/** storageUnderTest makes a fresh storage of `kind`: a temp folder, or s3rver with a bucket and the prefix 'mw'. */
export async function storageUnderTest(kind: StorageKind): Promise<StorageUnderTest> {
  if (kind === 's3') {
    const s3 = await startS3Server({ prefix: 'mw' });
    return {
      kind,
      storageUrl: s3.storageUrl,
      s3,
      async objects(bucket, under) {
        const base = `mw/${bucket}/${under}/`;
        return (await s3.keys(base)).map((k) => k.slice(base.length));
      },
      close: () => s3.close(),
    };
  }
  const root = await mkdtemp(path.join(os.tmpdir(), 'mw-storage-'));
  return {
    kind,
    storageUrl: root,
    async objects(bucket, under) {
      const entries = await readdir(path.join(root, bucket, under), { recursive: true, withFileTypes: true }).catch(() => []);
      return entries
        .filter((e) => e.isFile())
        .map((e) => path.relative(path.join(root, bucket, under), path.join(e.parentPath, e.name)))
        .sort();
    },
    close: () => rm(root, { recursive: true, force: true }),
  };
}
