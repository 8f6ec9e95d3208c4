/**
 * axeProblems answers axe-core's serious and critical findings (WCAG 2.0/2.1 A and AA, best practices) on a page as
 * it is once its running animations and transitions have finished: a toast still fading in has partial opacity, which
 * axe measures as too little colour contrast (seen as a flaky color-contrast finding on a snackbar). One line per
 * finding: `{rule} ({impact}) at {first three targets}`. Sandboxed frames (an email's rendered content) are left out.
 */
import type { Page } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';

export async function axeProblems(page: Page): Promise<string[]> {
  await page.evaluate(async () => {
    // Finite animations only (a spinner runs for ever); a finished or cancelled one settles at once.
    const running = document.getAnimations().filter((a) => Number.isFinite(Number(a.effect?.getComputedTiming().endTime)));
    // A paused animation never finishes: wait at most 2 s.
    await Promise.race([Promise.all(running.map((a) => a.finished.catch(() => undefined))), new Promise((r) => setTimeout(r, 2000))]);
  });
  // Sandboxed frames show an email as sent (previews, the viewer): the customer's content, where no script may run —
  // axe cannot enter them (it waits for ever), and their markup is not the console's to fix.
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).exclude('iframe[sandbox]').analyze();
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
