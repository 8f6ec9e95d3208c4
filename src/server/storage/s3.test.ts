/**
 * S3Storage against a real S3-compatible server (s3rver, tests/helpers/s3Server.ts): STORAGE_URL parsing and its
 * named errors; objects kept as `<prefix>/<bucket>/<key>`; get and size of a missing object undefined and getStream's
 * ENOENT; putStream's size limit (before and after the first multipart part) and a failing body storing nothing;
 * withLocalFile's temporary copy; checkStorage at start; and an outage failing each call with a reason, until the
 * service is back.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3Server, type S3Server } from '../../../tests/helpers/s3Server.ts';
import { checkStorage, checkStorageUrl, ObjectTooLarge, openStorage, StorageUnavailable, withLocalFile, type Storage } from './storage.ts';
import { parseS3Url, S3Storage } from './s3.ts';

describe('parseS3Url', () => {
  it('reads the bucket, prefix, endpoint, region and addressing style', () => {
    expect(parseS3Url('s3://mail-copies/prod/eu?endpoint=http://127.0.0.1:9000/&region=eu-west-1&force_path_style=true')).toEqual({
      bucket: 'mail-copies',
      prefix: 'prod/eu',
      endpoint: 'http://127.0.0.1:9000',
      region: 'eu-west-1',
      forcePathStyle: true,
    });
    // Amazon S3: virtual-hosted unless asked; the region from AWS_REGION, else us-east-1. An endpoint: path-style.
    expect(parseS3Url('s3://mail-copies', { AWS_REGION: 'eu-central-1' })).toEqual({
      bucket: 'mail-copies',
      prefix: '',
      endpoint: undefined,
      region: 'eu-central-1',
      forcePathStyle: false,
    });
    expect(parseS3Url('s3://mail-copies/?endpoint=https%3A%2F%2Fminio.internal', {})).toMatchObject({ region: 'us-east-1', forcePathStyle: true });
    expect(parseS3Url('s3://mail-copies/x?endpoint=https://minio.internal&force_path_style=false', {}).forcePathStyle).toBe(false);
  });

  it('refuses a malformed STORAGE_URL with an error naming it, never echoing credentials', () => {
    const refusals: Array<[string, RegExp]> = [
      ['s3://', /needs an S3 bucket name/],
      ['s3://My_Bucket/x', /needs an S3 bucket name/],
      ['s3://key:secret@mail-copies/x', /must not hold credentials/],
      ['s3://mail-copies:9000/x', /names a port/],
      ['s3://mail-copies/a/../b', /'\.\.'/],
      ['s3://mail-copies/x?endpoint=ftp://host', /http:\/\/ or https:\/\/ endpoint/],
      ['s3://mail-copies/x?endpoint=not a url', /http:\/\/ or https:\/\/ endpoint/],
      ['s3://mail-copies/x?region=EU%20West', /invalid region/],
      ['s3://mail-copies/x?force_path_style=maybe', /force_path_style=true or false/],
      ['s3://mail-copies/x?endpiont=http://h', /unknown parameters endpiont/],
    ];
    for (const [url, why] of refusals) {
      let message = '';
      try {
        parseS3Url(url, {});
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message, url).toMatch(/^STORAGE_URL /);
      expect(message, url).toMatch(why);
      expect(message, url).not.toContain('secret');
    }
    expect(() => checkStorageUrl('ftp://files.example.com/x')).toThrow(/^STORAGE_URL must be a folder path, a file:\/\/ URL or an s3:\/\/ URL, not ftp:\/\//);
    expect(checkStorageUrl('s3://mail-copies/x')).toBe('s3://mail-copies/x');
    expect(openStorage('s3://mail-copies/x')).toBeInstanceOf(S3Storage);
  });
});

describe('S3Storage on s3rver', () => {
  let s3: S3Server;
  let storage: S3Storage;
  beforeAll(async () => {
    s3 = await startS3Server({ prefix: 'mw/unit' });
    storage = openStorage(s3.storageUrl) as S3Storage;
  });
  afterAll(async () => {
    await s3?.close();
  });

  it('keeps objects as <prefix>/<bucket>/<key>; get, size and getStream of a missing one', async () => {
    await storage.put('sent-emails', 'p1/2026-11-24/1.eml', 'first copy', { unseen: true });
    await storage.put('sent-emails', 'p1/2026-11-24/1.eml', 'second, longer copy', { unseen: true });
    expect((await storage.get('sent-emails', 'p1/2026-11-24/1.eml'))?.toString()).toBe('second, longer copy');
    expect(await storage.size('sent-emails', 'p1/2026-11-24/1.eml')).toBe(19);
    expect(await text(storage.getStream('sent-emails', 'p1/2026-11-24/1.eml'))).toBe('second, longer copy');
    expect(await s3.keys('mw/unit/sent-emails/')).toEqual(['mw/unit/sent-emails/p1/2026-11-24/1.eml']);

    expect(await storage.get('sent-emails', 'p1/none.eml')).toBeUndefined();
    expect(await storage.size('sent-emails', 'p1/none.eml')).toBeUndefined();
    await expect(text(storage.getStream('sent-emails', 'p1/none.eml'))).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(storage.put('sent-emails', '../escape.eml', 'x')).rejects.toThrow(/escapes its root/);
    expect((storage as Storage).localPath).toBeUndefined(); // no local files: withLocalFile copies (below)
  });

  it('putStream stores a stream of several parts and resolves its size', async () => {
    const part = Buffer.alloc(8 * 1024 * 1024, 'a');
    const body = Readable.from([part, part, Buffer.from('tail')]);
    expect(await storage.putStream('contact-uploads', 'p1/big.csv', body, 2 * 1024 ** 3)).toBe(2 * part.length + 4);
    expect(await storage.size('contact-uploads', 'p1/big.csv')).toBe(2 * part.length + 4);
    const back = await storage.get('contact-uploads', 'p1/big.csv');
    expect(back!.subarray(-5).toString()).toBe('atail');
  });

  it('putStream past its limit throws ObjectTooLarge and stores nothing, in the first part or after it; a failing body stores nothing', async () => {
    const small = Readable.from([Buffer.from('name,email\n'), Buffer.from('A,a@example.com\n')]);
    await expect(storage.putStream('contact-uploads', 'p1/small.csv', small, 12)).rejects.toBeInstanceOf(ObjectTooLarge);
    // Past the first 8 MiB part: a multipart upload was started, and is given up.
    const mib = Buffer.alloc(1024 * 1024, 'b');
    const large = Readable.from(Array.from({ length: 16 }, () => mib));
    await expect(storage.putStream('contact-uploads', 'p1/large.csv', large, 12 * 1024 * 1024)).rejects.toBeInstanceOf(ObjectTooLarge);
    const broken = new Readable({ read() {} });
    broken.push('name,email\n');
    setTimeout(() => broken.destroy(new Error('client went away')), 20);
    await expect(storage.putStream('contact-uploads', 'p1/broken.csv', broken, 1000)).rejects.toThrow('client went away');
    expect(await s3.keys('mw/unit/contact-uploads/p1/')).toEqual(['mw/unit/contact-uploads/p1/big.csv']);
  });

  it('withLocalFile copies an object to a temporary file and removes it afterwards', async () => {
    await storage.put('uploads', 'p1/people.xlsx', 'workbook bytes');
    let copy = '';
    expect(
      await withLocalFile(storage, 'uploads', 'p1/people.xlsx', async (file) => {
        copy = file;
        return await readFile(file, 'utf8');
      }),
    ).toBe('workbook bytes');
    expect(existsSync(copy)).toBe(false);
    await expect(withLocalFile(storage, 'uploads', 'p1/none.xlsx', async () => 'never')).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('checkStorage passes for the bucket, and names STORAGE_URL for a missing bucket or a service that is away', async () => {
    await checkStorage(storage);
    await checkStorage(openStorage('/tmp/any-folder')); // folder storage: nothing to check
    const missing = openStorage(s3.storageUrl.replace(`s3://${s3.bucket}/`, 's3://no-such-bucket/'));
    await expect(checkStorage(missing)).rejects.toThrow(
      /^STORAGE_URL: cannot use s3:\/\/no-such-bucket\/mw\/unit at http:\/\/127\.0\.0\.1:\d+: the bucket does not exist$/,
    );
    await s3.stop();
    try {
      const err = await checkStorage(storage).catch((e: Error) => e);
      expect(err).toBeInstanceOf(StorageUnavailable);
      expect((err as Error).message).toMatch(/^STORAGE_URL: cannot use s3:\/\/mailwright-test\/mw\/unit at http:\/\/127\.0\.0\.1:\d+: .*ECONNREFUSED/);
    } finally {
      await s3.start();
    }
  });

  it('during an outage every call fails with the operation, the object and the reason; afterwards it works again', async () => {
    await s3.stop();
    try {
      await expect(storage.put('sent-emails', 'p1/out.eml', 'x')).rejects.toThrow(
        /^S3 PutObject mailwright-test\/mw\/unit\/sent-emails\/p1\/out\.eml failed: .*ECONNREFUSED/,
      );
      await expect(storage.get('sent-emails', 'p1/2026-11-24/1.eml')).rejects.toThrow(/^S3 GetObject .*ECONNREFUSED/);
      await expect(text(storage.getStream('sent-emails', 'p1/2026-11-24/1.eml'))).rejects.toThrow(/ECONNREFUSED/);
      await expect(storage.size('sent-emails', 'p1/2026-11-24/1.eml')).rejects.toThrow(/^S3 HeadObject /);
    } finally {
      await s3.start();
    }
    await storage.put('sent-emails', 'p1/out.eml', 'after the outage');
    expect((await storage.get('sent-emails', 'p1/out.eml'))?.toString()).toBe('after the outage');
  });
});
