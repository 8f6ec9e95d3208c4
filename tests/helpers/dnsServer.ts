/**
 * A real DNS server on 127.0.0.1 (dns2, UDP, a free port) for the sending-domain tests: it answers TXT questions from
 * `zone` (lower-case name → TXT values, each split into 255-byte character-strings as DNS carries them), MX questions
 * from `mx`, and every other question with no answer.
 */
import dns2 from 'dns2';

export interface TestDnsServer {
  /** `127.0.0.1:port`, for DNS_RESOLVERS or Resolver.setServers. */
  address: string;
  /** The records served; change it at any time. */
  zone: Map<string, string[]>;
  /** MX records served: lower-case name → exchanges (priority 10). */
  mx: Map<string, string[]>;
  close(): Promise<void>;
}

/** startDnsServer starts the server with an empty zone. */
export async function startDnsServer(): Promise<TestDnsServer> {
  const zone = new Map<string, string[]>();
  const mx = new Map<string, string[]>();
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = dns2.Packet.createResponseFromRequest(request);
      const [question] = request.questions;
      if ((question as { type?: number }).type === dns2.Packet.TYPE.TXT) {
        for (const value of zone.get(question.name.toLowerCase()) ?? []) {
          const strings = value.match(/.{1,255}/g) ?? [''];
          response.answers.push({ name: question.name, type: dns2.Packet.TYPE.TXT, class: dns2.Packet.CLASS.IN, ttl: 1, data: strings as unknown as string });
        }
      }
      if ((question as { type?: number }).type === dns2.Packet.TYPE.MX) {
        for (const exchange of mx.get(question.name.toLowerCase()) ?? []) {
          response.answers.push({ name: question.name, type: dns2.Packet.TYPE.MX, class: dns2.Packet.CLASS.IN, ttl: 1, exchange, priority: 10 } as never);
        }
      }
      send(response);
    },
  });
  await server.listen({ udp: { port: 0, address: '127.0.0.1' } });
  return { address: `127.0.0.1:${server.addresses().udp!.port}`, zone, mx, close: () => server.close() };
}
