// Rooms and fences (STYLE.md): each folder may import only what its room allows.
import tseslint from 'typescript-eslint';

const NODE_BUILTINS = [
  'assert', 'buffer', 'child_process', 'cluster', 'crypto', 'dgram', 'dns', 'events', 'fs', 'fs/promises', 'http',
  'http2', 'https', 'net', 'os', 'path', 'perf_hooks', 'process', 'readline', 'stream', 'timers', 'tls', 'url',
  'util', 'v8', 'vm', 'worker_threads', 'zlib',
];
const builtinPatterns = [{ group: ['node:*'], message: 'Node builtins are I/O; they belong in activities/ or workers/.' }];
const builtinPaths = NODE_BUILTINS.map((name) => ({ name, message: 'Node builtins are I/O; they belong in activities/ or workers/.' }));
// A room, as every relative path that reaches it from another room (gitignore-style patterns on the import string).
const room = (name) => [`../**/${name}`, `../**/${name}/**`];
const leaves = { group: [...room('cli'), ...room('server')], message: 'cli/ and server/ are entry rooms: only bin/, scripts/, bench/ and tests import them.' };

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', '.venv/**', '.data/**', 'coverage/**', '**/*.js', '**/*.mjs'] },
  ...tseslint.configs.recommended,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['core/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: builtinPaths,
        patterns: [
          ...builtinPatterns,
          { group: ['@temporalio/*', 'openai', '@zilliz/*', ...['workflows', 'activities', 'workers', 'client', 'cli', 'server', 'runtime'].flatMap(room)],
            message: 'core/ is pure: it imports only zod and core/.' },
        ],
      }],
      'no-restricted-globals': ['error',
        { name: 'process', message: 'core/ takes config as arguments (parseConfig(env)).' },
        { name: 'fetch', message: 'core/ does no I/O.' },
        { name: 'setTimeout', message: 'core/ has no clock.' },
      ],
      'no-restricted-properties': ['error',
        { object: 'Date', property: 'now', message: 'core/ has no clock: take time as an argument.' },
        { object: 'Math', property: 'random', message: 'core/ has no randomness.' },
      ],
      'no-restricted-syntax': ['error',
        { selector: "NewExpression[callee.name='Date']", message: 'core/ has no clock: take time as an argument.' },
      ],
    },
  },
  {
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: builtinPaths,
        patterns: [
          ...builtinPatterns,
          { group: ['openai', '@zilliz/*', ...['workers', 'client', 'cli', 'server', 'runtime'].flatMap(room)], message: 'workflows/ import core/, messages and activity types only.' },
          { group: ['../activities', '../activities/*'], allowTypeImports: true, message: 'workflows/ import activity types only.' },
        ],
      }],
    },
  },
  {
    files: ['activities/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: [...room('workflows'), '@temporalio/workflow'], message: 'activities/ never import workflows/.' },
          { group: [...room('workers'), ...room('client'), ...room('runtime')], message: 'activities/ receive what they need through their deps.' },
          leaves,
        ],
      }],
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'activities/ receive config through their deps.' }],
    },
  },
  {
    // The SDK apps import: core/, the workflows' messages and search attributes, and workflow types; nothing that
    // listens, reads the environment or talks to a store.
    files: ['client/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: [...room('activities'), ...room('workers'), ...room('runtime'), 'openai', '@zilliz/*', 'fastify', 'fastify/*', '@fastify/*'],
            message: 'client/ is the SDK: core/, workflows/messages and workflow types only.' },
          { group: ['../**/workflows/*', '!../**/workflows/messages', '!../**/workflows/search-attributes'], allowTypeImports: true,
            message: 'client/ imports workflow code as types only (messages and search attributes are values).' },
          leaves,
        ],
      }],
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'client/ reads no environment: its caller passes what it needs.' }],
    },
  },
  {
    // Process setup shared by the entry points (config from the environment and files, telemetry).
    files: ['runtime/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['workflows', 'activities', 'workers', 'client'].flatMap(room), message: 'runtime/ imports core/ only.' },
          leaves,
        ],
      }],
    },
  },
  {
    // The command: the SDK, core/, runtime/; the worker and the servers come through its host (cli/host.ts).
    files: ['cli/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: [...room('workers'), ...room('activities'), ...room('server')], message: 'cli/ reaches the worker and the servers through CliHost (cli/host.ts).' },
        ],
      }],
    },
  },
  {
    // Everything that listens: the SDK, core/, runtime/ and the SQL stores it serves from; never the command or the worker.
    files: ['server/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: [...room('workers'), ...room('cli')], message: 'server/ uses client/ and its stores, not the worker or the command.' },
        ],
      }],
    },
  },
  {
    // The web console (console/README.md): browser code that talks to server/ only over the typed HTTP API. It may
    // import types of the API's contracts (core/schemas, server/http/api-schemas), nothing that does I/O or listens.
    files: ['console/**/*.ts', 'console/**/*.tsx', 'console/**/*.mts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: builtinPaths,
        patterns: [
          ...builtinPatterns,
          { group: ['fastify', 'fastify/*', '@fastify/*', '@temporalio/*', 'openai', '@zilliz/*', 'pg', 'better-sqlite3', 'kysely'],
            message: 'console/ runs in the browser and reaches the server over HTTP only.' },
          // core/answer/citation-check-text and core/run/shown-status import types only: the CLI, MCP and the console
          // say the same words (issue 43 §4, §6).
          { regex: '^(\\.\\./)+(?!core/schemas/[\\w-]+$|server/http/api-schemas$|core/answer/citation-check-text$|core/run/shown-status$)(core|server|client|cli|workflows|activities|workers|runtime)(/|$)',
            message: 'console/ imports only the API contracts: core/schemas/* and server/http/api-schemas.' },
          // page-number imports nothing: how a chunk's page is shown is part of its contract, and the same everywhere.
          { group: ['../**/core/schemas/*', '!../**/core/schemas/page-number', '../**/server/http/api-schemas'], allowTypeImports: true,
            message: 'console/ imports the API contracts as types only (no zod or server code in the bundle).' },
        ],
      }],
    },
  },
  {
    files: ['workers/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [leaves] }],
    },
  },
);
