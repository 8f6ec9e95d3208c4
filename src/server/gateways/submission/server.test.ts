import { describe, expect, it } from 'vitest';
import { simpleParser } from 'mailparser';
import { authNeedsTls, messageInput } from './server.ts';

describe('authNeedsTls', () => {
  it('refuses AUTH in clear except from loopback', () => {
    expect(authNeedsTls(false, '203.0.113.9')).toBe(true);
    expect(authNeedsTls(false, '::ffff:198.51.100.7')).toBe(true);
    expect(authNeedsTls(false, '2001:db8::1')).toBe(true);
    expect(authNeedsTls(true, '203.0.113.9')).toBe(false);
    expect(authNeedsTls(false, '127.0.0.1')).toBe(false);
    expect(authNeedsTls(false, '::ffff:127.0.0.1')).toBe(false);
    expect(authNeedsTls(false, '::1')).toBe(false);
    expect(authNeedsTls(false, undefined)).toBe(true);
  });
});

describe('messageInput', () => {
  it('reads the filing headers, keeps threading and X- fields, drops Bcc and the service-written fields', async () => {
    const raw = [
      'From: "Shop" <orders@shop.example.com>',
      'To: ann@example.com',
      'Bcc: hidden@example.com',
      'Subject: Hello',
      'Message-ID: <client@app.example.com>',
      'In-Reply-To: <prev@shop.example.com>',
      'X-Order: 12',
      'X-Mailwright-Stream: Broadcast',
      'X-Mailwright-Tag: receipt, eu',
      'X-Mailwright-Tag: vip',
      'X-Mailwright-Metadata: {"order":"12"}',
      'Content-Type: text/plain',
      '',
      'Body',
    ].join('\r\n');
    const m = messageInput(await simpleParser(raw), ['ann@example.com', 'hidden@example.com'], 'transactional');
    expect(m.stream).toBe('broadcast');
    expect(m.tags).toEqual(['receipt', 'eu', 'vip']);
    expect(m.metadata).toEqual({ order: '12' });
    expect(m.bcc).toEqual([]);
    expect(m.recipients).toEqual(['ann@example.com', 'hidden@example.com']);
    expect(m.headers).toEqual([
      ['In-Reply-To', '<prev@shop.example.com>'],
      ['X-Order', '12'],
    ]);
    expect(m.text?.trim()).toBe('Body');
  });

  it('refuses metadata that is not a JSON object of strings', async () => {
    const raw = 'From: a@b.example.com\r\nX-Mailwright-Metadata: [1]\r\n\r\nx';
    await expect(async () => messageInput(await simpleParser(raw), ['c@d.example.com'], 'transactional')).rejects.toThrow(/X-Mailwright-Metadata/);
  });
});
