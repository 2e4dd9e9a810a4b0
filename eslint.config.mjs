// Rooms and fences (STYLE.md): each folder may import only what its room allows.
import tseslint from 'typescript-eslint';

const NODE_BUILTINS = [
  'assert', 'buffer', 'child_process', 'cluster', 'crypto', 'dgram', 'dns', 'events', 'fs', 'fs/promises', 'http',
  'http2', 'https', 'net', 'os', 'path', 'perf_hooks', 'process', 'readline', 'stream', 'timers', 'tls', 'url',
  'util', 'v8', 'vm', 'worker_threads', 'zlib',
];
const builtinPatterns = [{ group: ['node:*'], message: 'Node builtins are I/O; they belong in activities/ or workers/.' }];
const builtinPaths = NODE_BUILTINS.map((name) => ({ name, message: 'Node builtins are I/O; they belong in activities/ or workers/.' }));

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
          { group: ['@temporalio/*', 'openai', '@zilliz/*', '../workflows/*', '../activities/*', '../workers/*', '../client/*', '../../workflows/*', '../../activities/*', '../../workers/*', '../../client/*'],
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
          { group: ['openai', '@zilliz/*', '../workers/*', '../client/*'], message: 'workflows/ import core/, messages and activity types only.' },
          { group: ['../activities', '../activities/*'], allowTypeImports: true, message: 'workflows/ import activity types only.' },
        ],
      }],
    },
  },
  {
    files: ['activities/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{ group: ['../workflows', '../workflows/*', '@temporalio/workflow'], message: 'activities/ never import workflows/.' }],
      }],
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'activities/ receive config through their deps.' }],
    },
  },
);
