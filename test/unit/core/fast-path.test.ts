import {
  COMPLEX_MARKERS,
  DIMENSION_MARKERS,
  FAST_PATH_SHORT_SINGLE_INTENT as SHORT,
  FAST_PATH_SINGLE_FACT as FACT,
  SIMPLE_MARKERS,
  normalizeForFastPath,
  simpleQuestionFastPathReason,
} from '../../../core/graph/fast-path';

describe('simple-question fast path (spec §4.2.1)', () => {
  // The table of T35, spec §9, verbatim.
  test.each([
    ['how many users are there', null],
    ['What is BM25?', FACT],
    ['A、B 是什么', null],
    ['X 的 价格 参数', null],
    ['丹瑾的价格参数是多少', null],
    ['是什么？是谁？', null],
    ['ABCDEFGHIJKLMNOPQRS', null],
    ['ABCDEFGHIJKLMNOPQR?', SHORT],
    ['x'.repeat(49), null],
    ['why', SHORT],
    ['why is it blue', null],
    ['参与人数是多少', null],
  ])('T35 fast-path table: %j → %s', (question, expected) => {
    expect(simpleQuestionFastPathReason(question)).toBe(expected);
  });

  // "Consequences worth testing" of spec §4.2.1 and the questions of T01–T03.
  test.each([
    ['丹瑾是什么属性？', FACT, 'T01 question: 是什么 is a simple marker'],
    ['covered question', SHORT, 'T02 question: 16 characters'],
    ['请介绍一下这个系统的整体部署架构设计思路', null, 'T03 question: 20 characters, no marker'],
    ['丹瑾 属性', FACT, '属性 is a dimension and a simple marker; one space'],
    ['丹瑾 的 属性', null, 'CJK and 2 spaces'],
    ['how many', null, '"how many" is a simple marker, but "how " is a complex one first'],
    ['比较丹瑾与卡卡罗的战斗定位', null, 'complex markers'],
  ])('%j → %s (%s)', (question, expected, _why) => {
    expect(simpleQuestionFastPathReason(question)).toBe(expected);
  });

  describe('each rule in order', () => {
    test('rule 1: empty or whitespace-only → none', () => {
      expect(simpleQuestionFastPathReason('')).toBeNull();
      expect(simpleQuestionFastPathReason(' \t\n\u3000 ')).toBeNull();
    });

    test('rule 1: length is counted in code points after normalization', () => {
      const astral = '𠀀'; // one code point, two UTF-16 units, outside U+4E00–U+9FFF
      expect(simpleQuestionFastPathReason(astral.repeat(18))).toBe(SHORT);
      expect(simpleQuestionFastPathReason(astral.repeat(19))).toBeNull();
    });

    test('rule 1: 48 code points may still hit a marker, 49 never', () => {
      expect(simpleQuestionFastPathReason(`${'a'.repeat(45)}是什么`)).toBe(FACT);
      expect(simpleQuestionFastPathReason(`${'a'.repeat(46)}是什么`)).toBeNull();
    });

    test.each(COMPLEX_MARKERS.map((marker) => [marker]))('rule 2: complex marker %j disables the fast path', (marker) => {
      expect(simpleQuestionFastPathReason(`x ${marker} y`)).toBeNull();
    });

    test('rule 2: "why"/"how" count only with a trailing space', () => {
      expect(simpleQuestionFastPathReason('how')).toBe(SHORT);
      expect(simpleQuestionFastPathReason('somehow?')).toBe(SHORT);
      expect(simpleQuestionFastPathReason('how come')).toBeNull();
    });

    test('rule 2 sees the normalized text: upper case and whitespace runs', () => {
      expect(simpleQuestionFastPathReason('COMPARE')).toBeNull();
      expect(simpleQuestionFastPathReason('Pros\t \nand   Cons')).toBeNull();
      expect(simpleQuestionFastPathReason('WHY\u00a0so')).toBeNull();
    });

    test('rule 3: the enumeration comma 、 disables it', () => {
      expect(simpleQuestionFastPathReason('甲、乙')).toBeNull();
    });

    test('rule 4: CJK with at least 2 spaces; non-CJK with 2 spaces is fine', () => {
      expect(simpleQuestionFastPathReason('丹瑾 a b')).toBeNull();
      expect(simpleQuestionFastPathReason('a b c')).toBe(SHORT);
    });

    test.each(DIMENSION_MARKERS.map((marker) => [marker]))('rule 5: dimension %j alone does not count', (marker) => {
      expect(simpleQuestionFastPathReason(`丹瑾${marker}`)).not.toBeNull();
    });

    test('rule 5: two distinct dimensions disable it; the same one twice does not', () => {
      expect(simpleQuestionFastPathReason('武器技能')).toBeNull();
      expect(simpleQuestionFastPathReason('武器武器')).toBe(SHORT);
    });

    test('rule 6: more than one of ? ？ ; ；', () => {
      expect(simpleQuestionFastPathReason('a?b;')).toBeNull();
      expect(simpleQuestionFastPathReason('a；b；')).toBeNull();
      expect(simpleQuestionFastPathReason('a?')).toBe(SHORT);
    });

    test.each(SIMPLE_MARKERS.filter((marker) => marker !== 'how many').map((marker) => [marker]))(
      'rule 7: simple marker %j → single_fact_marker, even past 18 characters',
      (marker) => {
        expect(simpleQuestionFastPathReason(`${marker} abcdefghijklmnopqrstuvwxyz`)).toBe(FACT);
      },
    );

    test('rule 8: trailing ?？。.!！ are stripped before measuring; others are not', () => {
      expect(simpleQuestionFastPathReason(`${'a'.repeat(18)}!。.！?`)).toBe(SHORT);
      expect(simpleQuestionFastPathReason(`${'a'.repeat(18)}~`)).toBeNull();
    });
  });

  test('normalization: trim, collapse Unicode whitespace runs into one space, lower-case', () => {
    expect(normalizeForFastPath('  A\u3000\u3000B\t\nC  ')).toBe('a b c');
  });
});
