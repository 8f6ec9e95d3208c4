/**
 * axeProblems answers axe-core's serious and critical findings (WCAG 2.0/2.1 A and AA, best practices) on a page as
 * it is once its running animations and transitions have finished: a toast still fading in has partial opacity, which
 * axe measures as too little colour contrast (seen as a flaky color-contrast finding on a snackbar). One line per
 * finding: `{rule} ({impact}) at {first three targets}`.
 */
import type { Page } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';

export async function axeProblems(page: Page): Promise<string[]> {
  await page.evaluate(async () => {
    // Finite animations only (a spinner runs for ever); a finished or cancelled one settles at once.
    const running = document.getAnimations().filter((a) => Number.isFinite(Number(a.effect?.getComputedTiming().endTime)));
    await Promise.all(running.map((a) => a.finished.catch(() => undefined)));
  });
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.id} (${v.impact}) at ${v.nodes
          .map((n) => n.target.join(' '))
          .slice(0, 3)
          .join(' | ')}`,
    );
}
