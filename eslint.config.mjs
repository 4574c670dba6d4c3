// Type-aware lint rules for the habits we keep: awaited promises, exhaustive switches, strict
// equality, braces everywhere, no console, configuration read only in src/config.
import js from '@eslint/js';
import simpleImportSort from 'eslint-plugin-simple-import-sort';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'openapi/**', 'docs/**', '.tmp/**', 'eslint.config.mjs', 'clients/typescript/schema.d.ts', 'clients/typescript/dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { 'simple-import-sort': simpleImportSort },
    rules: {
      // One import style: relative paths (no `src/…` alias), sorted.
      'simple-import-sort/imports': 'error',
      'simple-import-sort/exports': 'error',
      'no-restricted-imports': ['error', { patterns: [{ group: ['src/*'], message: 'Import with a relative path.' }] }],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/require-await': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      eqeqeq: 'error',
      curly: 'error',
      'no-console': 'error',
      'no-restricted-syntax': [
        'error',
        { selector: "MemberExpression[object.name='process'][property.name='env']", message: 'Read configuration through src/config only.' },
      ],
    },
  },
  // process.env is read in src/config only; tests, the bench and the chaos run set up their own environments.
  { files: ['src/config/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts', 'chaos/**/*.ts'], rules: { 'no-restricted-syntax': 'off', 'no-console': 'off' } },
  { files: ['src/cli/**/*.ts'], rules: { 'no-console': 'off' } },
  // The gateway simulator's entry file reads its own settings (GATEWAY_SIM_*) and prints them.
  { files: ['gateway-sim/main.ts'], rules: { 'no-restricted-syntax': 'off', 'no-console': 'off' } },
  // Scripts the pages load (views/**/assets): plain browser JavaScript, linted without type information.
  {
    files: ['views/**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      sourceType: 'script',
      globals: { window: 'readonly', document: 'readonly', setTimeout: 'readonly', fetch: 'readonly', location: 'readonly' },
    },
  },
  // The gateway simulator's browser scripts (widget and pages): plain ES5, no type information.
  {
    files: ['gateway-sim/assets/**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      sourceType: 'script',
      globals: {
        window: 'readonly',
        document: 'readonly',
        fetch: 'readonly',
        URL: 'readonly',
        URLSearchParams: 'readonly',
      },
    },
  },
  // Test callbacks are often async for uniformity (waitFor predicates, fakes).
  { files: ['test/**/*.ts'], rules: { '@typescript-eslint/require-await': 'off' } },
);
