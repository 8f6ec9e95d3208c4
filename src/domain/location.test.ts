/** Email-viewer locations: URL-safe base64 of `bucket/key` (spec part 1 §2 /email/{location}, §7). */
import { describe, expect, it } from 'vitest';
import { decodeLocation, encodeLocation } from './location.ts';

/** b64url encodes arbitrary text independently of location.ts (Node's own base64url). */
const b64url = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

describe('encodeLocation / decodeLocation', () => {
  it.each([
    ['mail-bucket', 'emails/2026/11/22/abc.eml'],
    ['b', 'k'],
    ['mailwright.sent', 'p/ü-ñ 😀 日本語.eml'],
    ['bucket-1', 'a?b>c~d.eml'],
  ])('round-trips %s / %s', (bucket, key) => {
    const loc = encodeLocation(bucket, key);
    expect(decodeLocation(loc)).toEqual({ bucket, key });
  });

  it('is Node’s base64url of bucket/key, without padding', () => {
    expect(encodeLocation('mailwright.sent', 'p/ü-ñ 😀.eml')).toBe(b64url('mailwright.sent/p/ü-ñ 😀.eml'));
    expect(encodeLocation('b', 'k')).toBe('Yi9r');
  });

  it('uses only URL-safe characters even where standard base64 would have + / and =', () => {
    // Chosen so standard base64 of the text contains '+', '/' and '=' padding.
    const bucket = 'b';
    const key = '>>>???~~';
    const standard = Buffer.from(`${bucket}/${key}`).toString('base64');
    expect(standard).toMatch(/\+/);
    expect(standard).toMatch(/\//);
    expect(standard).toMatch(/=$/);
    const loc = encodeLocation(bucket, key);
    expect(loc).not.toMatch(/[+/=]/);
    expect(loc).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeLocation(loc)).toEqual({ bucket, key });
  });

  it('also decodes a location with its padding kept', () => {
    const padded = Buffer.from('bucket/a').toString('base64');
    expect(padded).toBe('YnVja2V0L2E=');
    expect(decodeLocation(padded)).toEqual({ bucket: 'bucket', key: 'a' });
  });

  it.each([
    ['garbage with spaces', 'not base64 !!'],
    ['not base64 at all', '%%%'],
    ['empty', ''],
    ['no slash', b64url('bucketonly')],
    ['missing key', b64url('bucket/')],
    ['missing bucket', b64url('/key.eml')],
    ['a .. segment', b64url('bucket/a/../b.eml')],
    ['a leading .. segment', b64url('bucket/../etc/passwd')],
    ['an empty path segment', b64url('bucket/a//b.eml')],
    ['an upper-case bucket', b64url('Bucket/key.eml')],
    ['a bucket with a space', b64url('my bucket/key.eml')],
  ])('rejects %s', (_what, loc) => {
    expect(decodeLocation(loc)).toBeUndefined();
  });

  it('rejects bytes that are not UTF-8', () => {
    const loc = Buffer.concat([Buffer.from('bucket/'), Buffer.from([0xff, 0xfe, 0x41])]).toString('base64url');
    expect(decodeLocation(loc)).toBeUndefined();
  });

  it('allows dots inside key names that are not a .. segment', () => {
    expect(decodeLocation(b64url('bucket/a..b/.hidden/c.eml'))).toEqual({ bucket: 'bucket', key: 'a..b/.hidden/c.eml' });
  });
});
