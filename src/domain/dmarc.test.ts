import { describe, expect, it } from 'vitest';
import { dmarcNextStep } from './dmarc.ts';

const rua = 'mailto:dmarc@bounces.shop.example';

describe('dmarcNextStep', () => {
  it('before any report: publish p=none with rua', () => {
    const step = dmarcNextStep({ published: null, passRate: null, daysWithReports: 0, rua });
    expect(step.next).toBeNull();
    expect(step.advice).toContain(`p=none and rua=${rua}`);
  });

  it('none → quarantine → reject once 98% passes over a week of reports; stays while sources fail', () => {
    expect(dmarcNextStep({ published: 'none', passRate: 0.99, daysWithReports: 7, rua })).toEqual({
      next: 'quarantine',
      advice: '99.0% of reported mail passed DMARC over 7 days: move to p=quarantine.',
    });
    expect(dmarcNextStep({ published: 'quarantine', passRate: 0.985, daysWithReports: 30, rua }).next).toBe('reject');
    expect(dmarcNextStep({ published: 'none', passRate: 0.99, daysWithReports: 3, rua })).toMatchObject({
      next: null,
      advice: expect.stringMatching(/wait for a week/),
    });
    expect(dmarcNextStep({ published: 'none', passRate: 0.9, daysWithReports: 30, rua })).toMatchObject({
      next: null,
      advice: expect.stringMatching(/^Stay at p=none: 90.0% of reported mail passed DMARC\. .* then move to p=quarantine once 98% passes\.$/),
    });
    expect(dmarcNextStep({ published: 'reject', passRate: 1, daysWithReports: 30, rua }).next).toBeNull();
  });
});
