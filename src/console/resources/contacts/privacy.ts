/**
 * Pure helpers of the contact page's privacy actions (ContactPrivacy): the export's file name, the erase dialog's words
 * and typed confirmation, and the toast after an erasure (openapi/user.yaml exportContact, eraseContacts).
 */
import type { OperationResponse } from '../../data/apiTypes';

/** What eraseContacts answers it erased. */
export type Erased = OperationResponse<'eraseContacts'>['data'];

/** exportFileName is the name of a contact's downloaded data, as the export's Content-Disposition names it. */
export function exportFileName(id: string): string {
  return `contact-${id}.json`;
}

/** ERASE_CONSEQUENCES says in plain words what erasing a contact does, after "Erase <email> for good?". */
export const ERASE_CONSEQUENCES =
  'Their profile, consents, segment memberships, workflow runs and the stored copies of their emails are deleted. ' +
  'Their sends, opens and clicks stay counted in reports without their address. ' +
  'The address is remembered only as a one-way fingerprint so it is never imported or mailed again, ' +
  'unless they subscribe again themselves through a form. This cannot be undone.';

/** confirmsEmail is true when `typed` is the contact's address (surrounding spaces and letter case aside). */
export function confirmsEmail(typed: string, email: string): boolean {
  const want = email.trim().toLowerCase();
  return want !== '' && typed.trim().toLowerCase() === want;
}

const count = (n: number, one: string, many: string) => `${n.toLocaleString()} ${n === 1 ? one : many}`;

/** erasedMessage is the toast after an erasure, e.g. "Erased: 1 contact, 3 stored emails deleted". */
export function erasedMessage(erased: Pick<Erased, 'contacts' | 'copies'>): string {
  return `Erased: ${count(erased.contacts, 'contact', 'contacts')}, ${count(erased.copies, 'stored email', 'stored emails')} deleted`;
}
