import { partTerms, questionParts } from '../../../core/answer/question-parts';

// Search tokens as jieba gives them for the Chinese examples (the adapter tokenizes; this module is pure).
const tokens = (text: string): string[] => text.split(/\s+/).filter(Boolean);

describe('questionParts', () => {
  test('two things of one question: "when were X and Y?" gives a part for each, the frame shared', () => {
    expect(questionParts('When were the swearing-in and the first meeting?')).toEqual([
      { text: 'When were the swearing-in?', phrase: 'the swearing-in' },
      { text: 'When were the first meeting?', phrase: 'the first meeting' },
    ]);
  });

  test('a comma list with "and" before "of …": each thing with the shared rest', () => {
    expect(questionParts('What are the population, area and capital of France?').map((part) => part.phrase)).toEqual(['the population', 'area', 'capital']);
  });

  test('Chinese: X的A和B分别是什么 and A 和 B 分别是多少 drop 分别 in each part', () => {
    expect(questionParts('林清的出生年份和毕业院校分别是什么？', tokens('林清 的 出生 年份 出生年份 和 毕业 院校 毕业院校 分别 是 什么 ？'))).toEqual([
      { text: '林清的出生年份是什么？', phrase: '出生年份' },
      { text: '林清的毕业院校是什么？', phrase: '毕业院校' },
    ]);
    expect(questionParts('X1 和 X2 的续航分别是多少？').map((part) => part.text)).toEqual(['X1的续航是多少？', 'X2的续航是多少？']);
    expect(questionParts('厚嘴鸡鸠的头部、喉咙及胸部是什么颜色的？').map((part) => part.phrase)).toEqual(['头部', '喉咙', '胸部']);
  });

  test('two questions: split after a question mark, or at a semicolon when both pieces ask', () => {
    expect(questionParts('Where is the tower? When was it built?').map((part) => part.text)).toEqual(['Where is the tower?', 'When was it built?']);
    expect(questionParts('保修期多长；保修范围包括哪些？').map((part) => part.phrase)).toEqual(['保修期多长', '保修范围包括哪些']);
    // the first piece only tells the situation: one question
    expect(questionParts("I'm in a rebase with conflicts; how do I cancel it entirely?")).toHaveLength(1);
  });

  test.each([
    ['What is the difference between tar and zip?', 'relates the two'],
    ['I ran tar and it failed, why?', 'no question word before the chain'],
    ['How do I search and replace in vim?', 'the chain is followed by "in …", not the end or "of"'],
    ['曹髦与王沈商讨什么事情？', '与 = with: the chain is followed by a verb'],
    ['派西与卫斯理家族决裂之后在哪里居住？', 'followed by a verb'],
    ['《食品与生物加工技术》的主编是谁？', 'inside a title'],
    ['A与B的区别是什么？', 'relates the two'],
  ])('one part: %s (%s)', (question) => {
    expect(questionParts(question)).toEqual([{ text: question, phrase: question.replace(/[？?]$/u, '') }]);
  });

  test('a 和 inside a longer search token (共和国) is no conjunction', () => {
    const question = '中华人民共和国的首都是哪里？';
    expect(questionParts(question, tokens('中华 华人 人民 共和 共和国 中华人民共和国 的 首都 是 哪里 ？'))).toHaveLength(1);
  });
});

describe('partTerms', () => {
  test('each part holds the terms of its phrase and the shared ones; a part with none of its own means no split', () => {
    const parts = questionParts('When were the swearing-in and the first meeting?');
    expect(partTerms(parts, ['swearing', 'first', 'meeting', 'council'])).toEqual([
      { part: parts[0], own: ['swearing'], terms: ['swearing', 'council'] },
      { part: parts[1], own: ['first', 'meeting'], terms: ['first', 'meeting', 'council'] },
    ]);
    expect(partTerms(parts, ['first', 'meeting'])).toBeNull();
    expect(partTerms(questionParts('When was it built?'), ['built'])).toBeNull();
  });
});
