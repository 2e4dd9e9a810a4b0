import fc from 'fast-check';
import { runRagtimeInProcess } from '../support/cli-run';

/*
 * Fuzz of the CLI's input (issue 14, the chaos suite): generated questions, answers, session ids and flags, seeded,
 * through the command's code in this process (runRagtimeInProcess; a subprocess per invocation cost 3 s each here,
 * issue 31: the exit statuses of a real process are checked in test/e2e/cli.test.ts). Each argument first goes
 * through what argv does to it (UTF-8: a lone surrogate arrives as U+FFFD). Temporal is pointed at a closed port,
 * so nothing runs: input the CLI refuses exits 2, input it accepts gets as far as connecting and exits 4. Never
 * another code, never a stack trace, always a first line naming the problem.
 */

const SEED = 20261201;
const RUNS = 30;
const UNREACHABLE = { ...process.env, TEMPORAL_ADDRESS: '127.0.0.1:1', MODEL_PROVIDER: 'offline' };

// argv cannot carry NUL (no shell can pass one); everything else can, lone surrogates included (sent as U+FFFD).
const text = fc
  .oneof(
    fc.string({ unit: 'binary', maxLength: 30 }),
    fc.string({ unit: 'grapheme', maxLength: 30 }),
    fc.constantFrom('', '   ', '\u200b', '\u0007bell', '--json', '-h', '丹瑾是什么属性？', '$(rm -rf /)', 'a'.repeat(2100)),
  )
  .map((value) => value.replace(/\0/g, ''));

const invocation = fc.oneof(
  fc.tuple(text, fc.option(text, { nil: undefined })).map(([question, session]) => ['ask', question, ...(session === undefined ? [] : ['--session', session])]),
  fc.tuple(text, text).map(([id, answer]) => ['answer', id, answer]),
  fc.tuple(text, text).map(([status, limit]) => ['runs', '--status', status, '--limit', limit]),
  fc.tuple(text).map(([kb]) => ['ask', '丹瑾是什么属性？', '--kb', kb]),
);

/** What a process receives in argv for `value`: its UTF-8 bytes, decoded (lone surrogates become U+FFFD). */
const throughArgv = (value: string) => Buffer.from(value, 'utf8').toString('utf8');

test(`${RUNS} generated invocations (seed ${SEED}): exit 2 (refused) or 4 (accepted, Temporal unreachable), no stack`, async () => {
  const codes = new Map<number, number>();
  await fc.assert(
    fc.asyncProperty(invocation, async (args) => {
      const run = await runRagtimeInProcess(args.map(throughArgv), UNREACHABLE);
      codes.set(run.code ?? -1, (codes.get(run.code ?? -1) ?? 0) + 1);
      // `-h` and the like print help and exit 0; anything else is refused or fails to connect.
      if (run.code === 0) return expect(run.stdout).toMatch(/Usage: ragtime/);
      expect([2, 4]).toContain(run.code);
      // One line naming the problem; a usage error (commander's "error: …") is followed by the command's help.
      const lines = run.stderr.trim().split('\n');
      expect(lines[0]).toMatch(/^(ragtime: [A-Z_]+: |error: )/);
      if (lines[0]?.startsWith('ragtime: ')) expect(lines).toHaveLength(1);
      expect(run.stderr).not.toMatch(/\n\s+at /);
    }),
    { seed: SEED, numRuns: RUNS },
  );
  console.log(`cli fuzz: exit codes ${JSON.stringify(Object.fromEntries(codes))}`);
  expect(codes.get(2) ?? 0).toBeGreaterThan(0);
  expect(codes.get(4) ?? 0).toBeGreaterThan(0);
}, 300_000);
