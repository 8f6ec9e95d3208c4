import { mkdtempSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isLoopback, publishOperatorEndpoint, readOperatorEndpoint, secretMatches } from './operatorEndpoint.ts';

describe('the command line endpoint of a running server', () => {
  it('is published readable by its owner only, read back, and removed only while it is still ours', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'mw-endpoint-'));
    const first = publishOperatorEndpoint(dir, 3123);
    expect(statSync(path.join(dir, 'operator.json')).mode & 0o777).toBe(0o600);
    expect(readOperatorEndpoint(dir)).toEqual({ url: 'http://127.0.0.1:3123', secret: first.secret, pid: process.pid });
    const second = publishOperatorEndpoint(dir, 3124); // a newer server on the folder
    first.remove(); // the older one exiting leaves the newer one's file alone
    expect(readOperatorEndpoint(dir)?.secret).toBe(second.secret);
    second.remove();
    expect(readOperatorEndpoint(dir)).toBeUndefined();
  });

  it('takes the secret only exactly, and only from this machine', () => {
    expect(secretMatches('abc', 'abc')).toBe(true);
    expect(secretMatches('abd', 'abc')).toBe(false);
    expect(secretMatches('ab', 'abc')).toBe(false);
    expect(secretMatches(undefined, 'abc')).toBe(false);
    expect(secretMatches('', undefined)).toBe(false);
    for (const ip of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1']) expect(isLoopback(ip), ip).toBe(true);
    for (const ip of ['10.0.0.1', '::ffff:10.0.0.1', '1270.0.0.1', '192.168.1.127']) expect(isLoopback(ip), ip).toBe(false);
  });
});
