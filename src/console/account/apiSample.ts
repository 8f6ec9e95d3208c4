/**
 * The events API sample shown on /account/settings (spec part 1 §1 "Event-triggered campaigns are fed by events that
 * customers post to an account-specific endpoint with an api key header", §3 Event, §7 POST {event}/events): the
 * endpoint, headers, a sample body and a curl command that works when pasted into a shell.
 */

/** The sample event body: one event for one contact, with metrics and free-shape json. */
export const SAMPLE_EVENT = {
  events: [{ name: 'order_completed', email: 'success@simulator.mailwright.test', metric1: 1, metric2: 49.9, json: { order_id: 'A-1001', items: 2 } }],
};

/** shellQuote wraps `s` in single quotes for a POSIX shell (a ' inside becomes '\''). */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** eventsEndpoint is the account's events endpoint from its event gateway URL. */
export function eventsEndpoint(eventGateway: string): string {
  return `${eventGateway.replace(/\/+$/, '')}/events`;
}

/** curlCommand is the sample as a curl command posting SAMPLE_EVENT (or `body`) with the api key header. */
export function curlCommand(eventGateway: string, apiKey: string, body: unknown = SAMPLE_EVENT): string {
  return [
    `curl -X POST ${shellQuote(eventsEndpoint(eventGateway))}`,
    `  -H ${shellQuote('Content-Type: application/json')}`,
    `  -H ${shellQuote(`x-api-key: ${apiKey}`)}`,
    `  -d ${shellQuote(JSON.stringify(body))}`,
  ].join(' \\\n');
}
