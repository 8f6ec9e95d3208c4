/** The SMTP page's connection box: ports in words and snippets that match the port's security. */
import { describe, expect, it } from 'vitest';
import { connectionSnippets, portLines, preferredConnection } from './smtpSetup';

describe('the SMTP connection box', () => {
  it('words each port, or says it is off on this install', () => {
    expect(portLines({ starttls: 587, tls: null }).map((l) => l.value)).toEqual(['587, STARTTLS', 'off on this install']);
    expect(portLines({ starttls: null, tls: 465 }).map((l) => l.value)).toEqual(['off on this install', '465, TLS from the first byte']);
  });

  it('prefers STARTTLS, falls back to TLS, and has nothing to offer with both off', () => {
    expect(preferredConnection({ starttls: 587, tls: 465 })).toEqual({ port: 587, security: 'starttls' });
    expect(preferredConnection({ starttls: null, tls: 465 })).toEqual({ port: 465, security: 'tls' });
    expect(preferredConnection({ starttls: null, tls: null })).toBeNull();
  });

  it('writes Django and nodemailer settings for the host and port, with the secret read from the environment', () => {
    const [django, node] = connectionSnippets('mail.example.com', { port: 587, security: 'starttls' });
    expect(django.text).toContain('EMAIL_HOST = "mail.example.com"');
    expect(django.text).toContain('EMAIL_PORT = 587');
    expect(django.text).toContain('EMAIL_USE_TLS = True');
    expect(django.text).not.toContain('EMAIL_USE_SSL');
    expect(django.text).toContain('os.environ["SMTP_PASSWORD"]');
    expect(node.text).toContain('secure: false');
    expect(node.text).toContain('requireTLS: true');
    const [djangoTls, nodeTls] = connectionSnippets('mail.example.com', { port: 465, security: 'tls' });
    expect(djangoTls.text).toContain('EMAIL_USE_SSL = True');
    expect(djangoTls.text).not.toContain('EMAIL_USE_TLS');
    expect(nodeTls.text).toContain('secure: true');
    expect(nodeTls.text).not.toContain('requireTLS');
  });
});
