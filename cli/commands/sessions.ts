import { createInterface } from 'node:readline/promises';
import type { Command } from 'commander';
import { createSessionEraser, type SessionErasure } from '../../client/erase-session';
import { RagError, describeZodError } from '../../core/errors';
import { TenantName } from '../../core/schemas/api-tokens';
import type { CliContext } from '../context';

/** One erasure, store by store (issue 35 §2). */
export function renderErasure(erasure: SessionErasure): string {
  const cancelled = erasure.cancelledRuns.length === 0 ? 'none' : `${erasure.cancelledRuns.length} (${erasure.cancelledRuns.join(', ')})`;
  return [
    `erased session ${JSON.stringify(erasure.sessionId)}:`,
    `  open runs cancelled first:         ${cancelled}`,
    `  Temporal runs deleted:             ${erasure.temporalRuns} (history and visibility, sub-questions included)`,
    ...(erasure.temporalPending.length > 0 ? [`  Temporal runs still being deleted: ${erasure.temporalPending.join(', ')} (accepted; run this again to check)`] : []),
    `  session turns:                     ${erasure.sessionTurns}`,
    `  audit rows:                        ${erasure.auditInvocations} tool invocations, ${erasure.auditEvents} events`,
    `  answer-stream events:              ${erasure.answerStreamEvents}`,
  ].join('\n');
}

async function confirmed(question: string): Promise<boolean> {
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await prompt.question(`${question} [y/N] `)).trim());
  } finally {
    prompt.close();
  }
}

/** `ragtime sessions rm` and `ragtime tenant purge`: erasure from every store that keeps a session (docs/OPERATIONS.md). */
export function registerSessionCommands(program: Command, context: CliContext): void {
  const withEraser = async <T>(work: (eraser: ReturnType<typeof createSessionEraser>, stores: ReturnType<CliContext['host']['openSessionStores']>) => Promise<T>): Promise<T> => {
    const rag = await context.client();
    const stores = context.host.openSessionStores(context.config);
    try {
      return await work(createSessionEraser({ temporal: rag.temporal, ...stores }), stores);
    } finally {
      await stores.close();
    }
  };

  program
    .command('sessions')
    .description('conversations kept by ragtime')
    .command('rm')
    .description("erase a session from every store: its runs (cancelled first when open) with their Temporal histories, turns, audit rows and streamed answers; every tenant's under that id")
    .argument('<sessionId>')
    .option('--json', 'print what was erased as JSON')
    .action(async (sessionId: string, flags: { json?: boolean }) => {
      if (sessionId.trim() === '') throw new RagError('INVALID_INPUT', 'the session id is empty');
      const erasure = await withEraser((eraser) => eraser.erase(sessionId, null));
      console.log(flags.json ? JSON.stringify(erasure, null, 2) : renderErasure(erasure));
    });

  program
    .command('tenant')
    .description('tenants of the HTTP API')
    .command('purge')
    .description("erase every session of a tenant from every store, as `sessions rm` does; asks first")
    .argument('<tenant>')
    .option('--yes', 'do not ask (for scripts)')
    .option('--json', 'print what was erased as JSON')
    .action(async (tenant: string, flags: { yes?: boolean; json?: boolean }) => {
      const name = TenantName.safeParse(tenant);
      if (!name.success) throw new RagError('INVALID_INPUT', describeZodError('invalid tenant', name.error));
      await withEraser(async (eraser, stores) => {
        const sessions = await stores.sessionsOf(name.data);
        if (sessions.length > 0 && !flags.yes) {
          if (!process.stdin.isTTY) throw new RagError('INVALID_INPUT', `tenant ${JSON.stringify(name.data)} has ${sessions.length} sessions; nothing was erased: pass --yes to erase them without a prompt`);
          if (!(await confirmed(`erase ${sessions.length} sessions of tenant ${JSON.stringify(name.data)} from every store?`))) {
            console.error('nothing was erased');
            return;
          }
        }
        const erasures: SessionErasure[] = [];
        for (const sessionId of sessions) erasures.push(await eraser.erase(sessionId, name.data));
        if (flags.json) console.log(JSON.stringify({ tenant: name.data, sessions: erasures }, null, 2));
        else console.log([`tenant ${JSON.stringify(name.data)}: ${sessions.length} session${sessions.length === 1 ? '' : 's'} erased`, ...erasures.map(renderErasure)].join('\n'));
      });
    });
}
