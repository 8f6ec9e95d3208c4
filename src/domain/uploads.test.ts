import { describe, expect, it } from 'vitest';
import { checkImageUpload, MAX_IMAGE_UPLOAD_BYTES, storedUploadName } from './uploads';

describe('storedUploadName', () => {
  const now = new Date('2026-11-23T23:59:59Z');
  it("keeps the original name, adds the UTC date and the suffix, and uses the type's extension", () => {
    expect(storedUploadName('Hero banner.PNG', now, 'k3j9x2', 'png')).toBe('Hero-banner-2026-11-23-k3j9x2.png');
  });
  it('keeps the original extension when none is given, lower-cased', () => {
    expect(storedUploadName('contacts.CSV', now, 'ab12')).toBe('contacts-2026-11-23-ab12.csv');
  });
  it('drops folders and characters unsafe in a URL path, and never yields an empty or hidden name', () => {
    expect(storedUploadName('../../etc/pa ss?wd', now, 'x1')).toBe('pa-ss-wd-2026-11-23-x1');
    expect(storedUploadName('.png', now, 'x1', 'png')).toBe('png-2026-11-23-x1.png');
    expect(storedUploadName('???.jpg', now, 'x1', 'jpg')).toBe('file-2026-11-23-x1.jpg');
  });
  it('cuts a long base at 80 characters', () => {
    const name = storedUploadName(`${'a'.repeat(200)}.gif`, now, 'x1', 'gif');
    expect(name).toBe(`${'a'.repeat(80)}-2026-11-23-x1.gif`);
  });
});

describe('checkImageUpload', () => {
  it('accepts PNG, JPEG, GIF and WebP up to 5 MB', () => {
    for (const type of ['image/png', 'image/jpeg', 'image/gif', 'image/webp']) expect(checkImageUpload('a', type, MAX_IMAGE_UPLOAD_BYTES)).toBeUndefined();
  });
  it('refuses other types, SVG included, naming the file', () => {
    expect(checkImageUpload('logo.svg', 'image/svg+xml')).toBe('logo.svg is not a PNG, JPEG, GIF or WebP image');
    expect(checkImageUpload('list.csv', 'text/csv')).toMatch(/not a PNG/);
  });
  it('refuses empty and over-size files', () => {
    expect(checkImageUpload('a.png', 'image/png', 0)).toBe('a.png is empty');
    expect(checkImageUpload('a.png', 'image/png', MAX_IMAGE_UPLOAD_BYTES + 1)).toBe('a.png is larger than 5 MB');
  });
  it('needs a name', () => {
    expect(checkImageUpload(' ', 'image/png')).toBe('Required field');
  });
});
