import { defineConfig } from 'vitest/config';

/**
 * Test projects by file suffix (STYLE.md 10): `*.test.ts` unit tests of pure logic, `*.api.test.ts` gateway tests
 * against a real database (PGlite by default; PostgreSQL with API_DB=postgres and TEST_DATABASE_URL), `*.e2e.ts`
 * browser tests with Playwright driving Debian's chromium against the built product.
 *
 * API test files run one at a time (their crash tests time leases; two at once on 2 cores timed one out). `npm run
 * test:e2e` runs two browser test files at once (`--fileParallelism --maxWorkers 2`): each starts its own server on
 * its own port and data folder, and much of their time is spent waiting (a blast due a minute ahead, job polls), so
 * the suite took 650 s against 976 s one at a time on this machine.
 */
export default defineConfig({
  test: {
    projects: [
      { test: { name: 'unit', include: ['src/**/*.test.ts', 'tests/unit/**/*.test.ts'], environment: 'node' } },
      {
        test: {
          name: 'api',
          include: ['tests/api/**/*.api.test.ts'],
          environment: 'node',
          globalSetup: ['tests/api/globalSetup.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['tests/e2e/**/*.e2e.ts'],
          environment: 'node',
          testTimeout: 240_000,
          hookTimeout: 240_000,
          setupFiles: ['tests/e2e/setup.ts'],
          fileParallelism: false,
        },
      },
    ],
  },
});
