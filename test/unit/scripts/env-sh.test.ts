/**
 * scripts/env.sh and parseConfig derive the same addresses from the same ports and settings file (issue 33 §1): the
 * scripts start the services and the worker with one, every ragtime process reads the other. Each case runs
 * `source scripts/env.sh` in bash (a few milliseconds) with a data dir of its own and compares what it exports with
 * parseConfig's view of the same environment and file.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseConfig } from '../../../core/config';
import { nodeConfigFiles } from '../../../runtime/load-config';
import { REPO_ROOT } from '../../support/services';

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ragtime-env-sh-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const NAMES = ['TEMPORAL_ADDRESS', 'MILVUS_ADDRESS', 'EMBEDDING_BASE_URL', 'RAGTIME_CODEC_PORT', 'RAGTIME_API_PORT', 'TEMPORAL_UI_PORT'] as const;

/** What scripts/env.sh exports for these variables (and nothing else of the caller's environment). */
function envSh(env: Record<string, string>): Record<string, string> {
  const script = `source scripts/env.sh && for n in ${NAMES.join(' ')}; do printf '%s=%s\\n' "$n" "\${!n}"; done`;
  const out = execFileSync('bash', ['-c', script], { cwd: REPO_ROOT, env: { PATH: process.env.PATH, RAGTIME_DATA_DIR: dataDir, ...env }, encoding: 'utf8' });
  return Object.fromEntries(out.trim().split('\n').map((line) => line.split(/=(.*)/s).slice(0, 2) as [string, string]));
}

/** The same variables as parseConfig resolves them (with file access, as every process reads its configuration). */
function app(env: Record<string, string>): Record<string, string> {
  const config = parseConfig({ RAGTIME_DATA_DIR: dataDir, ...env }, nodeConfigFiles);
  return {
    TEMPORAL_ADDRESS: config.temporal.address,
    MILVUS_ADDRESS: config.milvus.address,
    EMBEDDING_BASE_URL: config.embeddings.baseUrl,
    RAGTIME_CODEC_PORT: String(config.codecServer.port),
    RAGTIME_API_PORT: String(config.api.port),
    TEMPORAL_UI_PORT: new URL(config.temporal.uiUrl ?? '').port,
  };
}

const MOVED_FILE = 'TEMPORAL_PORT=17233\nTEMPORAL_UI_PORT=18233\nMILVUS_PORT=29530\nEMBEDDINGS_PORT=18765\nCODEC_PORT=18234\nRAGTIME_API_PORT=18280\n';

test.each([
  ['no settings file, nothing set: the defaults', null, {}],
  ['no settings file, every port exported', null, { TEMPORAL_PORT: '17233', TEMPORAL_UI_PORT: '18233', MILVUS_PORT: '29530', EMBEDDINGS_PORT: '18765', CODEC_PORT: '18234', RAGTIME_API_PORT: '18280' }],
  ['the file of a demo on moved ports, a fresh shell', MOVED_FILE, {}],
  ['that file, and a shell that exported two other ports', MOVED_FILE, { TEMPORAL_PORT: '7233', EMBEDDINGS_PORT: '8765' }],
  ['that file, and addresses set outright', MOVED_FILE, { TEMPORAL_ADDRESS: '10.0.0.1:7233', EMBEDDING_BASE_URL: 'http://e:1/v1' }],
])('%s: scripts/env.sh and parseConfig agree', (_what, file, env) => {
  if (file === null) rmSync(path.join(dataDir, 'settings.env'), { force: true });
  else writeFileSync(path.join(dataDir, 'settings.env'), file);
  const fromScript = envSh(env);
  expect(fromScript).toEqual(app(env));
  // And what the scripts use is what the case says (so the agreement is not two identical mistakes).
  if (file !== null && Object.keys(env).length === 0) expect(fromScript.TEMPORAL_ADDRESS).toBe('127.0.0.1:17233');
});
