/**
 * A real HTTP receiver for webhook tests: listens on 127.0.0.1, keeps every request (headers and the
 * exact body), and answers as told — 'ok' (204), 'fail' (500), 'hang' (never answers) or 'trickle' (starts a 200
 * answer and sends a byte every 200 ms, never ending it). `stop()` closes the port
 * (connections refused, as when a customer's endpoint is down); `start(port)` opens it again on the same port.
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export class WebhookReceiver {
  readonly requests: ReceivedRequest[] = [];
  mode: 'ok' | 'fail' | 'hang' | 'trickle' = 'ok';
  port = 0;
  private server?: Server;
  private readonly hanging: ServerResponse[] = [];

  /** start listens (on `port`, or the last port, or a free one) and resolves the URL to register. */
  async start(port = this.port): Promise<string> {
    this.server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (body += c));
      req.on('end', () => {
        this.requests.push({ headers: req.headers, body, at: Date.now() });
        if (this.mode === 'hang') return void this.hanging.push(res);
        if (this.mode === 'trickle') {
          // Answers at once, then a byte every 200 ms and never ends: alive, but never done.
          res.writeHead(200, { 'content-type': 'text/plain' });
          const drip = setInterval(() => res.write('.'), 200);
          res.on('close', () => clearInterval(drip));
          return void this.hanging.push(res);
        }
        res.writeHead(this.mode === 'ok' ? 204 : 500).end(this.mode === 'ok' ? undefined : 'receiver is failing on purpose');
      });
    });
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(port, '127.0.0.1', () => resolve());
    });
    this.port = (this.server.address() as AddressInfo).port;
    return `http://127.0.0.1:${this.port}/hooks`;
  }

  /** stop closes the port and every open connection (a hanging request's included). */
  async stop(): Promise<void> {
    for (const res of this.hanging.splice(0)) res.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = undefined;
  }

  /** ofType returns the requests whose JSON body has `type`. */
  ofType(type: string): ReceivedRequest[] {
    return this.requests.filter((r) => (JSON.parse(r.body) as { type: string }).type === type);
  }

  /** waitFor resolves when `check()` holds (polling every 50 ms); rejects after `timeoutMs`. */
  async waitFor(check: () => boolean, timeoutMs = 30_000): Promise<void> {
    const end = Date.now() + timeoutMs;
    while (!check()) {
      if (Date.now() > end) throw new Error(`webhook receiver: timed out; got ${this.requests.map((r) => r.body.slice(0, 80)).join(' | ')}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
