/**
 * Template image upload through a pre-signed URL (spec part 2 §7 Templates; bad input): the upload URL
 * names the file and type, the PUT stores real image bytes under the original name plus the date and a suffix, the
 * image is served publicly, and everything else — wrong type, bytes that are not that image, over 5 MB, an altered or
 * expired link — is refused with a message and stores nothing. On both storages: a folder and S3 (s3rver).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_DB, startHarness, type Harness, type Tenant } from './harness.ts';
import { STORAGE_KINDS, storageUnderTest, type StorageUnderTest } from '../helpers/s3Server.ts';
import { templateImageUploadUrl } from '../../src/server/plugins/uploads.ts';
import { MAX_IMAGE_UPLOAD_BYTES } from '../../src/domain/uploads.ts';

let h: Harness;
let t: Tenant;
let storage: StorageUnderTest;

/** A real 1×1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
const URL_PATH = '/api/template/templates/images/upload_url';

async function uploadUrl(filename: string, type: string): Promise<string> {
  const res = await h.call('GET', URL_PATH, { key: t.apiKey, query: { filename, type } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

async function put(url: string, body: Buffer, type: string) {
  const res = await h.app.inject({ method: 'PUT', url: new URL(url).pathname, headers: { 'content-type': type }, payload: body });
  return { status: res.statusCode, body: res.json() };
}

const stored = async () => storage.objects('template-images', t.projectId);

describe.each(STORAGE_KINDS)(`template image upload (${API_DB}, %s storage)`, (kind) => {
  beforeAll(async () => {
    storage = await storageUnderTest(kind);
    h = await startHarness({ config: { storageUrl: storage.storageUrl } });
    t = await h.tenant();
  });
  afterAll(async () => {
    await h?.close();
    await storage?.close();
  });

  it('needs an x-api-key', async () => {
    expect((await h.call('GET', URL_PATH, { query: { filename: 'a.png', type: 'image/png' } })).status).toBe(401);
  });

  it('refuses types other than PNG, JPEG, GIF and WebP when the URL is asked for, naming the field', async () => {
    const res = await h.call('GET', URL_PATH, { key: t.apiKey, query: { filename: 'logo.svg', type: 'image/svg+xml' } });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual(['type: logo.svg is not a PNG, JPEG, GIF or WebP image']);
  });

  it('stores a real image under the original name, the date and a suffix, and serves it publicly', async () => {
    const url = await uploadUrl('Hero banner.png', 'image/png');
    expect(url).toMatch(/^http:\/\/localhost:8080\/uploads\//);
    const res = await put(url, PNG, 'image/png');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const today = new Date().toISOString().slice(0, 10);
    expect(res.body.data.url).toMatch(new RegExp(`^http://localhost:8080/template-images/${t.projectId}/Hero-banner-${today}-[0-9a-f]{8}\\.png$`));
    const served = await h.app.inject({ method: 'GET', url: new URL(res.body.data.url).pathname });
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toBe('image/png');
    expect(served.headers['cache-control']).toContain('immutable');
    expect(served.rawPayload.equals(PNG)).toBe(true);
    expect(await stored()).toHaveLength(1);
  });

  it('refuses a body that is not the declared image, a different content type, an empty body and one over 5 MB, storing nothing', async () => {
    const before = await stored();
    const url = await uploadUrl('photo.png', 'image/png');
    expect(await put(url, Buffer.from('name,email\nA,a@example.com\n'), 'image/png')).toEqual({
      status: 415,
      body: { errors: ['The file is not a PNG image'] },
    });
    expect(await put(url, PNG, 'image/jpeg')).toEqual({ status: 415, body: { errors: ['The upload must be sent as image/png, not image/jpeg'] } });
    expect(await put(url, Buffer.alloc(0), 'image/png')).toEqual({ status: 400, body: { errors: ['The image is empty'] } });
    const big = Buffer.concat([PNG, Buffer.alloc(MAX_IMAGE_UPLOAD_BYTES)]);
    expect(await put(url, big, 'image/png')).toEqual({ status: 413, body: { errors: ['The image is larger than 5 MB'] } });
    expect(await stored()).toEqual(before);
    // The same link still works for the right bytes.
    expect((await put(url, PNG, 'image/png')).status).toBe(200);
  });

  it("refuses an altered link, another tenant's key material and an expired link", async () => {
    const url = await uploadUrl('a.png', 'image/png');
    const [payload, sig] = new URL(url).pathname.split('/').pop()!.split('.');
    const fields = Buffer.from(payload, 'base64url').toString().split('\n');
    fields[3] = fields[3].replace('a-', 'b-');
    const altered = `http://localhost:8080/uploads/${Buffer.from(fields.join('\n')).toString('base64url')}.${sig}`;
    expect(await put(altered, PNG, 'image/png')).toEqual({ status: 403, body: { errors: ['This upload link is not valid'] } });

    const other = await h.tenant();
    const theirs = await templateImageUploadUrl(h.runtime.ctx, other.projectId, 'a.png', 'image/png');
    const [theirPayload] = new URL(theirs).pathname.split('/').pop()!.split('.');
    expect(await put(`http://localhost:8080/uploads/${theirPayload}.${sig}`, PNG, 'image/png')).toMatchObject({ status: 403 });

    const expired = await templateImageUploadUrl(h.runtime.ctx, t.projectId, 'old.png', 'image/png', new Date(Date.now() - 16 * 60_000));
    expect(await put(expired, PNG, 'image/png')).toEqual({ status: 403, body: { errors: ['This upload link has expired: start the upload again'] } });
  });

  it('takes one upload per URL: a second PUT answers 410 and stores nothing, a refused one leaves the URL unused', async () => {
    const url = await uploadUrl('once.png', 'image/png');
    expect(await put(url, Buffer.from('not an image'), 'image/png')).toMatchObject({ status: 415 });
    const first = await put(url, PNG, 'image/png');
    expect(first.status).toBe(200);
    const before = await stored();
    const gif = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
    expect(await put(url, PNG, 'image/png')).toEqual({ status: 410, body: { errors: ['This upload link has already been used: start a new upload'] } });
    expect(await put(url, gif, 'image/png')).toMatchObject({ status: 410 });
    expect(await stored()).toEqual(before);
    const served = await h.app.inject({ method: 'GET', url: new URL(first.body.data.url).pathname });
    expect(served.rawPayload.equals(PNG)).toBe(true);
    // Two PUTs at once: one stores, the other is refused.
    const url2 = await uploadUrl('twice.png', 'image/png');
    const both = await Promise.all([put(url2, PNG, 'image/png'), put(url2, PNG, 'image/png')]);
    expect(both.map((r) => r.status).sort()).toEqual([200, 410]);
  });

  it('answers 404 for an image that was never stored', async () => {
    const res = await h.app.inject({ method: 'GET', url: `/template-images/${t.projectId}/missing-2026-01-01-00000000.png` });
    expect(res.statusCode).toBe(404);
  });
});
