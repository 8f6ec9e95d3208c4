import { describe, expect, it } from 'vitest';
import { feedbackKind, receiverWords } from './feedbackEvents';

describe('a contact’s bounces and complaints in words', () => {
  const bounce = (b: Record<string, unknown>) => ({ name: 'ses_event_bounce', json: { bounce: b } });
  it('names hard, soft and sender-side bounces and complaints', () => {
    expect(feedbackKind(bounce({ bounceType: 'Permanent', class: 'hard' })).label).toBe('Hard bounce');
    expect(feedbackKind(bounce({ bounceType: 'Transient', class: 'soft' })).label).toBe('Soft bounce');
    expect(feedbackKind(bounce({ bounceType: 'Transient', class: 'sender' })).label).toBe('Blocked (sender’s side)');
    expect(feedbackKind(bounce({ bounceType: 'Undetermined' })).label).toBe('Soft bounce');
    expect(feedbackKind({ name: 'ses_event_complaint', json: {} }).label).toBe('Complaint');
  });
  it('shows the receiver’s words without the diagnostic type, and a complaint’s feedback type', () => {
    expect(receiverWords(bounce({ bouncedRecipients: [{ diagnosticCode: 'smtp; 550 5.1.1 user unknown' }] }))).toBe('550 5.1.1 user unknown');
    expect(receiverWords(bounce({}))).toBe('');
    expect(receiverWords({ name: 'ses_event_complaint', json: { complaint: { complaintFeedbackType: 'abuse' } } })).toBe('Feedback type: abuse');
    expect(receiverWords({ name: 'ses_event_bounce', json: null })).toBe('');
  });
});
