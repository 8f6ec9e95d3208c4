import { describe, expect, it } from 'vitest';
import { confirmsEmail, erasedMessage, exportFileName } from './privacy';

describe('the contact page’s privacy actions', () => {
  it('names the export file after the contact', () => {
    expect(exportFileName('0b6f6a52-3f3e-4c51-9f57-1d2b8a0c9e11')).toBe('contact-0b6f6a52-3f3e-4c51-9f57-1d2b8a0c9e11.json');
  });
  it('enables Erase only once the address is typed (spaces and case aside)', () => {
    expect(confirmsEmail('', 'ann@example.com')).toBe(false);
    expect(confirmsEmail('ann@example', 'ann@example.com')).toBe(false);
    expect(confirmsEmail(' Ann@Example.com ', 'ann@example.com')).toBe(true);
    expect(confirmsEmail('', '')).toBe(false);
  });
  it('words what was erased', () => {
    expect(erasedMessage({ contacts: 1, copies: 0 })).toBe('Erased: 1 contact, 0 stored emails deleted');
    expect(erasedMessage({ contacts: 1, copies: 1 })).toBe('Erased: 1 contact, 1 stored email deleted');
    expect(erasedMessage({ contacts: 2, copies: 12 })).toBe('Erased: 2 contacts, 12 stored emails deleted');
  });
});
