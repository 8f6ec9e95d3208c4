/**
 * Device groups of user agents (spec part 1 §2 Insights: opens and clicks by device — Desktop / Other, Tablet, Mobile),
 * read by the ua-parser-js library. Shared by the server (stored on open and click events) and the stats page (which
 * groups the by-user-agent report). Pure.
 */
import { UAParser } from 'ua-parser-js';
import type { DeviceGroup } from './reports.ts';

/** deviceOf names the device group of a user agent; an empty or unknown agent is 'Desktop / Other'. */
export function deviceOf(userAgent: string): DeviceGroup {
  const type = new UAParser(userAgent).getDevice().type;
  if (type === 'mobile') return 'Mobile';
  if (type === 'tablet') return 'Tablet';
  return 'Desktop / Other';
}
