// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/node_modules/**', '.tools/**', '.data/**', 'test-results/**', 'test/fixture-web/static/**'] },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly' } },
    rules: {
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'error',
      eqeqeq: ['error', 'always'],
    },
  },
  {
    // The dashboard's browser script: plain JavaScript served as is.
    files: ['apps/api/src/dashboard/assets/**/*.js', 'packages/miner/src/browser/page-scripts/*.js'],
    languageOptions: {
      globals: { document: 'readonly', window: 'readonly', fetch: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', location: 'readonly', getComputedStyle: 'readonly', CSS: 'readonly', performance: 'readonly', MutationObserver: 'readonly', XMLHttpRequest: 'readonly', Event: 'readonly', HTMLInputElement: 'readonly', HTMLTextAreaElement: 'readonly', PointerEvent: 'readonly', MouseEvent: 'readonly', KeyboardEvent: 'readonly' },
    },
  },
  {
    files: ['bench/**', 'test/**', '**/*.test.ts'],
    rules: { 'no-console': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
);
