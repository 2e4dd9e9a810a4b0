import * as path from 'node:path';
import type { Command } from 'commander';
import { addSyncSource, pauseSyncSource, removeSyncSource, resumeSyncSource, runSyncNow } from '../../client/sync-schedule';
import { runSyncAndWait } from '../../client/sync-run';
import { listSyncSources, syncSourceStatus } from '../../client/sync-status';
import { RagError } from '../../core/errors';
import { DEFAULT_MAX_DELETE_SHARE, DEFAULT_SYNC_EVERY } from '../../core/sync/sync-io';
import type { CliContext } from '../context';
import { renderPassReport, renderProgress, renderSyncStatus } from '../render/sync-status';

/*
 * `ragtime sync add | list | status | run | pause | resume | rm` (issue 46): knowledge bases kept in step with
 * folders and git work trees by Temporal Schedules (client/sync-schedule.ts). The passes run on the workers, which
 * must see the source's path.
 */

const collect = (value: string, previous: string[] = []) => [...previous, value];

type AddFlags = { kb?: string; name?: string; every: string; include?: string[]; exclude?: string[]; branch?: string; maxDeleteShare: string; allowMassDelete?: boolean; json?: boolean };

/** The source's default name: the folder's base name, made a valid name. */
const nameOf = (folder: string) => path.basename(folder).replace(/[^A-Za-z0-9._-]/g, '-').replace(/^[^A-Za-z0-9]+/, '') || 'source';

export function registerSyncCommands(program: Command, context: CliContext): void {
  const sync = program.command('sync').description('keep knowledge bases in step with folders and git work trees (Temporal Schedules)');
  const temporal = async () => (await context.client()).temporal;
  const print = (json: boolean | undefined, value: unknown, text: string) => console.log(json ? JSON.stringify(value, null, 2) : text);

  sync
    .command('add')
    .description('sync a folder (or a git work tree at --branch) into a knowledge base every --every; the first pass starts now')
    .argument('<path>')
    .option('--kb <name>', 'knowledge base (default RAGTIME_KB)')
    .option('--name <source>', 'the source\'s name, which prefixes its document ids (default: the folder\'s name)')
    .option('--every <interval>', 'how often: 30s, 10m, 1h, 1d', DEFAULT_SYNC_EVERY)
    .option('--include <glob>', 'only files matching (repeatable; "**" crosses folders, "*.md" any folder)', collect)
    .option('--exclude <glob>', 'leave out files matching (repeatable)', collect)
    .option('--branch <branch>', 'read the git work tree at this branch\'s head commit (not the files on disk)')
    .option('--max-delete-share <share>', 'refuse a pass that would remove more than this share of the source\'s documents', String(DEFAULT_MAX_DELETE_SHARE))
    .option('--allow-mass-delete', 'let passes remove any share (a source emptied on purpose)')
    .option('--json', 'print the result as JSON')
    .action(async (folder: string, flags: AddFlags) => {
      const absolute = path.resolve(folder);
      const share = Number(flags.maxDeleteShare);
      if (!Number.isFinite(share) || share < 0 || share > 1) throw new RagError('INVALID_INPUT', `--max-delete-share ${flags.maxDeleteShare} is not a share between 0 and 1 (0.5 is 50 %)`);
      const source = flags.name ?? nameOf(absolute);
      const kb = await context.startableKbOf(flags.kb); // a knowledge base that does not exist: UNKNOWN_KB, exit 2
      const added = await addSyncSource(await temporal(), context.config.temporal.taskQueue, {
        source,
        path: absolute,
        ...(kb === undefined ? {} : { kb }),
        every: flags.every,
        include: flags.include ?? [],
        exclude: flags.exclude ?? [],
        ...(flags.branch === undefined ? {} : { branch: flags.branch }),
        maxDeleteShare: share,
        allowMassDelete: flags.allowMassDelete === true,
      });
      print(flags.json, { source, ...added }, `${added.created ? 'added' : 'updated'} source ${source}: ${absolute} every ${flags.every} (schedule ${added.scheduleId})${added.created ? '; the first pass has started — `ragtime sync status ' + source + '`' : ''}`);
    });

  sync
    .command('list')
    .description('the synced sources with their last pass')
    .option('--json', 'print as JSON')
    .action(async (flags: { json?: boolean }) => {
      const client = await temporal();
      const statuses = await Promise.all((await listSyncSources(client)).map((source) => syncSourceStatus(client, source)));
      print(flags.json, statuses, statuses.length === 0 ? 'no synced sources; add one with `ragtime sync add <path> --kb <name>`' : statuses.map(renderSyncStatus).join('\n\n'));
    });

  sync
    .command('status')
    .description('a source\'s settings, schedule, running pass (progress) and last pass report')
    .argument('<source>')
    .option('--json', 'print as JSON')
    .action(async (source: string, flags: { json?: boolean }) => {
      const status = await syncSourceStatus(await temporal(), source).catch((error: unknown) => {
        if ((error as { name?: string }).name === 'ScheduleNotFoundError') throw new RagError('UNKNOWN_RUN', `no synced source ${JSON.stringify(source)}; \`ragtime sync list\` lists them`, { cause: error });
        throw error;
      });
      print(flags.json, status, renderSyncStatus(status));
    });

  const simple = (name: string, description: string, run: (client: Awaited<ReturnType<typeof temporal>>, source: string) => Promise<void>, done: string) =>
    sync
      .command(name)
      .description(description)
      .argument('<source>')
      .action(async (source: string) => {
        await run(await temporal(), source);
        console.log(`${source}: ${done}`);
      });
  sync
    .command('run')
    .description('start a pass now (after the running one, if any: passes of a source never overlap)')
    .argument('<source>')
    .option('--wait', 'follow the pass: its progress on stderr, then its report')
    .option('--json', 'with --wait: print the report as JSON')
    .action(async (source: string, flags: { wait?: boolean; json?: boolean }) => {
      const client = await temporal();
      if (!flags.wait) {
        await runSyncNow(client, source);
        console.log(`${source}: pass started — \`ragtime sync status ${source}\` shows its progress`);
        return;
      }
      await syncSourceStatus(client, source).catch((error: unknown) => {
        if ((error as { name?: string }).name === 'ScheduleNotFoundError') throw new RagError('UNKNOWN_RUN', `no synced source ${JSON.stringify(source)}; \`ragtime sync list\` lists them`, { cause: error });
        throw error;
      });
      const report = await runSyncAndWait(client, source, (progress) => console.error(`sync ${source}: ${renderProgress(progress)}`));
      print(flags.json, report, `${source}: ${renderPassReport(report)}`);
    });
  simple('pause', 'stop scheduling passes (a running pass finishes)', pauseSyncSource, 'paused');
  simple('resume', 'schedule passes again', resumeSyncSource, 'resumed');
  simple('rm', 'delete the source\'s schedule (its documents stay in the knowledge base)', removeSyncSource, 'removed (its documents stay; `ragtime docs rm` removes them)');
}
