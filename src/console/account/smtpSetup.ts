/**
 * What the SMTP page (/account/smtp) tells an application's developer about connecting (openapi/email.yaml
 * listSmtpCredentials: `host` and `ports`): each submission port with its security, or that it is off on this install,
 * and short configuration snippets for common clients over the port to use. The user name and password are read from
 * the environment in the snippets, never written into them.
 */

/** The submission ports of the list answer: STARTTLS (587 in production) and implicit TLS (465); null when off. */
export interface SubmissionPorts {
  starttls: number | null;
  tls: number | null;
}

/** One way to connect: a port and its security. */
export interface Connection {
  port: number;
  security: 'starttls' | 'tls';
}

/** One configuration snippet: the client's name and its text. */
export interface Snippet {
  label: string;
  text: string;
}

/** portLines words both ports, e.g. "587 (STARTTLS)" or "off on this install", in the order the page lists them. */
export function portLines(ports: SubmissionPorts): Array<{ label: string; value: string }> {
  return [
    { label: 'Port (STARTTLS)', value: ports.starttls === null ? 'off on this install' : `${ports.starttls}, STARTTLS` },
    { label: 'Port (TLS)', value: ports.tls === null ? 'off on this install' : `${ports.tls}, TLS from the first byte` },
  ];
}

/** preferredConnection is the connection the snippets use: STARTTLS when on (the submission standard), else TLS, else none. */
export function preferredConnection(ports: SubmissionPorts): Connection | null {
  if (ports.starttls !== null) return { port: ports.starttls, security: 'starttls' };
  if (ports.tls !== null) return { port: ports.tls, security: 'tls' };
  return null;
}

/** quoted writes `s` as a double-quoted string literal that Python and JavaScript both read back as `s`. */
function quoted(s: string): string {
  return JSON.stringify(s);
}

/**
 * connectionSnippets are the Django settings and a nodemailer transport for `host` over `connection`, with the user
 * name and password read from SMTP_USER and SMTP_PASSWORD.
 */
export function connectionSnippets(host: string, connection: Connection): Snippet[] {
  const starttls = connection.security === 'starttls';
  return [
    {
      label: 'Django (settings.py)',
      text: [
        'import os',
        '',
        'EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"',
        `EMAIL_HOST = ${quoted(host)}`,
        `EMAIL_PORT = ${connection.port}`,
        starttls ? 'EMAIL_USE_TLS = True  # STARTTLS' : 'EMAIL_USE_SSL = True  # TLS from the first byte',
        'EMAIL_HOST_USER = os.environ["SMTP_USER"]',
        'EMAIL_HOST_PASSWORD = os.environ["SMTP_PASSWORD"]',
      ].join('\n'),
    },
    {
      label: 'Node.js (nodemailer)',
      text: [
        'const transport = nodemailer.createTransport({',
        `  host: ${quoted(host)},`,
        `  port: ${connection.port},`,
        starttls ? '  secure: false, // upgraded with STARTTLS' : '  secure: true, // TLS from the first byte',
        ...(starttls ? ['  requireTLS: true,'] : []),
        '  auth: { user: process.env.SMTP_USER, pass: process.env.SMTP_PASSWORD },',
        '});',
      ].join('\n'),
    },
  ];
}
