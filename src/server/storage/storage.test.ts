/**
 * FileStorage's local paths and withLocalFile (the random-access reads of an XLSX import): the storage's own file when
 * it has one; otherwise a temporary copy made from getStream and removed afterwards, also when the work fails. And
 * put's `unseen` writes (sent copies): a new object written in place, one already there replaced whole, in both the
 * blocking (render thread) and the asynchronous mode, with no temporary file left behind.
 */
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileStorage, withLocalFile, type Storage } from './storage.ts';

async function storageWithObject(): Promise<FileStorage> {
  const storage = new FileStorage(await mkdtemp(path.join(os.tmpdir(), 'mw-storage-')));
  await storage.put('uploads', 'p1/people.xlsx', 'workbook bytes');
  return storage;
}

describe('withLocalFile', () => {
  it("hands over FileStorage's own file", async () => {
    const storage = await storageWithObject();
    const own = storage.localPath('uploads', 'p1/people.xlsx');
    expect(await withLocalFile(storage, 'uploads', 'p1/people.xlsx', async (file) => file)).toBe(own);
    expect(() => storage.localPath('uploads', '../../escape')).toThrow(/escapes its root/);
  });

  it('copies an object of storage with no local files to a temporary file, removed afterwards even when the work fails', async () => {
    const files = await storageWithObject();
    const remote: Storage = {
      put: files.put.bind(files),
      get: files.get.bind(files),
      putStream: files.putStream.bind(files),
      getStream: files.getStream.bind(files),
      size: files.size.bind(files),
      deleteMany: files.deleteMany.bind(files),
    };
    let copy = '';
    const text = await withLocalFile(remote, 'uploads', 'p1/people.xlsx', async (file) => {
      copy = file;
      return await readFile(file, 'utf8');
    });
    expect(text).toBe('workbook bytes');
    expect(copy).not.toBe(files.localPath('uploads', 'p1/people.xlsx'));
    expect(path.basename(copy)).toBe('people.xlsx');
    expect(existsSync(copy)).toBe(false);

    const failure = new Error('bad sheet');
    await expect(
      withLocalFile(remote, 'uploads', 'p1/people.xlsx', async (file) => {
        copy = file;
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(existsSync(copy)).toBe(false);
    await expect(withLocalFile(remote, 'uploads', 'p1/none.xlsx', async () => 'never')).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('put', () => {
  for (const sync of [false, true]) {
    it(`${sync ? 'blocking' : 'asynchronous'}: an unseen put creates the object, and replaces one already there`, async () => {
      const root = await mkdtemp(path.join(os.tmpdir(), 'mw-storage-'));
      const storage = new FileStorage(root, sync);
      await storage.put('sent-emails', 'p1/2026-11-24/1.eml', 'first copy', { unseen: true });
      expect((await storage.get('sent-emails', 'p1/2026-11-24/1.eml'))?.toString()).toBe('first copy');
      // A retry of the same email (e.g. after a crash mid-write) writes the same key again: the new bytes win, whole.
      await storage.put('sent-emails', 'p1/2026-11-24/1.eml', 'second, longer copy', { unseen: true });
      expect((await storage.get('sent-emails', 'p1/2026-11-24/1.eml'))?.toString()).toBe('second, longer copy');
      await storage.put('sent-emails', 'p1/2026-11-24/1.eml', 'third');
      expect((await storage.get('sent-emails', 'p1/2026-11-24/1.eml'))?.toString()).toBe('third');
      expect(readdirSync(path.join(root, 'sent-emails', 'p1', '2026-11-24'))).toEqual(['1.eml']);
      await expect(storage.put('sent-emails', '../../escape.eml', 'x', { unseen: true })).rejects.toThrow(/escapes its root/);
    });
  }
});
