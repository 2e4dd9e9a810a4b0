import { extractiveAnswer } from '../../../core/answer/extractive-answer';
import { verifyAnswer } from '../../../core/answer/verify-answer';

// Tokens as jieba's search mode gives them (the adapter tokenizes; the answerer is pure).
const tokens = (text: string): string[] => text.split(/\s+/).filter(Boolean);

describe('extractiveAnswer', () => {
  const documents = [
    'Nimbus C1 是一款室内摄像头。它支持最大 256GB 的 microSD 存储卡，并支持云存储。夜视距离为 10 米。',
    'Nimbus C2 是户外款。防水等级 IP66。',
  ];

  test('quotes the sentence that holds the question\'s terms, cited with itself, and always verifies', () => {
    const question = 'Nimbus C1 摄像头支持多大的存储卡？';
    const draft = extractiveAnswer(question, tokens('nimbus c1 摄像 摄像头 支持 多大 的 存储 存储卡 ？'), documents);
    expect(draft.answer).toContain('256GB');
    expect(draft.citations).toContainEqual({ marker: expect.any(Number), doc_index: 1, quote: '它支持最大 256GB 的 microSD 存储卡，并支持云存储。' });
    expect(draft.citations.length).toBeLessThanOrEqual(3);
    expect(verifyAnswer(draft, documents).status).toBe('verified');
  });

  test('keeps reading order and numbers markers in it', () => {
    const draft = extractiveAnswer('IP66 防水 的 是 哪款', tokens('ip66 防水 的 是 哪款'), documents);
    expect(draft.citations.map((citation) => citation.doc_index)).toEqual([...draft.citations.map((c) => c.doc_index)].sort());
    expect(draft.citations.map((citation) => citation.marker)).toEqual(draft.citations.map((_, i) => i + 1));
    expect(draft.answer).toContain('IP66');
    expect(verifyAnswer(draft, documents).status).toBe('verified');
  });

  test('English questions get English sentence ends; no evidence gives an empty draft', () => {
    const draft = extractiveAnswer('How far does night vision reach?', tokens('night vision reach'), ['Night vision reaches 10 m. It records 2K video.']);
    expect(draft.answer).toBe('Night vision reaches 10 m[1].');
    expect(extractiveAnswer('q', tokens('q'), [])).toEqual({ answer: '', citations: [] });
  });

  describe('the sentence that states what the question asks for (question slot)', () => {
    const note = [
      '==========================',
      'Django 4.2.1 release notes',
      '==========================',
      '',
      '*May 3, 2023*',
      '',
      'Django 4.2.1 fixes a security issue with severity "low" and several bugs in',
      '4.2.',
      '',
      'CVE-2023-31047: Potential bypass of validation when uploading multiple files using one form field',
      '=================================================================================================',
      '',
      'Uploading multiple files using one form field has never been supported.',
      '',
      'Bugfixes',
      '========',
      '',
      '* Fixed a regression in Django 4.2 that caused a crash of ``QuerySet.defer()``',
      '  when deferring fields by attribute names.',
    ].join('\n');
    const branchNote = note.replaceAll('4.2.1', '4.1.9').replace('bugs in\n4.2.', 'bugs in\n4.1.8.');
    const question = 'Which Django releases fixed the potential bypass of validation when uploading multiple files using one form field?';
    const questionTokens = tokens('django releases fixed potential bypass validation uploading multiple files using one form field');

    test('"which releases" is answered with the release each document names, the lead above the fix, wrapped lines joined', () => {
      const draft = extractiveAnswer(question, questionTokens, [note]);
      expect(draft.answer).toBe(
        'Django 4.2.1 fixes a security issue with severity "low" and several bugs in 4.2[1]. CVE-2023-31047: Potential bypass of validation when uploading multiple files using one form field[2].',
      );
      expect(verifyAnswer(draft, [note]).status).toBe('verified');
    });

    test('a near-duplicate in another release\'s notes adds its release; an unrelated document does not', () => {
      const unrelated = 'Django 5.0.1 release notes\nDjango 5.0.1 fixes several bugs in 5.0.';
      const draft = extractiveAnswer(question, questionTokens, [note, unrelated, branchNote]);
      expect(draft.answer).toContain('Django 4.2.1 fixes');
      expect(draft.answer).toContain('Django 4.1.9 fixes');
      expect(draft.answer).not.toContain('5.0.1');
      expect(draft.citations.length).toBeLessThanOrEqual(3);
      expect(verifyAnswer(draft, [note, unrelated, branchNote]).status).toBe('verified');
    });

    test('another note\'s release, quoted for the common words, is left out: the release is the fix\'s own note\'s', () => {
      const other = 'Django 5.2.18 release notes\n\nDjango 5.2.18 fixes one security issue and provides a fix for a mitigation in 5.2.17.';
      const draft = extractiveAnswer('Which Django releases fix CVE-2023-31047?', tokens('django releases fix cve-2023 31047'), [other, note]);
      expect(draft.answer).toContain('Django 4.2.1 fixes');
      expect(draft.answer).toContain('CVE-2023-31047');
      expect(draft.answer).not.toContain('5.2.18');
    });

    test('without a slot the answer is the sentences on the question, as before', () => {
      const draft = extractiveAnswer('What is the potential bypass of validation when uploading multiple files?', questionTokens, [note]);
      expect(draft.answer).not.toContain('4.2.1');
    });

    test('Chinese: 哪个版本 takes the sentence with the version; 什么时候 the one with the date', () => {
      const manual = '北极星 X1 固件说明。\n固件 2.3.1 起支持双频 Wi-Fi。\n双频 Wi-Fi 可在设置中开启。\n该功能于 2024 年 3 月发布。';
      const which = extractiveAnswer('北极星X1哪个版本开始支持双频Wi-Fi？', tokens('北极星 x1 哪个 版本 开始 支持 双频 wi-fi'), [manual]);
      expect(which.answer).toContain('2.3.1');
      const when = extractiveAnswer('双频 Wi-Fi 是什么时候发布的？', tokens('双频 wi-fi 什么 时候 发布'), [manual]);
      expect(when.answer).toContain('2024 年 3 月');
    });

    test('an amount: "how many" adds the sentence with the number when the best one has none', () => {
      const manual = 'The Zephyr K7 blender ships with spare blades.\nThe box holds 4 spare blades and a brush.';
      const draft = extractiveAnswer('How many spare blades does the Zephyr K7 ship with?', tokens('zephyr k7 spare blades ship'), [manual]);
      expect(draft.answer).toContain('4 spare blades');
    });
  });
});
