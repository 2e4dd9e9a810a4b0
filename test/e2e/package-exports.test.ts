/**
 * The SDK as an app meets it (issue 10): a scratch project installs the repository as a dependency
 * (`npm install <repo>`, offline: a local path) and imports `ragtime/client` and `ragtime/config` through the
 * package's `exports`, run with tsx and type-checked by tsc with Node16 resolution (the one that reads `exports`).
 * Importing the SDK reads none of ragtime's environment: only Node's and gRPC's own variables are looked at.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { REPO_ROOT } from '../support/services';

jest.setTimeout(120_000);

const TSX = path.join(REPO_ROOT, 'node_modules', '.bin', 'tsx');
const TSC = path.join(REPO_ROOT, 'node_modules', '.bin', 'tsc');

function run(command: string, args: string[], cwd: string): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd, timeout: 100_000, env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false' } }, (error, stdout, stderr) =>
      error ? reject(new Error(`${command} ${args.join(' ')} failed: ${error.message}\n${stdout}\n${stderr}`)) : resolve({ stdout, stderr }),
    );
  });
}

const APP = `import { RagClient, RagError, newRagWorkflowId, type RagOutcome } from 'ragtime/client';
import { loadConfig } from 'ragtime/config';

async function main(): Promise<void> {
  const config = loadConfig({ TEMPORAL_ADDRESS: '127.0.0.1:1' });
  const facts: Record<string, unknown> = { workflowId: newRagWorkflowId('app-1').startsWith('rag-app-1-'), address: config.temporal.address };
  try {
    await RagClient.connect({ address: config.temporal.address, connection: { connectTimeout: '1s' } });
  } catch (error) {
    const nothing: RagOutcome | null = null;
    facts.error = error instanceof RagError ? error.code : String(error);
    facts.outcome = nothing;
  }
  console.log(JSON.stringify(facts));
}
void main();
`;

const PROBE = `const reads: string[] = [];
const real = process.env;
process.env = new Proxy(real, { get(target, key) { if (typeof key === 'string') reads.push(key); return Reflect.get(target, key); } });
// eslint-disable-next-line @typescript-eslint/no-require-imports
const client = require('ragtime/client');
process.env = real;
console.log(JSON.stringify({ exports: Object.keys(client).sort(), reads: [...new Set(reads)] }));
`;

describe('ragtime/client from a project that installs the repository', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ragtime-app-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  beforeAll(async () => {
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'scratch-app', version: '1.0.0', private: true }));
    writeFileSync(path.join(dir, 'app.ts'), APP);
    writeFileSync(path.join(dir, 'probe.ts'), PROBE);
    writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'node16', moduleResolution: 'node16', strict: true, skipLibCheck: true, noEmit: true }, files: ['app.ts'] }),
    );
    await run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--loglevel=error', REPO_ROOT], dir);
  });

  test('imports RagClient and loadConfig through the package exports and gets typed errors', async () => {
    const { stdout } = await run(TSX, ['app.ts'], dir);
    expect(JSON.parse(stdout.trim())).toEqual({ workflowId: true, address: '127.0.0.1:1', error: 'SERVICE_UNAVAILABLE', outcome: null });
  });

  test('type-checks with Node16 module resolution (the one that reads exports)', async () => {
    await expect(run(TSC, ['-p', '.'], dir)).resolves.toBeDefined();
  });

  test('exports the public list only, and importing it reads none of ragtime\'s environment', async () => {
    const { stdout } = await run(TSX, ['probe.ts'], dir);
    const { exports, reads } = JSON.parse(stdout.trim()) as { exports: string[]; reads: string[] };
    expect(exports).toEqual(['RagClient', 'RagError', 'RagErrorCode', 'assertWorkerPolling', 'compareRuns', 'newRagWorkflowId', 'newSessionId', 'ragtimeDataConverter', 'routePathOf']);
    // Node (NODE_*, e.g. NODE_V8_COVERAGE) and gRPC (GRPC_*, read by @grpc/grpc-js when the Temporal SDK loads it).
    expect(reads.filter((name) => !/^(NODE|GRPC)_/.test(name))).toEqual([]);
  });
});
