/**
 * End to end from a fresh clone (issue 24 §4): the README's commands, run from a copy of this checkout in a
 * temporary folder, as someone who has just cloned it and run `make setup`. `ragtime services` once ran
 * `<parent of the repository>/scripts/services.sh` (it counted one `..` too many after the CLI moved into cli/), and
 * nothing ran the command to notice; here `npx ragtime services status` must find the clone's own script. The CLI's
 * default data dir was ./.data of wherever it ran; here a command run in a subfolder must use the clone's .data/.
 *
 * The copy: test/support/working-tree-copy.ts (what a commit of this working tree would hold). node_modules/ and
 * .venv/ are symlinks to this checkout's: a fresh clone gets them from `make setup`
 * (npm ci, pip), which takes minutes, too long for a test, and would install the same pinned versions.
 *
 * `services status` needs the services up (`make test` starts them; `make up` otherwise): when they are not, the
 * file fails in beforeAll naming the service, and nothing is skipped. The clone reads the pid files of the data dir
 * they were started with (RAGTIME_DATA_DIR, test/support/services.ts): a fresh clone that ran `make demo` would have
 * its own in its .data/.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { REPO_ROOT, servicesScriptEnvironment } from '../support/services';
import { copyWorkingTree, run, shown, type Run } from '../support/working-tree-copy';
import { assertServicesReachable } from '../support/worker-process';

jest.setTimeout(60_000);

const work = mkdtempSync(path.join(os.tmpdir(), 'ragtime-fresh-clone-'));
const CLONE = path.join(work, 'ragtime');

/**
 * The environment of a command in the clone. Without npm's own variables: `npx jest` exports
 * npm_config_local_prefix=<this checkout>, and an `npx` that inherits it runs this checkout's `ragtime`, not the
 * clone's. npx keeps its cache (where it links the project's own bin) in the temporary folder, and works offline: a
 * fresh clone's `npx ragtime` must resolve the local package, never fetch one.
 */
const cloneEnv: NodeJS.ProcessEnv = {
  ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name))),
  ...servicesScriptEnvironment(),
  npm_config_cache: path.join(work, 'npm-cache'),
  npm_config_offline: 'true',
  npm_config_update_notifier: 'false',
};

const npxRagtime = (args: string[]) => run('npx', ['ragtime', ...args], { cwd: CLONE, env: cloneEnv });

/** The `Commands:` section of a commander help text: each command's name, without `help`. */
function commandsOf(help: string): string[] {
  const section = /\nCommands:\n([\s\S]*?)(?:\n\n|$)/.exec(help)?.[1] ?? '';
  return [...section.matchAll(/^ {2}([a-z][\w-]*)/gm)].map((match) => match[1] as string).filter((name) => name !== 'help');
}

/**
 * `ragtime <args> --help` for each of `commands`, from the clone, in one node process that does what the clone's
 * bin/ragtime.js does (tsx's hooks, then bin/main.ts's run(argv)) once per command: a ragtime process spends about a
 * second loading the CLI, and thirty of them (through npx, two seconds each) would take the minute this file must
 * stay well under on a two-core machine. `npx ragtime --help` itself goes through npx, above.
 */
async function helpTexts(commands: string[][]): Promise<{ args: string[]; code: number; stdout: string }[]> {
  const driver = `
    require('tsx/cjs');
    const { run } = require('./bin/main.ts');
    (async () => {
      const results = [];
      for (const args of JSON.parse(process.argv[1])) {
        const write = process.stdout.write;
        let stdout = '';
        process.stdout.write = (chunk) => ((stdout += String(chunk)), true);
        try {
          results.push({ args, code: await run([process.execPath, 'ragtime', ...args, '--help']), stdout });
        } finally {
          process.stdout.write = write;
        }
      }
      process.stdout.write(JSON.stringify(results));
    })();`;
  const result = await run(process.execPath, ['-e', driver, JSON.stringify(commands)], { cwd: CLONE, env: cloneEnv });
  try {
    return JSON.parse(result.stdout) as { args: string[]; code: number; stdout: string }[];
  } catch {
    throw new Error(shown('ragtime <command> --help', result));
  }
}

const README = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
const CODE_BLOCKS = [...README.matchAll(/```[^\n]*\n([\s\S]*?)```/g)].map((match) => match[1] as string);

beforeAll(async () => {
  await assertServicesReachable();
  for (const dir of ['node_modules', '.venv']) {
    if (!existsSync(path.join(REPO_ROOT, dir))) throw new Error(`${dir}/ is missing from ${REPO_ROOT}: run \`make setup\` first`);
  }
  const copied = await copyWorkingTree(CLONE);
  expect(copied).toBeGreaterThan(100);
  symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(CLONE, 'node_modules'));
  symlinkSync(path.join(REPO_ROOT, '.venv'), path.join(CLONE, '.venv'));
});

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the local services from a fresh clone', () => {
  // Format of a line (scripts/services.sh status_one): "<service> running  pid <pid> <address>".
  const running = (service: string) => new RegExp(`^${service} +running +pid \\d+ `, 'm');

  test('npx ragtime services status with its own data dir: nothing started from it, so all stopped, exit 4', async () => {
    // Only the clone's scripts/services.sh looks in <clone>/.data for pid files; this checkout's would find its own.
    const { RAGTIME_DATA_DIR: _servicesDataDir, ...env } = cloneEnv;
    const result = await run('npx', ['ragtime', 'services', 'status'], { cwd: CLONE, env });
    expect(result.code).toBe(4); // scripts/services.sh: 3, "not running"; ragtime's 4, "a service is not reachable"
    for (const service of ['temporal', 'milvus', 'embeddings']) expect(result.stdout).toMatch(new RegExp(`^${service} +stopped `, 'm'));
  });

  test('npx ragtime services status: exit 0, each of the three services running', async () => {
    const result = await npxRagtime(['services', 'status']);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    for (const service of ['temporal', 'milvus', 'embeddings']) expect(result.stdout).toMatch(running(service));
  });

  test('scripts/services.sh status, run as the README runs it (its own executable bit)', async () => {
    const result = await run('scripts/services.sh', ['status'], { cwd: CLONE, env: cloneEnv });
    expect(result.code).toBe(0);
    for (const service of ['temporal', 'milvus', 'embeddings']) expect(result.stdout).toMatch(running(service));
  });
});

describe('the clone\'s data dir from a subfolder', () => {
  test('npx ragtime codec-keys generate in samples/ writes <clone>/.data/codec-keys.json, not samples/.data/', async () => {
    // RAGTIME_DATA_DIR unset, as in a fresh shell: the data dir is the checkout's .data/ (cli/data-dir.ts), where
    // `make demo` and the services keep theirs, wherever the command runs.
    const { RAGTIME_DATA_DIR: _dataDir, RAGTIME_CODEC_KEY_FILE: _keyFile, RAGTIME_CODEC_KEYS: _keys, ...env } = cloneEnv;
    const result = await run('npx', ['ragtime', 'codec-keys', 'generate'], { cwd: path.join(CLONE, 'samples'), env });
    expect(result.code).toBe(0);
    expect(existsSync(path.join(CLONE, '.data', 'codec-keys.json'))).toBe(true);
    expect(existsSync(path.join(CLONE, 'samples', '.data'))).toBe(false);
  });
});

describe('ragtime --help from a fresh clone', () => {
  let topHelp: Run;

  beforeAll(async () => {
    topHelp = await npxRagtime(['--help']);
  });

  test('npx ragtime --help exits 0 and lists the commands', () => {
    expect(topHelp.code).toBe(0);
    expect(topHelp.stdout).toContain('ragtime — a durable, observable agentic-RAG engine');
    expect(commandsOf(topHelp.stdout)).toEqual(expect.arrayContaining(['services', 'ask', 'answer', 'trace', 'worker', 'eval', 'ingest']));
  });

  test('every command and subcommand: ragtime <command> [<subcommand>] --help exits 0', async () => {
    const commands = commandsOf(topHelp.stdout).map((name) => [name]);
    const helps = await helpTexts(commands);
    const nested = helps.flatMap(({ args, stdout }) => commandsOf(stdout).map((sub) => [...args, sub]));
    expect(nested).toEqual(expect.arrayContaining([['kb', 'list'], ['docs', 'rm'], ['codec-keys', 'generate'], ['token', 'new']]));
    const all = [...helps, ...(await helpTexts(nested))];
    const failed = all.filter(({ args, code, stdout }) => code !== 0 || !stdout.startsWith(`Usage: ragtime ${args.join(' ')} `));
    expect(failed).toEqual([]);
  });

  test('every `npx ragtime <command>` of the README is a command that --help lists', () => {
    const named = new Set(CODE_BLOCKS.flatMap((block) => [...block.matchAll(/^npx ragtime ([a-z][\w-]*)/gm)].map((match) => match[1] as string)));
    expect([...named]).toEqual(expect.arrayContaining(['ask', 'ingest', 'eval', 'services']));
    expect([...named].filter((name) => !commandsOf(topHelp.stdout).includes(name))).toEqual([]);
  });
});

describe('what the README names exists in a fresh clone', () => {
  /** The user's own documents in the `ingest` example, and what a run writes (.data/): not part of a clone. */
  const notInAClone = (file: string) => file === 'my-docs/' || file.startsWith('.data/');

  test('each relative path of its command examples and each link', () => {
    const inCode = CODE_BLOCKS.flatMap((block) => [...block.matchAll(/[\w.-]+(?:\/[\w.-]*)+/g)].map((match) => match[0].replace(/\.+$/, '')));
    const links = [...README.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1] as string).filter((link) => !/^(\w+:|#)/.test(link));
    const named = [...new Set([...inCode, ...links])].filter((file) => !notInAClone(file));
    expect(named).toEqual(expect.arrayContaining(['samples/knowledge', 'samples/golden/products', 'scripts/services.sh', 'docs/demo.md', 'cli/README.md']));
    expect(named.filter((file) => !existsSync(path.join(CLONE, file.replace(/#.*$/, ''))))).toEqual([]);
  });

  test('each link to a heading (file.md#anchor) names a heading of that file', () => {
    const anchored = [...README.matchAll(/\]\(([^)\s#:]+\.md)#([^)\s]+)\)/g)].map((match) => ({ file: match[1] as string, anchor: match[2] as string }));
    expect(anchored.length).toBeGreaterThan(0);
    // GitHub's heading ids: lower case, punctuation dropped (hyphens kept), spaces as hyphens.
    const slug = (heading: string) => heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    for (const { file, anchor } of anchored) {
      const headings = [...readFileSync(path.join(CLONE, file), 'utf8').matchAll(/^#{1,6} (.+)$/gm)].map((match) => slug(match[1] as string));
      expect({ file, anchor, found: headings.includes(anchor) }).toEqual({ file, anchor, found: true });
    }
  });

  test('each `make <target>` it names is a target of the Makefile (make -n)', async () => {
    const targets = [...new Set([...README.matchAll(/\bmake ([a-z][\w-]*)/g)].map((match) => match[1] as string))];
    expect(targets).toEqual(expect.arrayContaining(['demo', 'test', 'down']));
    const results = await Promise.all(targets.map(async (target) => ({ target, result: await run('make', ['-n', target], { cwd: CLONE, env: cloneEnv }) })));
    expect(results.filter(({ result }) => result.code !== 0).map(({ target, result }) => shown(`make -n ${target}`, result))).toEqual([]);
  });
});
