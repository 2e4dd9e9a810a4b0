import { fork, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import * as net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createAnswerStreamStore, type SqlAnswerStreamStore } from '../../activities/adapters/sql-answer-stream';
import { localPushPath } from '../../activities/adapters/sql/local-notifications';
import { followAnswer } from '../../client/follow-answer';
import type { AnswerStreamMessage, StreamEvent } from '../../core/schemas/answer-stream';
import type { RagOutcome } from '../../core/schemas/run-io';
import { exited } from '../support/local-process';

/*
 * The side channel pushes on the single-machine default too (issue 47 §2): processes sharing one SQLite file push
 * over a Unix socket beside it; the first to need it listens (the hub). These tests use real processes
 * (test/support/answer-stream-process.ts): one holds the hub, one writes, this one listens, and the hub is killed
 * mid-answer: a new hub is elected, and the listener still shows every event in order (what a push missed, the
 * store gives: the fallback read).
 */

const delta = (seq: number, text: string): StreamEvent => ({ generation: 'g1', attempt: 1, seq, kind: 'delta', text });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Child = { process: ChildProcess; request(message: object, reply: string): Promise<void>; kill(): Promise<void> };

async function startStoreProcess(sqliteFile: string): Promise<Child> {
  const child = fork(require.resolve('../support/answer-stream-process'), [sqliteFile], {
    execArgv: ['--require', require.resolve('tsx/cjs')],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const next = (type: string) =>
    new Promise<void>((resolve, reject) => {
      const onMessage = (message: { type: string; message?: string }) => {
        if (message.type === 'failed') reject(new Error(message.message));
        if (message.type !== type) return;
        child.off('message', onMessage);
        resolve();
      };
      child.on('message', onMessage);
    });
  await next('ready');
  return {
    process: child,
    request: (message, reply) => {
      const replied = next(reply);
      child.send(message);
      return replied;
    },
    kill: async () => {
      child.kill('SIGKILL');
      await exited(child);
    },
  };
}

const accepts = (socketPath: string) =>
  new Promise<boolean>((resolve) => {
    const probe = net.connect(socketPath);
    probe.once('connect', () => (probe.destroy(), resolve(true)));
    probe.once('error', () => resolve(false));
  });

async function waitFor(what: string, check: () => boolean, timeoutMs = 10_000): Promise<void> {
  for (const until = Date.now() + timeoutMs; !check(); await sleep(10)) if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
}

test('an in-memory database has no push (no other process shares it): its readers poll', async () => {
  const memory = createAnswerStreamStore({ sqliteFile: ':memory:' });
  expect(memory.onAppend).toBeUndefined();
  await memory.close();
});

describe('three processes on one SQLite file: a hub, a writer, this one listening', () => {
  let dir: string;
  let sqliteFile: string;
  let socket: string;
  let reader: SqlAnswerStreamStore;
  const children: Child[] = [];

  beforeEach(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'ragtime-local-push-'));
    sqliteFile = path.join(dir, 'audit.sqlite');
    socket = localPushPath(sqliteFile) as string;
    // The hub: the first process to subscribe listens on the socket beside the file.
    const hub = await startStoreProcess(sqliteFile);
    children.push(hub);
    await hub.request({ type: 'subscribe', workflowId: 'nobody' }, 'subscribed');
    await waitFor('the hub to listen', () => existsSync(socket));
    children.push(await startStoreProcess(sqliteFile));
    reader = createAnswerStreamStore({ sqliteFile });
  }, 60_000);

  afterEach(async () => {
    await reader?.close();
    await Promise.all(children.splice(0).map((child) => child.kill()));
    rmSync(dir, { recursive: true, force: true });
  });

  test('an append in one process wakes a subscriber of that run in another, through a third (the hub), with its events', async () => {
    const [, writer] = children as [Child, Child];
    const woken: Array<{ generation: string; events?: StreamEvent[]; ms: number }> = [];
    let started = Date.now();
    const unsubscribe = reader.onAppend!('run-1', (generation, events) => woken.push({ generation, events, ms: Date.now() - started }));
    const others: string[] = [];
    reader.onAppend!('run-2', (generation) => others.push(generation));
    // The subscription is in place once a first append reaches it; then time one.
    for (let seq = 0; woken.length === 0 && seq < 50; seq += 1) {
      await writer.request({ type: 'append', workflowId: 'run-1', events: [delta(seq, '.')] }, 'appended');
      await sleep(50);
    }
    expect(woken.length).toBeGreaterThan(0);
    woken.length = 0;
    started = Date.now();
    await writer.request({ type: 'append', workflowId: 'run-1', events: [delta(100, '丹瑾')] }, 'appended');
    await waitFor('the push', () => woken.length > 0);
    console.log(`pushed after ${woken[0]?.ms} ms (append included)`);
    expect(woken[0]).toMatchObject({ generation: 'g1', events: [delta(100, '丹瑾')] });
    expect(others).toEqual([]);
    unsubscribe();
    await writer.request({ type: 'append', workflowId: 'run-1', events: [delta(101, '是')] }, 'appended');
    await sleep(200);
    expect(woken).toHaveLength(1);
  }, 60_000);

  test('a killed hub loses no events: a new one is elected, and what no push brought the store gives', async () => {
    const [hub, writer] = children as [Child, Child];
    let queries = 0;
    const rag = { getAnswerStream: async () => ((queries += 1), { generation: 'g1', docs: [] }) };
    let settle: (outcome: RagOutcome) => void = () => undefined;
    const pending = new Promise<RagOutcome>((resolve) => (settle = resolve));
    const shown: Array<{ text: string; at: number }> = [];
    const following = followAnswer(pending, rag, 'run-kill', reader, (message: AnswerStreamMessage) => {
      if (message.type === 'delta') shown.push({ text: message.text, at: Date.now() });
    }, { intervalMs: 100 });
    const pieces = Array.from({ length: 30 }, (_, i) => `第${i}段。`);
    const wroteAt: number[] = [];
    for (const [seq, piece] of pieces.entries()) {
      // The hub's process dies a third of the way through the answer.
      if (seq === 10) await hub.kill();
      wroteAt.push(Date.now());
      await writer.request({ type: 'append', workflowId: 'run-kill', events: [delta(seq, piece)] }, 'appended');
      await sleep(50);
    }
    const whole = pieces.join('');
    await waitFor('the whole answer shown', () => shown.map((entry) => entry.text).join('') === whole, 5_000);
    const lastShown = shown.at(-1)?.at ?? Number.NaN;
    console.log(`last piece shown ${lastShown - (wroteAt.at(-1) ?? 0)} ms after it was written; ${shown.length} updates; ${queries} answerStream queries`);
    // Another process listens on the socket now (the reader or the writer, whichever elected itself first).
    await expect(accepts(socket)).resolves.toBe(true);
    // Pushed again, not only by the fallback read (every PUSHED_INTERVAL_MS, 1 s, which would show the 20 pieces
    // written 50 ms apart after the kill in one or two updates): most of them came as a screen update of their own.
    const killedAt = wroteAt[10] ?? 0;
    expect(shown.filter((entry) => entry.at >= killedAt).length).toBeGreaterThanOrEqual(10);
    settle({ status: 'completed', route: 'no_knowledge', answer: null, docs: [] } as unknown as RagOutcome);
    await following;
    expect(shown.map((entry) => entry.text).join('')).toBe(whole);
  }, 60_000);
  test('a hung hub (stopped, its socket open) pushes nothing: the fallback read still shows every event, in order', async () => {
    const [hub, writer] = children as [Child, Child];
    const rag = { getAnswerStream: async () => ({ generation: 'g1', docs: [] }) };
    let settle: (outcome: RagOutcome) => void = () => undefined;
    const pending = new Promise<RagOutcome>((resolve) => (settle = resolve));
    let shown = '';
    let reads = 0;
    const counted = { eventsOf: (...args: Parameters<typeof reader.eventsOf>) => ((reads += 1), reader.eventsOf(...args)), onAppend: reader.onAppend };
    const following = followAnswer(pending, rag, 'run-hung', counted, (message: AnswerStreamMessage) => {
      if (message.type === 'delta') shown += message.text;
    }, { intervalMs: 100 });
    await writer.request({ type: 'append', workflowId: 'run-hung', events: [delta(0, '开始。')] }, 'appended');
    await waitFor('the first piece pushed', () => shown === '开始。');
    hub.process.kill('SIGSTOP');
    try {
      const readsBefore = reads;
      const pieces = Array.from({ length: 10 }, (_, i) => `第${i}段。`);
      for (const [i, piece] of pieces.entries()) await writer.request({ type: 'append', workflowId: 'run-hung', events: [delta(i + 1, piece)] }, 'appended');
      const wrote = Date.now();
      // No push comes through a stopped hub: the fallback read (every PUSHED_INTERVAL_MS, 1 s) finds them in the store.
      await waitFor('the pieces read from the store', () => shown === `开始。${pieces.join('')}`, 5_000);
      console.log(`shown ${Date.now() - wrote} ms after the last write, by ${reads - readsBefore} store reads`);
      expect(reads - readsBefore).toBeGreaterThan(0);
    } finally {
      hub.process.kill('SIGCONT');
    }
    settle({ status: 'completed', route: 'no_knowledge', answer: null, docs: [] } as unknown as RagOutcome);
    await following;
  }, 60_000);
});
