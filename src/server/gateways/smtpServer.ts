/**
 * What the product's two SMTP servers share (gateways/inbound/receiver.ts for returned mail, gateways/submission/
 * server.ts for applications' mail), both built on smtp-server: the error whose reply smtp-server sends as given, and
 * reading a message's DATA within a size limit.
 */
import type { Readable } from 'node:stream';

/** smtpError: an error whose SMTP reply smtp-server sends as given (`code` and the enhanced status and text). */
export function smtpError(code: number, message: string): Error & { responseCode: number } {
  return Object.assign(new Error(message), { responseCode: code });
}

/**
 * readSmtpData reads a message's DATA stream and resolves with its bytes, or with 'too_big' once it passed `maxBytes`
 * (smtp-server's own SIZE check, or ours): nothing past the limit is kept, while smtp-server reads the message to its
 * end so the session can answer `552 5.3.4`.
 */
export function readSmtpData(stream: Readable, maxBytes: number): Promise<Buffer | 'too_big'> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    stream.on('data', (c: Buffer) => {
      bytes += c.length;
      if (bytes <= maxBytes) chunks.push(c);
    });
    stream.on('end', () => {
      const exceeded = (stream as unknown as { sizeExceeded?: boolean }).sizeExceeded || bytes > maxBytes;
      resolve(exceeded ? 'too_big' : Buffer.concat(chunks));
    });
  });
}
