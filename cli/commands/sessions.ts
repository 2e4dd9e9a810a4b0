import type { Command } from 'commander';
import { createSessionEraser, type SessionErasure } from '../../client/erase-session';
import { RagError } from '../../core/errors';
import type { CliContext } from '../context';

/** The lines of what an erasure removed from Temporal and the session stores (a session's, or a tenant's sessions'). */
export function erasureLines(erasure: Omit<SessionErasure, 'sessionId'>): string[] {
  const cancelled = erasure.cancelledRuns.length === 0 ? 'none' : `${erasure.cancelledRuns.length} (${erasure.cancelledRuns.join(', ')})`;
  return [
    `  open runs cancelled first:         ${cancelled}`,
    `  Temporal runs deleted:             ${erasure.temporalRuns} (history and visibility, sub-questions included)`,
    ...(erasure.temporalPending.length > 0 ? [`  Temporal runs still being deleted: ${erasure.temporalPending.join(', ')} (accepted; run this again to check)`] : []),
    `  session turns:                     ${erasure.sessionTurns}`,
    `  audit rows:                        ${erasure.auditInvocations} tool invocations, ${erasure.auditEvents} events`,
    `  answer-stream events:              ${erasure.answerStreamEvents}`,
  ];
}

/** One erasure, store by store (issue 35 §2). */
export function renderErasure(erasure: SessionErasure): string {
  return [`erased session ${JSON.stringify(erasure.sessionId)}:`, ...erasureLines(erasure)].join('\n');
}

/** `ragtime sessions rm`: erasure from every store that keeps a session (docs/OPERATIONS.md; `tenant purge` is tenant.ts). */
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
}
