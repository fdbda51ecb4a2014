// @ts-check
import { defineConfig } from 'eslint/config';
// typescript-eslint and eslint-plugin-import-x come from the lint/ workspace, where they run on
// TypeScript 6 (typescript-eslint needs TypeScript's JavaScript API, which TypeScript 7 — the
// project's compiler — no longer has). See lint/README.md.
import { createNodeResolver, importX, tseslint } from '@svc/lint';

/**
 * `npm run lint` and test/lint.test.ts. Type-aware: every .ts/.tsx file is linted with the types of
 * its nearest tsconfig.json (the root one, or console/app's for the browser console).
 *
 * The rule set is typescript-eslint's `recommendedTypeChecked` with the promise and import-cycle
 * rules on top, minus the rules listed under "Off" below: together those few reported about 4,200
 * findings on this tree (nearly all of them `any` read from JSON in tests), which would bury the
 * handful that point at real hazards. Every rule left on passes on the whole tree, so a new finding
 * is news.
 */
export default defineConfig(
  {
    ignores: [
      '**/node_modules/',
      '**/dist/',
      '.tools/',
      '.data/',
      '.test-data/',
      '.peers/',
      '.scratch/',
      'coverage/',
      'db/migrations/',
      // Generated from the OpenAPI document by client/scripts/render-types.ts.
      'client/src/api-types.ts',
    ],
  },
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
  },
  {
    files: ['**/*.ts', '**/*.tsx'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { 'import-x': importX },
    settings: {
      // Imports name their .ts files (allowImportingTsExtensions), so plain file resolution finds them.
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.tsx', '.js', '.mjs', '.json'] })],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
      'import-x/extensions': ['.ts', '.tsx', '.js', '.mjs'],
    },
    rules: {
      // A promise nobody awaits loses its rejection (an unhandled rejection ends the process);
      // `void` marks a deliberate fire-and-forget.
      '@typescript-eslint/no-floating-promises': 'error',
      // An async callback where a void one is expected (event handlers, forEach, timers).
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      // `return promise` inside try/catch/finally skips the catch and runs the finally too early.
      '@typescript-eslint/return-await': ['error', 'in-try-catch'],
      // Rejecting with an abort signal's reason (typed `any`) is the platform's convention.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingAny: true, allowThrowingUnknown: true }],
      // Runtime import cycles only: `import type` is erased (verbatimModuleSyntax), so a cycle
      // through types alone cannot reorder module initialization, and import-x skips it.
      'import-x/no-cycle': ['error', { ignoreExternal: true }],

      // Off: the `any` family. ~3,900 findings, nearly all tests and fixtures reading untyped JSON
      // (`await response.json()`); typing those is its own project.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // Off: style. Async functions that do not await still implement Promise-returning interfaces
      // (activities, handlers, fakes); redundant assertions are harmless.
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
      // Off: tsc's noUnusedLocals already fails the build on unused locals and imports; this rule
      // would only add the `const { secret: _secret, ...rest }` omit-by-destructuring idiom.
      '@typescript-eslint/no-unused-vars': 'off',
      // Off: the flagged sites stringify untrusted JSON on purpose (`String(args.path ?? '')` for a
      // model's tool arguments); changing them changes what a malformed argument turns into.
      '@typescript-eslint/no-base-to-string': 'off',
      '@typescript-eslint/restrict-template-expressions': 'off',
    },
  },
);
