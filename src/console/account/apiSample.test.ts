/** The settings page's events API sample (spec part 1 §7 POST {event}/events). */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { curlCommand, eventsEndpoint, SAMPLE_EVENT, shellQuote } from './apiSample';

describe('the events API sample', () => {
  it('targets the account event gateway /events with both headers', () => {
    expect(eventsEndpoint('http://localhost:8080/api/event/')).toBe('http://localhost:8080/api/event/events');
    const cmd = curlCommand('http://localhost:8080/api/event', 'mk_abc');
    expect(cmd.split(' \\\n')).toEqual([
      "curl -X POST 'http://localhost:8080/api/event/events'",
      "  -H 'Content-Type: application/json'",
      "  -H 'x-api-key: mk_abc'",
      `  -d '${JSON.stringify(SAMPLE_EVENT)}'`,
    ]);
  });

  it('quotes so a shell passes the body through unchanged, quotes included', () => {
    const body = { events: [{ name: "it's", email: 'a@b.co', json: { note: 'say "hi" $HOME `x`' } }] };
    const cmd = curlCommand('http://h/api/event', 'k', body);
    const dataArg = cmd.split(' \\\n')[3].replace(/^ {2}-d /, '');
    // The shell's own reading of the quoted argument is the JSON, byte for byte.
    expect(execFileSync('sh', ['-c', `printf %s ${dataArg}`]).toString()).toBe(JSON.stringify(body));
    expect(shellQuote("a'b")).toBe(`'a'\\''b'`);
  });
});
