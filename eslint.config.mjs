// Type-aware lint rules for the habits we keep: awaited promises, exhaustive switches, strict
// equality, braces everywhere, no console, configuration read only in src/config.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'openapi/**', 'docs/**', '.tmp/**', 'eslint.config.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
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
  // process.env is read in src/config only; tests and the bench set up their own environments.
  { files: ['src/config/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts'], rules: { 'no-restricted-syntax': 'off', 'no-console': 'off' } },
  { files: ['src/cli/**/*.ts'], rules: { 'no-console': 'off' } },
  // Test callbacks are often async for uniformity (waitFor predicates, fakes).
  { files: ['test/**/*.ts'], rules: { '@typescript-eslint/require-await': 'off' } },
);
