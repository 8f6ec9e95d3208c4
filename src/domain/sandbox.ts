/**
 * Sandbox rules (spec part 1 §1, §4; part 2 §1, §5 Test email): a project with not_in_sandbox false may send only to
 * the simulator success address and to its own sender personas.
 */

/** The simulator success address: accepted and delivered by the relay, never to a real mailbox. */
export const SIMULATOR_SUCCESS_ADDRESS = 'success@simulator.mailwright.test';

/** What follows the address in the reason a recipient is refused in the sandbox (the expansion appends it in SQL). */
export const SANDBOX_REFUSAL = `: this project is in the sandbox and may only send to ${SIMULATOR_SUCCESS_ADDRESS} or to its own sender personas; email support to activate it`;

/**
 * sandboxRejection returns why `recipient` may not be sent to from a sandboxed project, or undefined when allowed.
 * `personaEmails` are the project's sender persona addresses; comparison ignores case.
 */
export function sandboxRejection(recipient: string, personaEmails: Iterable<string>): string | undefined {
  const to = recipient.trim().toLowerCase();
  if (to === SIMULATOR_SUCCESS_ADDRESS) return undefined;
  for (const p of personaEmails) if (p.trim().toLowerCase() === to) return undefined;
  return `${recipient}${SANDBOX_REFUSAL}`;
}
