import { answerKind, statesKind } from '../../../core/answer/answer-kind';

// The kind of answer a question asks for (issue 42 §2, §5): the examples are this file's, written for it.
describe('answerKind', () => {
  test.each([
    // the fact slots of question-slot.ts come through as they were
    ['Which Django releases fix CVE-2024-24680?', 'version'],
    ['When was Django 4.2.1 released?', 'date'],
    ['How many spare blades come with the K7?', 'amount'],
    ['北极星X1哪个版本开始支持双频？', 'version'],
    // a flag or option, asked before the slots: the option is what is asked even when a version is named
    ['Which flag makes tar verbose?', 'option'],
    ['Which option was added in version 3.1?', 'option'],
    ['rsync 用哪个参数显示进度？', 'option'],
    // a person
    ['Who wrote the first version of rsync?', 'person'],
    ['这家公司的创始人是谁？', 'person'],
    // a place
    ['Where does pip keep its cache?', 'place'],
    ['底特律圣保罗座堂在哪里？', 'place'],
    // a command or a way to do something; 怎么样 and a closing 如何 ask for a judgement
    ['How do I list all running services?', 'command'],
    ["I'm in a rebase with conflicts; how do I cancel it entirely?", 'command'],
    ['怎么把压缩包解压到另一个目录？', 'command'],
    ['如何重置路由器？', 'command'],
    ['这款耳机怎么样？', null],
    ['降噪效果如何？', null],
    // a list of parts
    ['What are the main components of a Debian package?', 'list'],
    ['这套系统包括哪些模块？', 'list'],
    // yes or no, also in the question's last clause
    ['Does kill send SIGTERM by default?', 'yes_no'],
    ['I use tar on macOS; can it read zip files?', 'yes_no'],
    ['这款路由器是否支持 IPv6？', 'yes_no'],
    ['它支持快充吗？', 'yes_no'],
    // none of these
    ['Why does the build fail?', null],
    ['What is a Debian package?', null],
  ])('%s → %s', (question, kind) => {
    expect(answerKind(question)).toBe(kind);
  });
});

describe('statesKind', () => {
  test('a flag standing alone states an option; a hyphenated word or a negative number does not', () => {
    expect(statesKind('option', 'Pass --info=progress2 to see the whole transfer.')).toBe(true);
    expect(statesKind('option', '`tar -v -x -f archive.tar`')).toBe(true);
    expect(statesKind('option', 'Send it by e-mail at -5 degrees.')).toBe(false);
  });

  test('a code span or a shell prompt states a command; prose does not', () => {
    expect(statesKind('command', 'Run `make install` as root.')).toBe(true);
    expect(statesKind('command', '$ pip install pack')).toBe(true);
    expect(statesKind('command', 'Install the package with the package manager.')).toBe(false);
  });

  test('a person: a title, a role or a name with its verb, in English and Chinese', () => {
    expect(statesKind('person', 'The tool was written by Andrew Tridgell in 1996.')).toBe(true);
    expect(statesKind('person', 'Ada Lovelace wrote the first program.')).toBe(true);
    expect(statesKind('person', '该公司由王明创立。')).toBe(true);
    expect(statesKind('person', '张华现任公司董事长。')).toBe(true);
    expect(statesKind('person', 'The cache is cleared every day.')).toBe(false);
  });

  test('a place: in + a name, a path, 位于, a place suffix; 市场 is not a city', () => {
    expect(statesKind('place', 'The meeting was held in Geneva.')).toBe(true);
    expect(statesKind('place', 'pip keeps its cache in ~/.cache/pip by default.')).toBe(true);
    expect(statesKind('place', '座堂位于底特律伍德沃德大道4800号。')).toBe(true);
    expect(statesKind('place', '他出生于浙江省。')).toBe(true);
    expect(statesKind('place', '该产品的市场份额很高。')).toBe(false);
  });

  test('a list: several items or a word that introduces them', () => {
    expect(statesKind('list', 'A package holds a control file, the data and the scripts.')).toBe(true);
    expect(statesKind('list', '该专辑于香港、马来西亚及新加坡发售。')).toBe(true);
    expect(statesKind('list', 'The package is signed.')).toBe(false);
  });

  test('a yes/no is any statement, not a question; the slots read as question-slot.ts reads them', () => {
    expect(statesKind('yes_no', 'kill sends SIGTERM unless told otherwise.')).toBe(true);
    expect(statesKind('yes_no', 'Does it?')).toBe(false);
    expect(statesKind('version', 'Django 4.2.1 fixes a security issue')).toBe(true);
    expect(statesKind('date', '该功能于二〇二四年发布')).toBe(true);
    expect(statesKind('amount', 'The box holds spare blades.')).toBe(false);
  });
});
