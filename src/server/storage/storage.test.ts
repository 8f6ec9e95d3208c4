/**
 * FileStorage's local paths and withLocalFile (the random-access reads of an XLSX import): the storage's own file when
 * it has one; otherwise a temporary copy made from getStream and removed afterwards, also when the work fails.
 */
import { existsSync } from 'node:fs';
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
  it('hands over FileStorage\'s own file', async () => {
    const storage = await storageWithObject();
    const own = storage.localPath('uploads', 'p1/people.xlsx');
    expect(await withLocalFile(storage, 'uploads', 'p1/people.xlsx', async (file) => file)).toBe(own);
    expect(() => storage.localPath('uploads', '../../escape')).toThrow(/escapes its root/);
  });

  it('copies an object of storage with no local files to a temporary file, removed afterwards even when the work fails', async () => {
    const files = await storageWithObject();
    const remote: Storage = { put: files.put.bind(files), get: files.get.bind(files), putStream: files.putStream.bind(files), getStream: files.getStream.bind(files), size: files.size.bind(files) };
    let copy = '';
    const text = await withLocalFile(remote, 'uploads', 'p1/people.xlsx', async (file) => { copy = file; return await readFile(file, 'utf8'); });
    expect(text).toBe('workbook bytes');
    expect(copy).not.toBe(files.localPath('uploads', 'p1/people.xlsx'));
    expect(path.basename(copy)).toBe('people.xlsx');
    expect(existsSync(copy)).toBe(false);

    const failure = new Error('bad sheet');
    await expect(withLocalFile(remote, 'uploads', 'p1/people.xlsx', async (file) => { copy = file; throw failure; })).rejects.toBe(failure);
    expect(existsSync(copy)).toBe(false);
    await expect(withLocalFile(remote, 'uploads', 'p1/none.xlsx', async () => 'never')).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
