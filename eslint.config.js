// Lint configuration: ESLint's and typescript-eslint's recommended rules, including the type-aware
// ones (they read the project through tsconfig.json, so they see the types that come from the
// database and the schema). Layout is Prettier's job (.prettierrc.json): no stylistic rules here.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'data/', 'data-*/', '.bench/', '.scratch/', 'test/fixtures/'] },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: globals.node,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Implementations of an async interface (a lock on the embedded database, a resolver in a
      // test) may have nothing to await; writing them as Promise.resolve(...) by hand reads worse.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // The tests read response bodies as they come (`Response.json()` is `any`).
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  { files: ['**/*.js'], extends: [tseslint.configs.disableTypeChecked] },
);
