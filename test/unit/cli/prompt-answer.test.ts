import { readAnswer } from '../../../cli/prompt-answer';
import { answerForOptions } from '../../../core/run/option-answer';

/* Issue 14 §9: a number picks an option; a number out of range, or an empty line, asks again; leaving returns null. */

const OPTIONS = ['Aurora X2 路由器', 'Nimbus C1 摄像头'];

/** An AskLine that replies with the given lines in turn (null: the person pressed Ctrl-C or Ctrl-D). */
function scripted(lines: Array<string | null>) {
  const prompts: string[] = [];
  return { prompts, askLine: async (prompt: string) => (prompts.push(prompt), lines.shift() ?? null) };
}

describe('answerForOptions', () => {
  test('a number names an option; text, and numbers without options, are sent as typed', () => {
    expect(answerForOptions('2', OPTIONS)).toBe('Nimbus C1 摄像头');
    expect(answerForOptions(' 1 ', OPTIONS)).toBe('Aurora X2 路由器');
    expect(answerForOptions('Nimbus', OPTIONS)).toBe('Nimbus');
    expect(answerForOptions('2008', [])).toBe('2008');
    expect(answerForOptions('2', ['1', '2'])).toBe('2'); // the text is itself an option
  });

  test('a number that names no option is refused with the list', () => {
    expect(() => answerForOptions('3', OPTIONS)).toThrow('option 3 does not exist: the run offers 1. Aurora X2 路由器; 2. Nimbus C1 摄像头; nothing was sent');
    expect(() => answerForOptions('0', OPTIONS)).toThrow(/option 0 does not exist/);
  });
});

describe('readAnswer at the terminal', () => {
  test('an empty line asks again; a number out of range says why and asks again; a number picks', async () => {
    const said: string[] = [];
    const { prompts, askLine } = scripted(['', '  ', '7', '2']);
    await expect(readAnswer(OPTIONS, askLine, (line) => said.push(line))).resolves.toBe('Nimbus C1 摄像头');
    expect(prompts).toEqual(Array(4).fill('your answer (1–2 or text): '));
    expect(said).toEqual(['option 7 does not exist: the run offers 1. Aurora X2 路由器; 2. Nimbus C1 摄像头']);
  });

  test('Ctrl-C or Ctrl-D (null) leaves the run waiting', async () => {
    await expect(readAnswer([], scripted([null]).askLine, () => undefined)).resolves.toBeNull();
  });

  test('an answer no run would take (only zero-width characters) is refused at the prompt', async () => {
    const said: string[] = [];
    await expect(readAnswer([], scripted(['\u200b', 'Aurora X2']).askLine, (line) => said.push(line))).resolves.toBe('Aurora X2');
    expect(said).toEqual(['answer has no visible character (only spaces or zero-width characters)']);
  });
});
