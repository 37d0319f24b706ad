// @ts-check
/**
 * Lint: the rules the README states about the code, enforced. Type-aware, so it catches promises
 * nobody awaits; the per-folder import rules are the layering of "How it is built":
 *
 *   contracts, lib        pure, shared by everything; import nothing of ours but each other
 *   db                    Postgres through kysely
 *   scraper, browser      fetch and convert pages; only browser/ drives Playwright
 *   llm                   the model client; model calls run in activities only
 *   activities            the worker's I/O, built from deps; never the API or workflow code
 *   workflows             deterministic: types only from the layers below, no Node or I/O
 *   api                   validates, meters, starts workflows; never runs page work itself
 *   worker                wiring only; nothing imports it
 */
import js from '@eslint/js';
import { flatConfigs as importX } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

const TS = ['**/*.ts'];

/**
 * One folder's import rule. `banned` folders may not be imported at all, `typesOnly` folders only
 * with `import type`. Playwright is banned everywhere but browser/.
 */
function layer(dir, { banned = [], typesOnly = [], packages = [], message }) {
  const folder = (name) => [`**/${name}/**`, `../${name}/*`, `../../${name}/*`, `../../../${name}/*`];
  const patterns = [
    ...banned.map((name) => ({ group: folder(name), message })),
    ...typesOnly.map((name) => ({ group: folder(name), allowTypeImports: true, message: `${message} (import types only)` })),
    ...packages.map((name) => ({ group: [name, `${name}/*`], message })),
    ...(dir === 'browser' ? [] : [{ group: ['playwright-core', 'playwright'], message: 'Only browser/ drives Playwright' }]),
  ];
  return {
    files: [`${dir}/**/*.ts`],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns }] },
  };
}

const NO_WORKER_IMPORTS = { selector: 'ImportDeclaration[source.value=/worker\\//]', message: 'Nothing imports worker/: it only wires the process.' };

/**
 * A pattern built at run time may come from a user, and V8's RegExp backtracks: one team's glob
 * stalled every team's worker. RegExps are built from constants at module level; anything built
 * from input goes through lib/patterns/, which matches in linear time.
 */
const PATTERNS_MESSAGE = 'Build a RegExp only from constants at module level; patterns from input go through lib/patterns/ (linear time)';
const USER_PATTERNS_ONLY_IN_PATTERNS = [
  { selector: ':function NewExpression[callee.name="RegExp"]', message: PATTERNS_MESSAGE },
  { selector: ':function CallExpression[callee.name="RegExp"]', message: PATTERNS_MESSAGE },
  { selector: 'ImportDeclaration[source.value=/^(re2js|css-what)$/]', message: 'Only lib/patterns/ compiles user-supplied patterns' },
];

/** The system of record is read and written through db/repositories/ only (and migrations). */
const SQL_MESSAGE = 'SQL lives in db/repositories/: add a repository function and call it';
const SQL_ONLY_IN_DB = [
  { selector: 'CallExpression[callee.property.name=/^(selectFrom|insertInto|updateTable|deleteFrom|mergeInto|replaceInto|selectNoFrom)$/]', message: SQL_MESSAGE },
  { selector: 'TaggedTemplateExpression[tag.name="sql"]', message: SQL_MESSAGE },
];
/** Workflow and Schedule ids follow one convention, written in lib/workflow-ids.ts. */
const IDS_MESSAGE = 'Build workflow and Schedule ids with lib/workflow-ids.ts, which holds the one convention';
const IDS_ONLY_IN_ONE_MODULE = [
  { selector: 'Property[key.name=/^(workflowId|scheduleId)$/] > TemplateLiteral', message: IDS_MESSAGE },
  { selector: 'VariableDeclarator[id.name=/^(workflowId|scheduleId)$/] > TemplateLiteral', message: IDS_MESSAGE },
];
const BASE_SYNTAX = [NO_WORKER_IMPORTS, ...SQL_ONLY_IN_DB, ...IDS_ONLY_IN_ONE_MODULE];

const NODE_BUILTINS = ['node:*', 'fs', 'path', 'crypto', 'os', 'http', 'https', 'net', 'child_process', 'timers'];
const IO_PACKAGES = ['pg', 'kysely', 'express', 'playwright-core', 'undici', '@temporalio/activity', '@temporalio/client', '@temporalio/worker'];

export default tseslint.config(
  { ignores: ['node_modules/**', '.cache/**', 'bench/RESULTS.md', 'test/integration/scripts/fixtures/**', '**/*.js', '**/*.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: TS,
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { 'import-x': importX.recommended.plugins['import-x'] },
    settings: { ...importX.typescript.settings },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'no-restricted-syntax': ['error', ...BASE_SYNTAX, ...USER_PATTERNS_ONLY_IN_PATTERNS],
    },
  },
  // The one vetted module that compiles user-supplied patterns, each in linear time.
  { files: ['lib/patterns/**/*.ts'], rules: { 'no-restricted-syntax': ['error', ...BASE_SYNTAX] } },
  { files: ['lib/workflow-ids.ts'], rules: { 'no-restricted-syntax': ['error', NO_WORKER_IMPORTS, ...SQL_ONLY_IN_DB, ...USER_PATTERNS_ONLY_IN_PATTERNS] } },
  { files: ['db/**/*.ts'], rules: { 'no-restricted-syntax': ['error', NO_WORKER_IMPORTS, ...USER_PATTERNS_ONLY_IN_PATTERNS] } },
  // The worker is a service; scripts/ are the developer's tools around it.
  { files: ['worker/**/*.ts'], rules: { 'no-restricted-syntax': ['error', ...BASE_SYNTAX, ...USER_PATTERNS_ONLY_IN_PATTERNS, { selector: 'ImportDeclaration[source.value=/scripts\\//]', message: 'worker/ imports nothing from scripts/' }] } },
  ...['contracts', 'lib'].map((dir) =>
    layer(dir, {
      banned: ['api', 'activities', 'workflows', 'worker', 'browser'],
      typesOnly: ['db', 'scraper'],
      packages: ['express', 'pg', 'kysely'],
      message: 'contracts/ and lib/ are the bottom layer: pure code everything may import',
    }),
  ),
  layer('db', {
    banned: ['api', 'activities', 'workflows', 'worker', 'scraper', 'browser'],
    message: 'db/ is the system of record and depends only on contracts/ and lib/',
  }),
  layer('llm', {
    banned: ['api', 'activities', 'workflows', 'worker', 'db', 'scraper', 'browser'],
    message: 'llm/ is the model client: it knows models, not pages, storage or jobs',
  }),
  ...['scraper', 'browser'].map((dir) =>
    layer(dir, {
      banned: ['api', 'activities', 'workflows', 'worker', 'db'],
      message: "scraper/ and browser/ fetch and convert pages; storage is the activities' business",
    }),
  ),
  // User code runs there, in a process of its own: it knows nothing of Trawl.
  layer('sandbox', {
    banned: ['api', 'activities', 'workflows', 'worker', 'db', 'scraper', 'browser', 'llm'],
    message: 'sandbox/ runs user code apart from everything else; only activities and the worker use it',
  }),
  layer('activities', {
    banned: ['api', 'workflows', 'worker'],
    message: 'Activities are built from ActivityDeps; workflows import their types, not the reverse',
  }),
  layer('api', {
    banned: ['browser', 'worker', 'sandbox'],
    typesOnly: ['activities'],
    message: 'The API starts workflows; page work runs in the worker',
  }),
  // Workflow code is replayed: it must be deterministic and free of I/O (temporal-notes.md).
  layer('workflows', {
    banned: ['worker', 'browser', 'llm', 'sandbox'],
    typesOnly: ['activities', 'db', 'api', 'scraper'],
    packages: [...NODE_BUILTINS, ...IO_PACKAGES],
    message: 'Workflow code must stay deterministic',
  }),
  {
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-globals': [
        'error',
        { name: 'setTimeout', message: 'Use sleep() from @temporalio/workflow' },
        { name: 'setInterval', message: 'Use sleep() in a loop' },
        { name: 'fetch', message: 'I/O belongs in an activity' },
        { name: 'process', message: 'Workflow code must not read the environment' },
        { name: 'performance', message: 'Use Date.now(), which Temporal makes deterministic' },
      ],
    },
  },
  // Kysely's own advice: migrations see the database as it was, so they are typed loosely.
  { files: ['db/migrations/**/*.ts'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
  // A migration sees the schema as it was: code of the app's (a tokenizer, a rule) may change after it.
  {
    files: ['db/migrations/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { patterns: [{ group: ['../*', '../**'], message: 'A migration imports only kysely and other migrations, never the app' }] },
      ],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', 'no-restricted-syntax': 'off' },
  },
);
