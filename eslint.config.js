// @ts-check
/**
 * ESLint flat config (STYLE.md 14): typescript-eslint's recommended rules (syntax only, no type information, so
 * `eslint .` stays fast on 2 cores), React's rules of hooks for the console, and an `eslint-disable` must say why on
 * the same line (`// eslint-disable-next-line rule -- reason`). Formatting is Prettier's job (`.prettierrc.json`);
 * none of the rules below are about layout.
 */
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import comments from '@eslint-community/eslint-plugin-eslint-comments/configs';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig(
  {
    // Written by tools, not people: generated/ (scripts/codegen.ts, checked by codegen:check), build output and test
    // artefacts. node_modules/ is ignored by default.
    ignores: ['generated/', 'dist/', 'data/', 'coverage/', 'test-results/', 'playwright-report/', '.tmp/'],
  },
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  comments.recommended,
  {
    rules: {
      // STYLE.md 14: a disable comment carries its reason (`-- why`).
      '@eslint-community/eslint-comments/require-description': ['error', { ignore: ['eslint-enable'] }],
      // A `let` that a closure defined earlier reads (src/server/main.ts's signal handlers read `app` and `runtime`
      // before they are assigned) cannot become a `const` without a temporal-dead-zone ReferenceError.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // `_`-prefixed names are deliberately unused (a handler's fixed signature, a skipped tuple element).
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
    },
  },
  {
    // Runs in Node: the server, workers, tests, scripts, benches and the root config files.
    files: ['src/server/**', 'src/workers/**', 'tests/**', 'scripts/**', 'bench/**', '*.{js,mjs,cjs,ts}'],
    languageOptions: { globals: { ...globals.node } },
  },
  {
    // Pure logic shared by the console and the server (STYLE.md 5): only what both runtimes have.
    files: ['src/domain/**'],
    languageOptions: { globals: { ...globals['shared-node-browser'] } },
  },
  {
    // The console runs in the browser.
    files: ['src/console/**'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
    },
  },
  // The layers (docs/architecture.md): each may import only what lies beneath it.
  {
    files: ['src/domain/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [layer('domain/ is pure logic', ['server', 'workers', 'console'])] }] },
  },
  {
    // runtime.ts is the composition root: it starts the server and, in one process, the workers.
    files: ['src/server/**'],
    ignores: ['src/server/runtime.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [layer('server/ serves requests', ['workers', 'console'])] }] },
  },
  {
    files: ['src/server/core/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [layer('core/ holds the domain facts', ['gateways', 'plugins', 'workers'])] }] },
  },
  {
    files: ['src/console/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [layer('the console runs in the browser', ['server', 'workers'])] }] },
  },
);

/**
 * layer: a no-restricted-imports pattern refusing any relative import that passes through one of `folders`
 * (`../server/…`, `../../workers/…`), with the reason shown to the author.
 * @param {string} why
 * @param {string[]} folders
 */
function layer(why, folders) {
  return { regex: `^(\\.\\.?/)+(.*/)?(${folders.join('|')})/`, message: `${why}: it may not import ${folders.join(', ')}.` };
}
