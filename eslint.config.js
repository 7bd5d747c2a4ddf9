// Lint configuration: ESLint's and typescript-eslint's recommended rules, including the type-aware
// ones (they read the project through tsconfig.json, so they see the types that come from the
// database and the schema). Layout is Prettier's job (.prettierrc.json): no stylistic rules here.
import js from '@eslint/js';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// Dependencies point down (README, Design): the edge (src/edge.ts, every public request's way) →
// the facades (src/rest, src/internal, src/dashboard, src/cli) → the GraphQL core (src/schema) → jobs and webhooks → src/db and the RBA parsers →
// src/domain. Each zone names a layer and the layers above it that it must not import.
const ABOVE_JOBS = ['./schema', './rest', './internal', './dashboard', './cli', './edge.ts', './app.ts', './main.ts'];
const LAYERS = [
  { target: './src/domain', from: './src', except: ['./domain'], message: 'src/domain imports nothing else from src.' },
  { target: './src/rba', from: './src', except: ['./rba', './domain'], message: 'src/rba parses bytes into days: only src/domain is below it.' },
  {
    target: './src/db',
    from: ['./src/rba', './src/jobs', './src/webhooks', './src/services.ts', ...ABOVE_JOBS.map((path) => path.replace('./', './src/'))],
    message: 'src/db is below everything but src/domain.',
  },
  {
    target: ['./src/jobs', './src/webhooks', './src/mail', './src/services.ts'],
    from: ABOVE_JOBS.map((path) => path.replace('./', './src/')),
    message: 'jobs, webhooks, mail and the services are below the GraphQL core and the facades.',
  },
  {
    target: './src/http',
    from: ['./src/rest', './src/internal', './src/dashboard', './src/cli', './src/edge.ts', './src/app.ts', './src/main.ts'],
    message: 'src/http (the listeners, the envelope and its status table) is below the facades.',
  },
  {
    target: './src/schema',
    from: ['./src/rest', './src/internal', './src/dashboard', './src/cli', './src/edge.ts', './src/app.ts', './src/main.ts'],
    message: 'The GraphQL core is below the facades.',
  },
  {
    target: ['./src/rest', './src/internal', './src/dashboard', './src/mcp'],
    from: ['./src/edge.ts', './src/app.ts', './src/start.ts', './src/main.ts'],
    message: 'The facades are below the edge (src/edge.ts), which routes to them, and the app that builds them.',
  },
];

export default tseslint.config(
  // api.d.ts is generated from the served OpenAPI document (examples/typed-client/generate.ts).
  { ignores: ['node_modules/', 'dist/', 'data/', 'data-*/', '.bench/', '.scratch/', 'test/fixtures/', 'examples/typed-client/api.d.ts'] },
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
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    plugins: { 'import-x': importX },
    settings: {
      // Imports name the emitted .js; the sources are .ts and .tsx.
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.tsx', '.js'], extensionAlias: { '.js': ['.ts', '.tsx', '.js'] } })],
    },
    rules: { 'import-x/no-restricted-paths': ['error', { zones: LAYERS }] },
  },
  {
    // Every statement is a plain function in src/db; above it, code calls those functions.
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    ignores: ['src/db/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: [{ name: 'kysely', importNames: ['sql'], message: 'SQL lives in src/db, as plain functions taking the database first.' }] },
      ],
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
