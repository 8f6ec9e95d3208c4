/**
 * Set-up of every browser test file: after the file's tests, no page may have had anything refused by the product's
 * Content-Security-Policy (a policy that still lets the console, both designers and the offline
 * fallback work). The refusals are collected by tests/helpers/browser.ts from the console of every context.
 */
import { afterAll, expect } from 'vitest';
import { cspViolations } from '../helpers/browser.ts';

afterAll(() => {
  expect(cspViolations(), 'Content-Security-Policy refusals').toEqual([]);
});
