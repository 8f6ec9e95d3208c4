import { describe, expect, it } from 'vitest';
import { recipientsOf } from './bounceMailbox.ts';

describe('the bounce mailbox copy’s recipients', () => {
  it('reads Delivered-To, X-Original-To and To in that order, unfolded, lower-cased, once each', () => {
    const headers = [
      'To: "Bounces" <B-1-ABC@Bounces.Shop.Example>,',
      ' other@bounces.shop.example',
      'Delivered-To: b-1-abc@bounces.shop.example',
      'X-Original-To: fbl@bounces.shop.example',
      'Subject: x',
      '',
    ].join('\r\n');
    expect(recipientsOf(headers)).toEqual(['b-1-abc@bounces.shop.example', 'fbl@bounces.shop.example', 'other@bounces.shop.example']);
  });
  it('reads nothing from headers without them', () => {
    expect(recipientsOf('Subject: x\r\n\r\n')).toEqual([]);
    expect(recipientsOf('')).toEqual([]);
  });
});
