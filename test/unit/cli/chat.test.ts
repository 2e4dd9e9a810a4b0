import { PassThrough } from 'node:stream';
import { parseChatLine } from '../../../cli/chat/chat-line';
import { checkedSessionId, runChat, type ChatDeps } from '../../../cli/chat/chat-loop';
import { readAsLine, renderChatOutcome } from '../../../cli/chat/chat-outcome';
import { createLineReader, type LineEvent, type LineReader } from '../../../cli/chat/line-reader';
import { newChatSessionId } from '../../../cli/chat/session-id';
import { renderTurns } from '../../../cli/chat/turns-printer';
import type { SessionTurn } from '../../../core/schemas/conversation';
import type { RagOutcome } from '../../../core/schemas/run-io';

/*
 * `ragtime chat` (issue 25 §1) without services: what a typed line means, how turns and outcomes print, the line
 * reader on a pipe, and the loop driven by scripted lines and a fake client (clarifications inline, Ctrl-C detaching
 * from a run, bad input staying in the loop). The loop against a real worker: test/e2e/chat.test.ts.
 */

/** An outcome with only what the chat reads; the rest of RagOutcome does not matter to it. */
function outcome(fields: Partial<RagOutcome>): RagOutcome {
  return {
    workflowId: 'rag-s-1',
    runId: 'r',
    sessionId: 's',
    kb: null,
    status: 'completed',
    route: 'no_knowledge',
    retrieval_status: 'no_knowledge',
    rag_trace: null,
    docs: [],
    hitl: null,
    hitl_resume_state: null,
    rounds: [],
    error: null,
    answer: null,
    answer_null_reason: null,
    answer_error: null,
    degraded: null,
    ...fields,
  } as RagOutcome;
}

const followUp = {
  question: '它支持 WPA3 吗？',
  turnsBefore: 1,
  turnsUsed: [1],
  turnsDropped: 0,
  dropReason: null,
  standaloneQuestion: 'Aurora X2 路由器支持 WPA3 吗？',
  condensedBy: 'offline_rules' as const,
  why: 'resolved "它" to "Aurora X2 路由器" (turn 1)',
};

const turn = (n: number, answer: string | null = `answer ${n}`): SessionTurn => ({
  turn: n,
  question: `question ${n}`,
  standaloneQuestion: `question ${n}`,
  answer,
  route: answer === null ? 'no_knowledge' : 'answer',
  workflowId: `rag-s-${n}`,
});

describe('parseChatLine', () => {
  test('commands, empty lines and questions', () => {
    expect(parseChatLine('/exit')).toEqual({ kind: 'exit' });
    expect(parseChatLine(' /QUIT ')).toEqual({ kind: 'exit' });
    expect(parseChatLine('/new')).toEqual({ kind: 'new' });
    expect(parseChatLine('/history')).toEqual({ kind: 'history' });
    expect(parseChatLine('/help')).toEqual({ kind: 'unknown_command', command: '/help' });
    expect(parseChatLine('   ')).toEqual({ kind: 'empty' });
    expect(parseChatLine('它支持 WPA3 吗？')).toEqual({ kind: 'question', text: '它支持 WPA3 吗？' });
    // A question that starts with a slash is still a question.
    expect(parseChatLine('/etc/hosts 是什么？')).toEqual({ kind: 'question', text: '/etc/hosts 是什么？' });
  });
});

describe('session ids', () => {
  test('a new session is chat-<8 hex>; a bad --session is refused as ask refuses it', () => {
    expect(newChatSessionId()).toMatch(/^chat-[0-9a-f]{8}$/);
    expect(checkedSessionId(' chat-1a2b3c4d ')).toBe('chat-1a2b3c4d');
    expect(() => checkedSessionId('a b')).toThrow(
      expect.objectContaining({ code: 'INVALID_INPUT', message: 'invalid --session: ✖ sessionId may hold letters, digits and _ . : @ - only → at sessionId' }),
    );
  });
});

describe('renderTurns', () => {
  test('question, route and answer preview; the last N of a longer session, saying so', () => {
    expect(renderTurns('s', [turn(1), turn(2, null)])).toEqual([
      'session s: 2 turns',
      '  1. question 1',
      '     answer: answer 1',
      '  2. question 2',
      '     no_knowledge: (no answer)',
    ]);
    const eight = Array.from({ length: 8 }, (_, i) => turn(i + 1));
    const shown = renderTurns('s', eight, 6);
    expect(shown[0]).toBe('session s: 8 turns, the last 6 shown (/history shows them all)');
    expect(shown[1]).toBe('  3. question 3');
    expect(shown).toHaveLength(13);
    expect(renderTurns('s', [])).toEqual(['session s has no turns yet']);
  });

  test('a long answer is cut to one line', () => {
    const [, , answer] = renderTurns('s', [turn(1, `${'很长的回答'.repeat(30)}\n第二行`)]);
    expect([...(answer ?? '')].length).toBeLessThanOrEqual(5 + 'answer: '.length + 80);
    expect(answer).toMatch(/…$/);
  });
});

describe('renderChatOutcome', () => {
  test('the answer first, then one line with route and run, then what a follow-up was read as', () => {
    const lines = renderChatOutcome(outcome({ rag_trace: { query: 'Aurora X2 路由器支持 WPA3 吗？' } as RagOutcome['rag_trace'], conversation: followUp }));
    expect(lines.slice(-2)).toEqual([
      '  route no_knowledge · run rag-s-1',
      '  turn 2 read as "Aurora X2 路由器支持 WPA3 吗？" (offline_rules: resolved "它" to "Aurora X2 路由器" (turn 1))',
    ]);
    expect(lines.length).toBe(3); // the no-knowledge sentence, without the blank line `ask` puts after it
  });

  test('a first turn says nothing about reading; a follow-up left as asked says so', () => {
    expect(readAsLine(outcome({ conversation: { ...followUp, turnsBefore: 0, turnsUsed: [] } }))).toBeNull();
    expect(readAsLine(outcome({}))).toBeNull();
    const asAsked = { ...followUp, standaloneQuestion: followUp.question, condensedBy: 'none' as const, why: 'the question stands alone' };
    expect(readAsLine(outcome({ conversation: asAsked }))).toBe('  turn 2 read as asked (none: the question stands alone)');
  });

  test('a failed run names its error on the run line', () => {
    const failed = outcome({ status: 'failed', route: null, error: { type: 'MODEL_OUTPUT_INVALID', message: 'bad reply', retryable: false } as RagOutcome['error'] });
    expect(renderChatOutcome(failed)).toEqual(['  failed · route - · run rag-s-1 · MODEL_OUTPUT_INVALID: bad reply']);
  });
});

describe('createLineReader on a pipe', () => {
  test('lines that arrive before they are asked for are kept, in order, each echoed after its prompt; then the end', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let printed = '';
    output.on('data', (chunk: Buffer) => (printed += chunk.toString('utf8')));
    const reader = createLineReader(input, output);
    input.end('first\nsecond\n');
    await new Promise((resolve) => setImmediate(resolve));
    expect(reader.terminal).toBe(false);
    await expect(reader.next('> ')).resolves.toEqual({ kind: 'line', text: 'first' });
    await expect(reader.next('answer: ')).resolves.toEqual({ kind: 'line', text: 'second' });
    await expect(reader.next('> ')).resolves.toEqual({ kind: 'end' });
    reader.close();
    expect(printed).toBe('> first\nanswer: second\n');
  });

  test('a line asked for before it arrives', async () => {
    const input = new PassThrough();
    const reader = createLineReader(input, new PassThrough());
    const next = reader.next('> ');
    input.write('later\n');
    await expect(next).resolves.toEqual({ kind: 'line', text: 'later' });
    reader.close();
  });
});

/** A LineReader that replies with `events` in turn ('^C during run': Ctrl-C while the next run is going). */
function scriptedReader(events: Array<LineEvent | 'ctrl-c during run'>) {
  const prompts: string[] = [];
  const listeners = new Set<() => void>();
  const reader: LineReader & { ctrlCDuringRun(): boolean } = {
    terminal: false,
    async next(prompt) {
      prompts.push(prompt);
      const event = events.shift();
      return event === undefined || event === 'ctrl-c during run' ? { kind: 'end' } : event;
    },
    onInterrupt(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close: () => undefined,
    ctrlCDuringRun() {
      if (events[0] !== 'ctrl-c during run') return false;
      events.shift();
      // On the next turn of the event loop, as a key press would come.
      setImmediate(() => [...listeners].forEach((listener) => listener()));
      return true;
    },
  };
  return { reader, prompts };
}

const line = (text: string): LineEvent => ({ kind: 'line', text });

/** The chat's deps around a scripted reader and a fake client; `said` and `reported` collect what it printed. */
function chatWith(reader: ReturnType<typeof scriptedReader>['reader'], replies: { ask?: (question: string) => RagOutcome; answer?: (text: string) => RagOutcome } = {}) {
  const said: string[] = [];
  const reported: unknown[] = [];
  const asked: Array<{ question: string; sessionId: string; workflowId: string; kb?: string }> = [];
  const answered: Array<[string, string]> = [];
  let runs = 0;
  let sessions = 0;
  const deps: ChatDeps = {
    rag: {
      ask: (question, options) => {
        asked.push({ question, ...options });
        // Ctrl-C during this run: it never settles here (the run goes on elsewhere).
        if (reader.ctrlCDuringRun()) return new Promise<RagOutcome>(() => undefined);
        return Promise.resolve(replies.ask?.(question) ?? outcome({ workflowId: options.workflowId, sessionId: options.sessionId }));
      },
      answer: (workflowId, text) => {
        answered.push([workflowId, text]);
        return Promise.resolve(replies.answer?.(text) ?? outcome({ workflowId }));
      },
      getProgress: () => Promise.resolve([]),
      getAnswerStream: () => Promise.resolve({ generation: null, docs: [] }),
    },
    turnsOf: (sessionId) => Promise.resolve(sessionId === 'old' ? Array.from({ length: 8 }, (_, i) => turn(i + 1)) : []),
    reader,
    say: (text) => said.push(text),
    report: (error) => reported.push(error),
    newSessionId: () => `chat-0000000${++sessions}`,
    newWorkflowId: (sessionId) => `rag-${sessionId}-${++runs}`,
    kb: 'kb1',
    sessionTurns: 6,
    progress: false,
  };
  return { deps, said, reported, asked, answered };
}

describe('runChat', () => {
  test('a new session: announced with how to continue it; each line asked in it, in order; the end of input ends the chat', async () => {
    const { reader, prompts } = scriptedReader([line('第一个问题'), line(''), line('第二个问题')]);
    const { deps, said, asked } = chatWith(reader);
    await expect(runChat(deps, null)).resolves.toBe(0);
    expect(said[0]).toBe('new session chat-00000001; continue it later with: ragtime chat --session chat-00000001');
    expect(asked).toEqual([
      { question: '第一个问题', sessionId: 'chat-00000001', workflowId: 'rag-chat-00000001-1', kb: 'kb1' },
      { question: '第二个问题', sessionId: 'chat-00000001', workflowId: 'rag-chat-00000001-2', kb: 'kb1' },
    ]);
    expect(prompts).toEqual(['> ', '> ', '> ', '> ']);
    expect(said.at(-1)).toBe('continue this conversation with: ragtime chat --session chat-00000001');
  });

  test('--session: the last SESSION_TURNS of its turns first; /new and /history; /exit stops before the next line', async () => {
    const { reader } = scriptedReader([line('/new'), line('/history'), line('/nope'), line('/exit'), line('never asked')]);
    const { deps, said, asked } = chatWith(reader);
    await expect(runChat(deps, 'old')).resolves.toBe(0);
    expect(said[0]).toBe('session old: 8 turns, the last 6 shown (/history shows them all)');
    expect(said[1]).toBe('  3. question 3');
    expect(said).toContain('new session chat-00000001; continue it later with: ragtime chat --session chat-00000001');
    expect(said).toContain('session chat-00000001 has no turns yet');
    expect(said).toContain("unknown command /nope; the commands are /history (this session's turns), /new (a new session), /exit or /quit (Ctrl-D)");
    expect(asked).toEqual([]);
    expect(said.at(-1)).toBe('continue this conversation with: ragtime chat --session chat-00000001');
  });

  test('a clarification answered inline: a number picks an option, one naming none asks again', async () => {
    const waiting = outcome({ status: 'awaiting_input', route: 'scope_select', hitl: { round: 1, prompt: '你指的是哪一个？', options: ['Aurora X2 路由器', 'Nimbus C1 摄像头'] } as RagOutcome['hitl'] });
    const { reader, prompts } = scriptedReader([line('怎么重置管理密码？'), line('5'), line('2')]);
    const { deps, said, answered } = chatWith(reader, { ask: () => ({ ...waiting, workflowId: 'rag-w' }), answer: () => outcome({ workflowId: 'rag-w', route: 'answer' }) });
    await runChat(deps, 'old');
    expect(said).toEqual(expect.arrayContaining(['? 你指的是哪一个？', '  1. Aurora X2 路由器', '  2. Nimbus C1 摄像头', 'option 5 does not exist: the run offers 1. Aurora X2 路由器; 2. Nimbus C1 摄像头']));
    expect(prompts.slice(1, 3)).toEqual(['your answer (1–2 or text): ', 'your answer (1–2 or text): ']);
    expect(answered).toEqual([['rag-old-1', 'Nimbus C1 摄像头']]);
    expect(said).toContain('  route answer · run rag-w');
  });

  test('Ctrl-C at the answer prompt leaves the run waiting, says how to answer it, and returns to the question prompt', async () => {
    const waiting = outcome({ status: 'awaiting_input', route: 'clarify', hitl: { round: 1, prompt: '缺少产品型号', options: [] } as unknown as RagOutcome['hitl'] });
    const { reader } = scriptedReader([line('这款产品的价格是多少？'), { kind: 'interrupt' }, line('下一个问题')]);
    const { deps, said, asked, answered } = chatWith(reader, { ask: (question) => (question === '下一个问题' ? outcome({}) : waiting) });
    await runChat(deps, 's');
    expect(said).toContain('left waiting; answer it later with: ragtime answer rag-s-1 "<your answer>"');
    expect(asked.map((a) => a.question)).toEqual(['这款产品的价格是多少？', '下一个问题']);
    expect(answered).toEqual([]);
  });

  test('the end of input at the answer prompt leaves the run waiting and ends the chat', async () => {
    const waiting = outcome({ status: 'awaiting_input', route: 'clarify', hitl: { round: 1, prompt: '缺少产品型号', options: [] } as unknown as RagOutcome['hitl'] });
    const { reader } = scriptedReader([line('这款产品的价格是多少？')]);
    const { deps, said } = chatWith(reader, { ask: () => waiting });
    await expect(runChat(deps, 's')).resolves.toBe(0);
    expect(said.slice(-2)).toEqual(['left waiting; answer it later with: ragtime answer rag-s-1 "<your answer>"', 'continue this conversation with: ragtime chat --session s']);
  });

  test('Ctrl-C while a run is going detaches from it (the run goes on) and returns to the prompt', async () => {
    const { reader } = scriptedReader([line('慢的问题'), 'ctrl-c during run', line('下一个问题')]);
    const { deps, said, asked } = chatWith(reader);
    await expect(runChat(deps, 's')).resolves.toBe(0);
    expect(said).toContain('detached from run rag-s-1; it goes on: ragtime trace rag-s-1');
    expect(asked.map((a) => a.question)).toEqual(['慢的问题', '下一个问题']);
  });

  test('Ctrl-C at the empty prompt ends the chat (exit 0) with how to continue it', async () => {
    const { reader } = scriptedReader([{ kind: 'interrupt' }, line('never asked')]);
    const { deps, said, asked } = chatWith(reader);
    await expect(runChat(deps, 's')).resolves.toBe(0);
    expect(asked).toEqual([]);
    expect(said.at(-1)).toBe('continue this conversation with: ragtime chat --session s');
  });

  test('an over-long question is refused with the error ask gives (INVALID_INPUT), and the chat goes on', async () => {
    const { reader } = scriptedReader([line('问'.repeat(2001)), line('下一个问题')]);
    const { deps, reported, asked } = chatWith(reader);
    await runChat(deps, 's');
    expect(reported).toEqual([expect.objectContaining({ code: 'INVALID_INPUT', message: 'invalid question: ✖ Too big: expected string to have <=2000 characters → at question' })]);
    expect(asked.map((a) => a.question)).toEqual(['下一个问题']);
  });

  test('a run that fails to start is reported, and the chat goes on', async () => {
    const { reader } = scriptedReader([line('一'), line('二')]);
    const { deps, reported, asked } = chatWith(reader);
    const ask = deps.rag.ask;
    deps.rag.ask = (question, options) => (question === '一' ? Promise.reject(new Error('worker gone')) : ask(question, options));
    await runChat(deps, 's');
    expect(reported).toEqual([new Error('worker gone')]);
    expect(asked.map((a) => a.question)).toEqual(['二']);
  });
});
