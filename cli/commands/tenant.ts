import { createInterface } from 'node:readline/promises';
import type { Command } from 'commander';
import { createTenantEraser, runsInFlightRefusal, type TenantErasure, type TenantInventory, type TenantKnowledgeBase } from '../../client/erase-tenant';
import { RagError, describeZodError } from '../../core/errors';
import { tenantKnowledgeBases } from '../../core/knowledge/tenant-knowledge-bases';
import { TenantName } from '../../core/schemas/api-tokens';
import type { CliContext } from '../context';
import { erasureLines } from './sessions';

/*
 * `ragtime tenant purge|readmit` (issue 45 §2): a tenant erased from every store — sessions with their Temporal runs,
 * turns, audit and diagnosis rows and streamed answers, its own knowledge bases, its session owners — and its tokens
 * refused. The erasure itself is client/erase-tenant.ts; this file asks, prints and parses flags.
 */

const plural = (count: number, noun: string, nouns = `${noun}s`) => `${count} ${count === 1 ? noun : nouns}`;

async function confirmed(question: string): Promise<boolean> {
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await prompt.question(`${question} [y/N] `)).trim());
  } finally {
    prompt.close();
  }
}

function kbLines(label: string, kbs: TenantKnowledgeBase[], shared: TenantInventory['sharedKnowledgeBases']): string[] {
  const own = kbs.length === 0 ? 'none' : kbs.map((kb) => `${kb.kb} (${plural(kb.documents, 'document')}, ${plural(kb.parents, 'parent chunk')}, ${plural(kb.leaves, 'leaf', 'leaves')} in Milvus)`).join('; ');
  return [
    `  ${`${label}:`.padEnd(35)}${own}`,
    ...(shared.length === 0 ? [] : [`  knowledge bases kept (shared):     ${shared.map((kb) => `${kb.kb} (with ${kb.with.join(', ')})`).join('; ')}`]),
  ];
}

/** What a purge would erase (`--dry-run`, and the question before a purge). */
export function renderTenantInventory(inventory: TenantInventory): string {
  const inFlight = inventory.runsInFlight.length === 0 ? '' : `; in flight: ${inventory.runsInFlight.join(', ')}`;
  return [
    `tenant ${JSON.stringify(inventory.tenant)}${inventory.alreadyPurged ? ' (purged before: its tokens are refused already)' : ''}:`,
    `  sessions:                          ${inventory.sessions.length}`,
    `  Temporal runs:                     ${inventory.temporalRuns} (history and visibility, sub-questions included)${inFlight}`,
    `  session turns:                     ${inventory.sessionTurns}`,
    `  audit rows:                        ${inventory.auditInvocations} tool invocations, ${inventory.auditEvents} events`,
    `  answer-stream events:              ${inventory.answerStreamEvents}`,
    ...kbLines('knowledge bases of its own', inventory.knowledgeBases, inventory.sharedKnowledgeBases),
    `  tokens:                            ${inventory.tokens} in this configuration; from the purge on, every server reading this database refuses all the tenant's tokens`,
    `  session owner rows:                ${inventory.sessionOwners}`,
  ].join('\n');
}

/** What a purge erased. */
export function renderTenantErasure(erasure: TenantErasure): string {
  return [
    `erased tenant ${JSON.stringify(erasure.tenant)}:`,
    `  sessions:                          ${erasure.sessions}`,
    ...erasureLines(erasure),
    ...kbLines('knowledge bases dropped', erasure.knowledgeBases, erasure.sharedKnowledgeBases),
    `  tokens refused:                    ${erasure.tokens} in this configuration, and any other of the tenant's (remove them from RAGTIME_API_TOKENS; \`ragtime tenant readmit\` accepts them again)`,
    `  session owner rows:                ${erasure.sessionOwners}`,
  ].join('\n');
}

function tenantOf(given: string): string {
  const name = TenantName.safeParse(given);
  if (!name.success) throw new RagError('INVALID_INPUT', describeZodError('invalid tenant', name.error));
  return name.data;
}

export function registerTenantCommands(program: Command, context: CliContext): void {
  const withEraser = async <T>(work: (eraser: ReturnType<typeof createTenantEraser>, stores: ReturnType<CliContext['host']['openTenantStores']>) => Promise<T>): Promise<T> => {
    const rag = await context.client();
    const stores = context.host.openTenantStores(context.config);
    const { tokens } = context.config.api;
    try {
      return await work(
        createTenantEraser({
          temporal: rag.temporal,
          ...stores,
          knowledgeBasesOf: (tenant) => tenantKnowledgeBases(tokens, tenant, context.config.milvus.collection),
          tokensOf: (tenant) => tokens.filter((token) => token.tenant === tenant).length,
        }),
        stores,
      );
    } finally {
      await stores.close();
    }
  };

  const tenant = program.command('tenant').description('tenants of the HTTP API');
  tenant
    .command('purge')
    .description(
      'erase a tenant from every store: its sessions (Temporal histories and visibility, turns, audit and diagnosis rows, streamed answers), ' +
        'the knowledge bases only its tokens list (collection, parents, documents) and its session owners; its tokens are refused from then on. Shows the counts and asks first',
    )
    .argument('<tenant>')
    .option('--dry-run', 'show what would be erased, and erase nothing')
    .option('--cancel-runs', 'cancel the runs it has in flight (and wait for them to close) instead of refusing')
    .option('--yes', 'do not ask (for scripts)')
    .option('--json', 'print the counts as JSON')
    .action(async (given: string, flags: { dryRun?: boolean; cancelRuns?: boolean; yes?: boolean; json?: boolean }) => {
      const name = tenantOf(given);
      await withEraser(async (eraser) => {
        const inventory = await eraser.inventory(name);
        if (flags.dryRun) {
          console.log(flags.json ? JSON.stringify(inventory, null, 2) : `${renderTenantInventory(inventory)}\n(dry run: nothing was erased)`);
          return;
        }
        const what = `${plural(inventory.sessions.length, 'session')}, ${plural(inventory.temporalRuns, 'run')} and ${plural(inventory.knowledgeBases.length, 'knowledge base')} of its own`;
        if (!flags.yes && !process.stdin.isTTY) throw new RagError('INVALID_INPUT', `tenant ${JSON.stringify(name)} has ${what}; nothing was erased: pass --yes to erase it without a prompt (--dry-run shows the counts)`);
        if (inventory.runsInFlight.length > 0 && !flags.cancelRuns) throw runsInFlightRefusal(name, inventory.runsInFlight);
        if (!flags.yes) {
          console.error(renderTenantInventory(inventory));
          if (!(await confirmed(`erase all of tenant ${JSON.stringify(name)} (${what}) and refuse its tokens?`))) {
            console.error('nothing was erased');
            return;
          }
        }
        const erasure = await eraser.erase(name, { cancelRuns: flags.cancelRuns === true });
        console.log(flags.json ? JSON.stringify(erasure, null, 2) : renderTenantErasure(erasure));
      });
    });
  tenant
    .command('readmit')
    .description("accept a purged tenant's tokens again (its erased data stays erased); rotate its tokens first if the old ones may have leaked")
    .argument('<tenant>')
    .action(async (given: string) => {
      const name = tenantOf(given);
      const stores = context.host.openTenantStores(context.config);
      try {
        const readmitted = await stores.readmit(name);
        console.log(readmitted ? `tenant ${JSON.stringify(name)} readmitted: servers reading this database accept its tokens again` : `tenant ${JSON.stringify(name)} was not purged; nothing changed`);
      } finally {
        await stores.close();
      }
    });
}
