import { ENGLISH_PROMPTS } from '../../../core/offline-policy/hitl-prompts';
import { CORROBORATION_BONUS, GRADE_THRESHOLDS, offlineGrade, type EvidenceSignal, type GradeInput } from '../../../core/offline-policy/grade-policy';
import { offlinePlan } from '../../../core/offline-policy/plan-policy';
import { namedWords, questionTerms, type TaggedWord } from '../../../core/offline-policy/question-terms';
import { offlineRewrite, questionSubject } from '../../../core/offline-policy/rewrite-policy';
import { holdsTerm, sentenceCoverage, termCoverage, textSimilarity } from '../../../core/offline-policy/term-coverage';
import { unresolvedSlot } from '../../../core/offline-policy/text-signals';
import { resolveRoute } from '../../../core/graph/resolve-route';
import { ComplexityResult, EvidenceGrade, RewritePlan } from '../../../core/schemas/model-outputs';

// Words as jieba's precise mode tags them (tag(text, true); "_" is a space); hard-coded so this test needs no tokenizer.
const w = (spec: string): TaggedWord[] =>
  spec.split(' ').map((item) => {
    const at = item.lastIndexOf('/');
    const word = item.slice(0, at);
    return { word: word === '_' ? ' ' : word, tag: item.slice(at + 1) };
  });
const W = {
  whichRole: w('这个/r 角色/n 的/uj 属性/n 是/v 什么/r ？/x'),
  resetPassword: w('如何/r 重置/n 密码/n ？/x'),
  auroraReset: w('Aurora/eng _/x 如何/r 重置/n 密码/n ？/x'),
  quantum: w('量子/n 计算机/n 的/uj 散热/v 方案/n ？/x'),
  thisProduct: w('这/r 款/m 产品/n 的/uj 价格/n 是/v 多少/m ？/x'),
  guestPassword: w('Aurora/eng 的/uj 访客/n 网络/n 密码/n ？/x'),
  champion: w('张舒雅/x 是/v 哪一年/r 香港/ns 小姐/nr 冠军/n ？/x'),
  country: w('诺丁汉郡/nr 隶属于/n 哪个/r 国家/n ？/x'),
  glued: w('黑/a 彩陶/n 器是/x 哪里/r 的/uj 陶器/n ？/x'),
  day8: w('8/m 日/m 发生/v 了/ul 什么/r ？/x'),
  title: w('《/x 伯尔尼/nr 条约/n 》/x 是/v 哪一年/r 签署/v 的/uj ？/x'),
  hotline: w('星途/nz 科技/n 的/uj 客服/n 热线/n 是/v 多少/m ？/x'),
  range: w('续航/n 是/v 多少/m ？/x'),
  quake: w('地震/n 造成/v 多少/m 人/n 遇难/v ？/x'),
};
const idf = (table: Record<string, number>) => (word: string) => table[word];
const flat = () => 1;
const question = (words: TaggedWord[]) => words.map((x) => x.word).join('');
const signal = (filename: string, text: string, titleNames: string[] = []): EvidenceSignal => ({ filename, title: filename.replace(/\.[^.]+$/, ''), text, titleNames });
const input = (words: TaggedWord[], evidence: EvidenceSignal[], weights: (word: string) => number | undefined = flat): GradeInput => ({
  question: question(words),
  words,
  terms: questionTerms(question(words), words, weights),
  evidence,
});
const aurora = signal('Aurora路由器手册.md', 'Aurora 路由器。重置密码：长按 reset 键 10 秒。', ['aurora']);
const nimbus = signal('Nimbus摄像头手册.md', 'Nimbus 摄像头。重置密码：在 App 中选择设备。', ['nimbus']);
const routeOf = (grade: EvidenceGrade, rewriteCount = 0) => resolveRoute(grade, { hasDocs: true, rewriteCount, isSubAgent: false });

describe('offline policy v2: question terms (precise-mode words, IDF, what the question names)', () => {
  test('function words, question words and particles are not terms; each word counts once', () => {
    expect(questionTerms(question(W.whichRole), W.whichRole, flat).map((t) => t.term)).toEqual(['角色', '属性']);
    expect(questionTerms(question(W.quantum), W.quantum, flat).map((t) => t.term)).toEqual(['量子', '计算机', '散热', '方案']);
  });

  test('names are required: proper nouns, words jieba does not know, Latin names and numbers (whole tokens)', () => {
    const terms = questionTerms(question(W.champion), W.champion, flat);
    expect(terms.filter((t) => t.required).map((t) => t.term)).toEqual(['张舒雅', '香港', '小姐']);
    expect(questionTerms(question(W.auroraReset), W.auroraReset, flat)[0]).toEqual({ term: 'aurora', weight: 1, required: true, exact: true });
    expect(questionTerms(question(W.day8), W.day8, flat)[0]).toMatchObject({ term: '8', required: true, exact: true });
  });

  test('the kind a question word asks for (哪个国家) weighs ANSWER_TYPE_FACTOR and is never required', () => {
    const terms = questionTerms(question(W.country), W.country, idf({ 诺丁汉郡: 12.8, 隶属于: 8.2, 国家: 4 }));
    expect(terms).toEqual([
      { term: '诺丁汉郡', weight: 12.8, required: true, exact: false },
      { term: '隶属于', weight: 8.2, required: false, exact: false },
      { term: '国家', weight: 1, required: false, exact: false },
    ]);
  });

  test('weights are the IDF, the median for words the table does not know', () => {
    const terms = questionTerms(question(W.quantum), W.quantum, idf({ 量子: 9, 计算机: 5 }));
    expect(terms.map((t) => t.weight)).toEqual([9, 5, 11.7, 11.7]);
  });

  test('an unknown word loses the particle jieba glued on; a title in 《》 is one required term', () => {
    expect(questionTerms(question(W.glued), W.glued, flat).find((t) => t.term === '器')).toEqual({ term: '器', weight: 1, required: false, exact: false });
    expect(questionTerms(question(W.title), W.title, flat).map((t) => [t.term, t.required])).toEqual([['伯尔尼条约', true], ['签署', false]]);
  });

  test("a document title's names: products and entities, not serial labels", () => {
    expect(namedWords('Aurora X2 路由器', w('Aurora/eng _/x X2/eng _/x 路由器/n'))).toEqual(['aurora', 'x2']);
    expect(namedWords('DEV_519', w('DEV_519/eng'))).toEqual([]);
  });
});

describe('offline policy v2: coverage', () => {
  const terms = questionTerms(question(W.auroraReset), W.auroraReset, flat);

  test('numbers and Latin words match whole tokens: "8" is not in "28日", "2008" is in "2008年"', () => {
    const eight = { term: '8', weight: 1, required: true, exact: true };
    expect(holdsTerm('他于28日出生', eight)).toBe(false);
    expect(holdsTerm('2.8 倍', eight)).toBe(false);
    expect(holdsTerm('8日发生地震', eight)).toBe(true);
    expect(holdsTerm('2008年', { term: '2008', weight: 1, required: true, exact: true })).toBe(true);
    expect(holdsTerm('aurora2 手册', { term: 'aurora', weight: 1, required: true, exact: true })).toBe(false);
  });

  test('weighted share and the required terms a text lacks', () => {
    expect(termCoverage(terms, aurora.text)).toEqual({ share: 1, missingRequired: [] });
    expect(termCoverage(terms, nimbus.text)).toEqual({ share: 2 / 3, missingRequired: ['aurora'] });
    expect(termCoverage([], 'x').share).toBe(0);
  });

  test("sentence coverage: the question's words meet in one sentence; its names may be anywhere in the chunk", () => {
    expect(sentenceCoverage(terms, 'Aurora 路由器。重置密码：长按 reset 键。').share).toBe(1);
    expect(sentenceCoverage(terms, 'Aurora 路由器。可以重置。密码在背面。').share).toBeCloseTo(2 / 3);
  });

  test('near-duplicates: the same sentences in another order are similar, different documents are not', () => {
    expect(textSimilarity('甲乙丙。丁戊己。', '丁戊己。甲乙丙。')).toBeGreaterThan(GRADE_THRESHOLDS.duplicate);
    expect(textSimilarity(aurora.text, nimbus.text)).toBeLessThan(GRADE_THRESHOLDS.duplicate);
  });

  test('a reference with no named subject leaves a slot open; naming one closes it', () => {
    expect(unresolvedSlot(['这个', '角色', '的', '属性'], ['角色', '属性'])).toBe('角色名');
    expect(unresolvedSlot(['丹瑾', '这个', '属性'], ['丹瑾', '属性'])).toBeNull();
    expect(unresolvedSlot(['what', 'is', 'the', 'price', 'of', 'it'], ['price'])).toBe('the specific item');
  });
});

describe('offline policy v2: grader (docs/offline-policy.md)', () => {
  test('answer: one document holds the question and everything it names', () => {
    const grade = EvidenceGrade.parse(offlineGrade(input(W.auroraReset, [aurora, nimbus])));
    expect([grade.relevance, grade.answerability, grade.route, routeOf(grade)]).toEqual(['strong', 'sufficient', 'answer', 'answer']);
  });

  test('scope_select: documents about different things answer a question that names none, offered by title', () => {
    const grade = EvidenceGrade.parse(offlineGrade(input(W.resetPassword, [aurora, nimbus])));
    expect(grade.ambiguity).toBe('multiple_candidates');
    expect(grade.hitl_options).toEqual(['Aurora路由器手册', 'Nimbus摄像头手册']);
    expect(routeOf(grade)).toBe('scope_select');
  });

  test('agreeing sources are one answer, not a choice: a near-duplicate under another name', () => {
    const copy = signal('Aurora路由器手册（转载）.md', '重置密码：长按 reset 键 10 秒。Aurora 路由器。', ['aurora', '转载']);
    const grade = offlineGrade(input(W.resetPassword, [aurora, copy]));
    expect(grade.route).toBe('answer');
  });

  // Issue 32 §1: several sources for one fact corroborate; ambiguity is candidates that disagree on what is left open.
  const beiji = signal('北极星X1 使用手册.md', '北极星X1 电动滑板车。续航约 45 公里，最高时速 25 公里。星途科技客服热线：400-820-1234。', ['北极星x1']);
  const tianlang = signal('天狼S2 使用手册.md', '天狼S2 电动滑板车。续航约 60 公里，最高时速 30 公里。星途科技客服热线：400-820-1234。', ['天狼s2']);

  test('corroboration: manuals of different products that repeat the company hotline answer "星途科技的客服热线是多少？"', () => {
    const grade = EvidenceGrade.parse(offlineGrade(input(W.hotline, [beiji, tianlang])));
    expect([grade.route, grade.ambiguity, routeOf(grade)]).toEqual(['answer', 'none', 'answer']);
    expect(grade.reason).toMatch(/2 sources corroborate it \(北极星X1 使用手册 and 天狼S2 使用手册 agree: both state 400/);
  });

  test('ambiguity: the same manuals disagree on the range, which the question leaves open → scope_select naming the facts', () => {
    const grade = EvidenceGrade.parse(offlineGrade(input(W.range, [beiji, tianlang])));
    expect([grade.route, grade.hitl_options]).toEqual(['scope_select', ['北极星X1 使用手册', '天狼S2 使用手册']]);
    expect(grade.reason).toContain('disagree: one states 45km, 25km, the other 60km, 30km');
  });

  test('ambiguity on the sample manuals: a heading that repeats the question is not an answer that agrees (10 秒 vs 5 秒)', () => {
    const words = w('怎么/r 重置/v 管理/vn 密码/n ？/x');
    const router = signal('Aurora X2 路由器.md', '## 重置管理密码\n\nAurora X2 路由器重置管理密码的方法：接通电源后，用牙签长按机身背面的 RESET 孔 10 秒，指示灯闪烁后松开。', ['aurora', 'x2']);
    const camera = signal('Nimbus C1 摄像头.md', '## 重置管理密码\n\nNimbus C1 摄像头重置管理密码的方法：打开 Nimbus App，选择"重置管理密码"；也可以长按机身底部按键 5 秒恢复出厂设置。', ['nimbus', 'c1']);
    const grade = EvidenceGrade.parse(offlineGrade(input(words, [router, camera])));
    expect([grade.route, grade.hitl_options]).toEqual(['scope_select', ['Aurora X2 路由器', 'Nimbus C1 摄像头']]);
    expect(grade.reason).toMatch(/Aurora X2 路由器 and Nimbus C1 摄像头 disagree: their answering sentences differ/);
  });

  test('corroboration: three reports of one news event, worded apart, under different outlets\' names', () => {
    const reports = [
      signal('新华社 山区地震报道.md', '当地时间3日凌晨，山区发生6.1级地震，地震造成12人遇难，救援仍在进行。', ['新华社']),
      signal('路透 山区地震报道.md', '周三凌晨的6.1级地震已造成12人遇难，另有数十人受伤。', ['路透']),
      signal('美联社 山区地震报道.md', '官方称，这场地震造成至少12人遇难，震级为6.1级。', ['美联社']),
    ];
    const grade = EvidenceGrade.parse(offlineGrade(input(W.quake, reports)));
    expect([grade.route, routeOf(grade)]).toEqual(['answer', 'answer']);
    expect(grade.reason).toMatch(/3 sources corroborate it .*both state 6\.1/);
    // Each further source adds CORROBORATION_BONUS to the confidence, when the best chunk alone holds less than all.
    const partly = w('地震/n 造成/v 多少/m 人/n 遇难/v 和/c 失踪/v ？/x');
    const alone = EvidenceGrade.parse(offlineGrade(input(partly, reports.slice(0, 1))));
    const together = EvidenceGrade.parse(offlineGrade(input(partly, reports)));
    expect([alone.route, together.route]).toEqual(['answer', 'answer']);
    expect(together.confidence).toBeCloseTo(Math.min(1, alone.confidence + 2 * CORROBORATION_BONUS), 5);
    expect(alone.confidence).toBeLessThan(1);
  });

  test('documents named by serial labels (DEV_519) are not different things', () => {
    const a = signal('DEV_1.txt', '重置密码：长按 reset 键 10 秒。');
    const b = signal('DEV_2.txt', '如需重置密码，请在 App 中选择设备。');
    expect(offlineGrade(input(W.resetPassword, [a, b])).route).toBe('answer');
  });

  test('a name the question gives and the evidence never holds: rewrite, then no_knowledge', () => {
    const grade = EvidenceGrade.parse(offlineGrade(input(W.day8, [signal('a.txt', '28日发生了地震。')])));
    expect([grade.answerability, grade.route, routeOf(grade, 1)]).toEqual(['none', 'rewrite', 'no_knowledge']);
    expect(grade.reason).toContain('"8"');
  });

  test('clarify: "这个角色" names no role; "这款产品" (这 + 款 + 产品) names no product', () => {
    const role = EvidenceGrade.parse(offlineGrade(input(W.whichRole, [signal('a.md', '丹瑾的属性是虚数')])));
    expect([role.ambiguity, role.missing_slots, routeOf(role)]).toEqual(['missing_slot', ['角色名'], 'clarify']);
    const evidence = [signal('Aurora X2 路由器.md', 'Aurora X2 路由器的产品价格为 399 元', ['aurora', 'x2']), signal('Nimbus C1 摄像头.md', 'Nimbus C1 摄像头的产品价格为 299 元', ['nimbus', 'c1'])];
    const product = offlineGrade(input(W.thisProduct, evidence));
    expect([product.route, product.missing_slots]).toEqual(['clarify', ['产品型号']]);
  });

  test('no_knowledge: the evidence shares almost nothing with the question', () => {
    const grade = EvidenceGrade.parse(offlineGrade(input(W.quantum, [aurora])));
    expect([grade.relevance, routeOf(grade)]).toEqual(['none', 'no_knowledge']);
  });

  test('rewrite, then clarify once the budget is spent: partial coverage', () => {
    const grade = EvidenceGrade.parse(offlineGrade(input(W.guestPassword, [aurora])));
    expect([grade.answerability, grade.route]).toEqual(['partial', 'rewrite']);
    expect(routeOf(grade, 0)).toBe('rewrite');
    expect(routeOf(grade, 1)).toBe('clarify');
  });

  test('no evidence → no_knowledge', () => {
    expect(offlineGrade(input(W.resetPassword, [])).route).toBe('no_knowledge');
  });

  test('HITL prompts: Chinese questions leave them to the spec defaults, English ones get them in English', () => {
    expect(offlineGrade(input(W.resetPassword, [aurora, nimbus])).hitl_prompt).toBe('');
    const english = w('How/eng _/x do/eng _/x I/eng _/x reset/eng _/x the/eng _/x password/eng ?/x');
    const docs = [signal('Aurora.md', 'Aurora: reset the password with the reset key.', ['aurora']), signal('Nimbus.md', 'Nimbus: reset the password in the app.', ['nimbus'])];
    const scope = offlineGrade(input(english, docs));
    expect([scope.route, scope.hitl_prompt]).toEqual(['scope_select', ENGLISH_PROMPTS.scope_select]);
    const it = w('What/eng _/x is/eng _/x the/eng _/x price/eng _/x of/eng _/x it/eng ?/x');
    const priced = [signal('Aurora.md', 'Aurora: the price is 399.', ['aurora']), signal('Nimbus.md', 'Nimbus: the price is 299.', ['nimbus'])];
    const slot = offlineGrade(input(it, priced));
    expect([slot.route, slot.hitl_prompt]).toEqual(['clarify', `${ENGLISH_PROMPTS.missingSlotsPrefix}the specific item`]);
  });
});

describe('offline policy: planner', () => {
  test.each([
    ['比较丹瑾与卡卡罗的战斗定位', ['丹瑾的战斗定位', '卡卡罗的战斗定位']],
    ['Aurora 和 Nimbus 的价格区别', ['Aurora的价格', 'Nimbus的价格']],
    ['对比 Aurora 与 Nimbus', ['Aurora是什么', 'Nimbus是什么']],
    ['Compare Aurora and Nimbus in terms of price', ['What is the price of Aurora?', 'What is the price of Nimbus?']],
    ['Aurora 支持哪些协议？另外 Nimbus 的保修期多久？', ['Aurora 支持哪些协议', 'Nimbus 的保修期多久？']],
  ])('%s → complex %j', (q, subQuestions) => {
    expect(ComplexityResult.parse(offlinePlan(q))).toMatchObject({ complexity: 'complex', sub_questions: subQuestions });
  });

  test.each(['请介绍一下这个系统的整体部署架构设计思路', '如何重置密码？', 'Aurora 与 Nimbus'])('%s → simple', (q) => {
    expect(offlinePlan(q)).toMatchObject({ complexity: 'simple', sub_questions: [] });
  });
});

describe('offline policy v2: rewriter', () => {
  test('a step-back question from the subject: its words once each, in order and spelling, within the schema', () => {
    const terms = questionTerms(question(W.guestPassword), W.guestPassword, flat);
    const plan = RewritePlan.parse(offlineRewrite('Aurora 的访客网络密码？', W.guestPassword, terms));
    expect(plan).toEqual({ method: 'step_back', step_back_question: 'Aurora访客网络密码的基本概念、原理和相关说明是什么？', hyde_document: '' });
    const english = w('guest/eng _/x network/eng _/x password/eng ?/x');
    expect(offlineRewrite('guest network password?', english, questionTerms('guest network password?', english, flat)).step_back_question).toBe(
      'What is the general background of guest network password?',
    );
  });

  test('no duplicated fragments: "百花奖最佳影片奖", titles whole', () => {
    const words = w('哪部/r 电影/n 获得/v 了/ul 百花奖/nz 最佳影片/n 奖/n ？/x');
    expect(questionSubject(words, questionTerms(question(words), words, flat))).toBe('电影获得百花奖最佳影片奖');
    expect(questionSubject(W.title, questionTerms(question(W.title), W.title, flat))).toBe('《伯尔尼条约》签署');
  });
});

describe('offline policy v2: shares at a threshold (issue 26 §2–§3)', () => {
  test('3 of 5 equal weights is the sufficient 0.6, not the 0.5999… their float sum gives: the evidence answers', () => {
    const words = w('补丁/n 修复/n 漏洞/n 公告/n 发布/n 是/v 什么/r ？/x');
    const weights = idf({ 补丁: 11.7, 修复: 11.7, 漏洞: 11.7, 公告: 11.7, 发布: 11.7 });
    const terms = questionTerms(question(words), words, weights);
    expect(terms.map((t) => [t.term, t.weight])).toEqual(['补丁', '修复', '漏洞', '公告', '发布'].map((term) => [term, 11.7]));
    // The share the grader compared with the threshold before: three weights over five, summed in floating point.
    expect((11.7 + 11.7 + 11.7) / (11.7 + 11.7 + 11.7 + 11.7 + 11.7)).toBeLessThan(0.6);
    const grade = EvidenceGrade.parse(offlineGrade(input(words, [signal('notes.md', '本次发布修复了漏洞。')], weights)));
    expect(grade.route).toBe('answer');
    expect(grade.reason).toContain('0.6');
  });
});
