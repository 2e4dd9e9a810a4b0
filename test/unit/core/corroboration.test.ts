import { hanNumeralValue } from '../../../core/answer/numeric-tokens';
import { agreement, statedFacts } from '../../../core/offline-policy/corroboration';
import { englishDates } from '../../../core/offline-policy/english-dates';
import { offlineGrade, type EvidenceSignal, type GradeInput } from '../../../core/offline-policy/grade-policy';
import { partTerms } from '../../../core/offline-policy/part-terms';
import { questionTerms, type TaggedWord } from '../../../core/offline-policy/question-terms';
import { factsAgree, readFacts } from '../../../core/offline-policy/quantity-agreement';
import { EvidenceGrade } from '../../../core/schemas/model-outputs';

// Issue 42 §4: corroboration by meaning. Words as jieba's precise mode tags them ("_" is a space), hard-coded.
const w = (spec: string): TaggedWord[] =>
  spec.split(' ').map((item) => {
    const at = item.lastIndexOf('/');
    const word = item.slice(0, at);
    return { word: word === '_' ? ' ' : word, tag: item.slice(at + 1) };
  });
const question = (words: TaggedWord[]) => words.map((x) => x.word).join('');
const weights = (table: Record<string, number>) => (word: string) => table[word] ?? 1;
const signal = (filename: string, text: string, titleNames: string[]): EvidenceSignal => ({ filename, title: filename.replace(/\.[^.]+$/, ''), text, titleNames });
const input = (words: TaggedWord[], evidence: EvidenceSignal[], idf: (word: string) => number | undefined = () => 1): GradeInput => ({
  question: question(words),
  words,
  terms: questionTerms(question(words), words, idf),
  evidence,
});
/** The one fact a text states. */
const fact = (text: string) => {
  const facts = readFacts(text);
  if (facts.length !== 1) throw new Error(`${text} states ${facts.length} facts`);
  return facts[0]!;
};

describe('numbers agree within rounding and units (quantity-agreement.ts)', () => {
  test.each([
    ['131万', '1,313,851'],
    ['1.31 million', '1,313,851'],
    ['$6.04 billion', '6,036 million'],
    ['6,036 million', '60.4亿美元'],
    ['$6.04 billion', '60.4亿美元'],
    ['3.5%', '3.52 %'],
    ['两千三百万', '23,000,000'],
    ['1.2万公里', '12,040 公里'],
    ['三亿五千万元', '3.5亿元'],
  ])('%s ≈ %s: the less precise one equals the other rounded to its last digit', (a, b) => {
    expect([factsAgree(fact(a), fact(b)), factsAgree(fact(b), fact(a))]).toEqual([true, true]);
  });

  test.each([
    ['45 km', '60 km'],
    ['131万', '150万'],
    ['1.31 million', '1,325,000'],
    ['3.5%', '3.56%'],
    ['1,000 元', '1,200 元'],
  ])('%s and %s disagree', (a, b) => {
    expect(factsAgree(fact(a), fact(b))).toBe(false);
  });

  test('a value in its base unit and the place of its last significant digit, the scale word multiplying both', () => {
    expect(readFacts('交付131万辆，营收60.4亿美元，增长3.52%')).toEqual([
      { kind: 'quantity', label: '131万', value: 1_310_000, place: 10_000, unit: null },
      { kind: 'quantity', label: '60.4亿美元', value: 6_040_000_000, place: 10_000_000, unit: 'usd' },
      { kind: 'quantity', label: '3.52%', value: 3.52, place: 0.01, unit: '%' },
    ]);
    expect(readFacts('1.5M users, 10k stars, a 7B model').map((f) => (f.kind === 'quantity' ? f.value : null))).toEqual([1_500_000, 10_000, 7_000_000_000]);
  });

  test('quantities of different units are not compared: 45 km and 3 小时, 12 人 and 6.1, US dollars and yuan', () => {
    expect([factsAgree(fact('45 km'), fact('3 小时')), factsAgree(fact('12人'), fact('6.1')), factsAgree(fact('$6.04 billion'), fact('60.4亿元'))]).toEqual([null, null, null]);
  });

  test('Chinese numerals: 亿 extends hanNumeralValue; words with a numeral in them state no number', () => {
    expect([hanNumeralValue('三亿五千万'), hanNumeralValue('三万亿'), hanNumeralValue('一百二十'), hanNumeralValue('三万五千')]).toEqual([350_000_000, 3e12, 120, 35_000]);
    expect([readFacts('十分重要'), readFacts('第十五届'), readFacts('千万不要')]).toEqual([[], [], []]);
  });
});

describe('dates in other formats agree (quantity-agreement.ts, english-dates.ts)', () => {
  test.each([
    ['2024-05-01', 'May 1, 2024'],
    ['1 May 2024', '2024年5月1日'],
    ['2024/5/1', '1 May 2024'],
    ['5月1日', 'May 1, 2024'],
    ['5月', 'May 2024'],
    ['in 2024', '2024年5月1日'],
  ])('%s = %s (a part one side leaves out is not compared)', (a, b) => {
    expect(factsAgree(fact(a), fact(b))).toBe(true);
  });

  test.each([
    ['in 2019', 'in 2021'],
    ['2024-05-01', 'May 2, 2024'],
    ['5月1日', '6月1日'],
  ])('%s and %s disagree', (a, b) => {
    expect(factsAgree(fact(a), fact(b))).toBe(false);
  });

  test('a month name must be capitalized (the verb "may" is no month); days outside 1–31 make no date', () => {
    expect(englishDates('You may 1 day see it. Sept. 3 and May 2024; May 45').map((d) => [d.surface, d.year, d.month, d.day])).toEqual([
      ['Sept. 3', null, 9, 3],
      ['May 2024', 2024, 5, null],
    ]);
  });

  test('dates that share no part are not compared: 5月1日 and 2024', () => {
    expect(factsAgree(fact('5月1日'), fact('2024年'))).toBeNull();
  });
});

describe('the facts an answering sentence states beyond the question (corroboration.ts)', () => {
  test('a fact the question states as precisely is left out; a more precise one is an answer', () => {
    expect(statedFacts('比亚迪5月交付131万辆', '比亚迪5月交付了多少辆新车？').map((f) => f.label)).toEqual(['131万']);
    expect(statedFacts('The meeting was held on May 20, 2024.', 'When in 2024 was the meeting?').map((f) => f.label)).toEqual(['May 20, 2024']);
  });
});

describe('documents that answer different parts of one question agree (part-terms.ts)', () => {
  const english = w('When/eng _/x were/eng _/x the/eng _/x swearing/eng -/x in/eng _/x and/eng _/x the/eng _/x first/eng _/x meeting/eng ?/x');
  const englishTerms = questionTerms(question(english), english, () => 1);
  const sworn = { sentence: 'The swearing-in took place on 10 May 2024.', ownNames: [] };
  const met = { sentence: 'The first meeting was held on May 20, 2024.', ownNames: [] };

  test('the parts: the pieces between 和/与/以及/and/commas, each told by its own terms that are not names', () => {
    expect(partTerms(english, englishTerms).map((part) => [part.text, part.terms.map((t) => t.term)])).toEqual([
      ['When were the swearing-in', ['swearing-in']],
      ['the first meeting?', ['first', 'meeting']],
    ]);
    const zh = w('张舒雅/x 的/uj 出生/v 年份/n 和/c 毕业/n 院校/n ？/x');
    expect(partTerms(zh, questionTerms(question(zh), zh, () => 1)).map((part) => part.terms.map((t) => t.term))).toEqual([['出生', '年份'], ['毕业', '院校']]);
    const one = w('地震/n 造成/v 多少/m 人/n 遇难/v ？/x');
    expect(partTerms(one, questionTerms(question(one), one, () => 1))).toEqual([]);
  });

  test('"When were the swearing-in and the first meeting?": two dates for two parts agree', () => {
    const found = agreement(sworn, met, question(english), englishTerms, partTerms(english, englishTerms));
    expect(found).toEqual({ agree: true, byFacts: false, why: 'they answer different parts of the question ("When were the swearing-in"; "the first meeting?")' });
  });

  test('the same two sentences for a question of one part disagree by their dates', () => {
    const one = w('When/eng _/x was/eng _/x the/eng _/x first/eng _/x meeting/eng ?/x');
    const terms = questionTerms(question(one), one, () => 1);
    const said = { sentence: 'The first meeting was held on 10 May 2024.', ownNames: [] };
    expect(agreement(said, met, question(one), terms, partTerms(one, terms))).toMatchObject({ agree: false, byFacts: true });
  });

  test('"张舒雅的出生年份和毕业院校？" over two profiles, each answering one part → answer, not scope_select', () => {
    const words = w('张舒雅/x 的/uj 出生/v 年份/n 和/c 毕业/n 院校/n ？/x');
    const evidence = [signal('明报 人物.md', '张舒雅出生于1990年，在香港长大。', ['明报']), signal('星岛 人物.md', '张舒雅毕业于香港大学新闻系。', ['星岛'])];
    const grade = EvidenceGrade.parse(offlineGrade(input(words, evidence, weights({ 张舒雅: 12 }))));
    expect(grade.route).toBe('answer');
    expect(grade.reason).toContain('they answer different parts of the question');
  });
});

describe('scope_select only for different subjects the question leaves open (grade-policy.ts weighCandidates)', () => {
  const deliveries = w('比亚迪/nz 5/m 月/m 交付/v 了/ul 多少/m 辆/q 新车/n ？/x');

  test('reports under different outlets that write 1,313,851 and 131万 corroborate → answer', () => {
    const evidence = [
      signal('新华网 比亚迪交付量.md', '比亚迪5月共交付新车1,313,851辆，创单月新高。', ['新华网']),
      signal('路透 比亚迪月度交付.md', '路透报道，比亚迪5月交付新车131万辆，同比增长38%。', ['路透']),
    ];
    const grade = EvidenceGrade.parse(offlineGrade(input(deliveries, evidence)));
    expect([grade.route, grade.hitl_options]).toEqual(['answer', []]);
    expect(grade.reason).toMatch(/2 sources corroborate it .*both state 1313851 ≈ 131万/);
  });

  test('a differing number alone is never a reason: reports whose headline names the other reports mention → answer', () => {
    const words = w('欧洲杯/nz 决赛/n 有/v 多少/m 名/q 观众/n 到场/v ？/x');
    const evidence = [
      signal('西班牙夺冠.md', '西班牙与英格兰的欧洲杯决赛有65,600名观众到场。', ['西班牙']),
      signal('英格兰憾负.md', '英格兰负于西班牙，这场欧洲杯决赛约有7万名观众到场。', ['英格兰']),
    ];
    const grade = EvidenceGrade.parse(offlineGrade(input(words, evidence)));
    expect([grade.route, grade.ambiguity]).toEqual(['answer', 'none']);
  });

  test('two products that differ on what the question leaves open → scope_select, their titles the options', () => {
    const range = w('续航/n 是/v 多少/m ？/x');
    const evidence = [
      signal('北极星X1 使用手册.md', '北极星X1 电动滑板车。续航约 45 公里。', ['北极星x1']),
      signal('天狼S2 使用手册.md', '天狼S2 电动滑板车。续航约 60 公里。', ['天狼s2']),
    ];
    const grade = EvidenceGrade.parse(offlineGrade(input(range, evidence)));
    expect([grade.route, grade.hitl_options]).toEqual(['scope_select', ['北极星X1 使用手册', '天狼S2 使用手册']]);
  });

  test('two documents under one title are not options to tell apart', () => {
    const range = w('续航/n 是/v 多少/m ？/x');
    const manual = (filename: string, text: string, names: string[]) => ({ ...signal(filename, text, names), title: '使用手册' });
    const evidence = [manual('beiji-x1.md', '北极星X1：续航约 45 公里。', ['北极星x1']), manual('tianlang-s2.md', '天狼S2：续航约 60 公里。', ['天狼s2'])];
    expect(offlineGrade(input(range, evidence)).route).toBe('answer');
  });
});
