import { answerSentences } from '../../../core/answer/answer-sentences';
import { extractiveAnswer } from '../../../core/answer/extractive-answer';
import { verifyAnswer } from '../../../core/answer/verify-answer';
import { AnswerDraft, MAX_ANSWER_CITATIONS } from '../../../core/schemas/answer';

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

  // A command reference page in the usual shape (written for this test): a title, a one-line description, then
  // entries, each a description and, after a blank line, its command.
  const PACK_PAGE = [
    '# pack',
    '',
    '> Bundle files into one archive.',
    '',
    '- Bundle files into a new archive:',
    '',
    '`pack create path/to/archive.pk path/to/file1 path/to/file2`',
    '',
    '- Unpack an archive into a chosen directory:',
    '',
    '`pack extract path/to/archive.pk --into path/to/directory`',
    '',
    '- Remove old logs, then bundle the rest:',
    '',
    "`find . -name '*.log' -delete; pack create rest.pk .`",
  ].join('\n');

  describe('command pages: the command line under the chosen entry is part of the answer', () => {
    test('the entry is quoted with its command, each cited verbatim, and the answer verifies', () => {
      const draft = extractiveAnswer('How do I unpack an archive into another directory?', tokens('unpack archive another directory'), [PACK_PAGE]);
      expect(draft.answer).toBe('Unpack an archive into a chosen directory[1]:\n`pack extract path/to/archive.pk --into path/to/directory`[2]');
      expect(draft.citations).toEqual([
        { marker: 1, doc_index: 1, quote: '- Unpack an archive into a chosen directory:' },
        { marker: 2, doc_index: 1, quote: '`pack extract path/to/archive.pk --into path/to/directory`' },
      ]);
      expect(verifyAnswer(draft, [PACK_PAGE]).status).toBe('verified');
    });

    test('a question naming the flag gets the same entry: a command line is part of its entry, not a sentence alone', () => {
      const draft = extractiveAnswer('What does --into do?', tokens('--into'), [PACK_PAGE]);
      expect(draft.answer).toContain('Unpack an archive into a chosen directory[1]:');
      expect(draft.answer).toContain('--into path/to/directory');
    });

    test('a command with "; " and ". " in it stays one cited line', () => {
      const draft = extractiveAnswer('How do I remove old logs?', tokens('remove old logs'), [PACK_PAGE]);
      expect(draft.answer).toBe("Remove old logs, then bundle the rest[1]:\n`find . -name '*.log' -delete; pack create rest.pk .`[2]");
      expect(verifyAnswer(draft, [PACK_PAGE])).toMatchObject({ status: 'verified', uncited_sentences: [] });
    });

    test('a fenced block and prompt lines under a sentence are quoted as code, the rest of the document is not', () => {
      const readme = 'Install it with pip.\n\n```sh\n$ pip install pack\n$ pack --version\n```\n\nThe archive format is documented elsewhere.';
      const draft = extractiveAnswer('How do I install pack?', tokens('install pack'), [readme]);
      expect(draft.answer).toBe('Install it with pip[1]:\n`$ pip install pack`[2]\n`$ pack --version`[2]');
      expect(draft.citations[1]).toEqual({ marker: 2, doc_index: 1, quote: '$ pip install pack\n$ pack --version' });
      expect(verifyAnswer(draft, [readme]).status).toBe('verified');
    });
  });

  test('a later sentence of an entry that opens with an option is quoted with the entry\'s option', () => {
    const page = '# squeeze\n\n- `-c, --stdout`: Write the output on standard output; keep the original files unchanged.\n- `-d`: Decompress.';
    const draft = extractiveAnswer('How do I keep the original files unchanged?', tokens('keep original files unchanged'), [page]);
    expect(draft.answer).toBe('`-c, --stdout`: Write the output on standard output[1]. keep the original files unchanged[2].');
    expect(verifyAnswer(draft, [page]).status).toBe('verified');
  });

  test('never more citations than the draft allows, however many example blocks the sentences have', () => {
    // Three entries, each on one of the question's words, each with 6 blocks: 3 × 7 markers would be 21.
    const entry = (word: string) => `- Set up ${word}:\n\n${Array.from({ length: 6 }, (_, j) => `\`pack setup ${word} ${j}\``).join('\n\n')}`;
    const page = ['alpha', 'beta', 'gamma'].map(entry).join('\n\n');
    const draft = extractiveAnswer('How do I set up alpha, beta and gamma together?', tokens('alpha beta gamma'), [page]);
    expect(draft.answer).toContain('Set up gamma');
    expect(draft.citations.length).toBeLessThanOrEqual(MAX_ANSWER_CITATIONS);
    expect(AnswerDraft.safeParse(draft).success).toBe(true);
    expect(verifyAnswer(draft, [page]).status).toBe('verified');
  });

  describe("a caller's sentence score (meaning) combined with the word score", () => {
    // Every entry holds "rebase" (in its command); only the word "conflicts" tells them apart by words, and it names
    // the wrong entry: the question asks to cancel.
    const page = [
      '# vcs rebase',
      '',
      '- Continue after resolving conflicts:',
      '',
      '`vcs rebase --continue`',
      '',
      '- Skip the commit whose changes clash:',
      '',
      '`vcs rebase --skip`',
      '',
      '- Give up the rebase and return to where it began:',
      '',
      '`vcs rebase --abort`',
    ].join('\n');
    const question = "I'm in a rebase with conflicts; how do I cancel it entirely?";
    const questionTokens = tokens("i'm rebase conflicts cancel entirely");

    test('without it the words choose (as before); with it the sentence closest in meaning is quoted', () => {
      expect(extractiveAnswer(question, questionTokens, [page]).answer).toContain('--continue');
      // As an embedding model scores: all close, the right one a little closer.
      const similarity = (_doc: number, sentence: string) => (sentence.startsWith('- Give up') ? 0.86 : 0.81);
      const draft = extractiveAnswer(question, questionTokens, [page], { sentenceScore: similarity });
      expect(draft.answer).toBe('Give up the rebase and return to where it began[1]:\n`vcs rebase --abort`[2]');
      expect(verifyAnswer(draft, [page]).status).toBe('verified');
    });

    test('the caller scores the quotable sentences (answerSentences), is told the question, and equal scores change nothing', () => {
      const asked: string[] = [];
      const seen: string[] = [];
      extractiveAnswer(question, questionTokens, [page], {
        sentenceScore: (doc, sentence, askedQuestion) => {
          seen.push(`${doc}:${sentence}`);
          asked.push(askedQuestion);
          return 0.5;
        },
      });
      expect(seen).toEqual(answerSentences([page]).map((sentence) => `${sentence.doc}:${sentence.text}`));
      expect(new Set(asked)).toEqual(new Set([question]));
      const flat = extractiveAnswer(question, questionTokens, [page], { sentenceScore: () => 0.5 });
      expect(flat).toEqual(extractiveAnswer(question, questionTokens, [page]));
    });
  });

  describe('the kind of answer asked for', () => {
    test('"who": the sentence naming a person is added when the best one names none', () => {
      const doc = 'The pack archiver maintains its own index of files.\nPack has been developed by Dana Whitfield since 2019.';
      const who = extractiveAnswer('Who maintains the pack archiver?', tokens('maintains pack archiver'), [doc]);
      expect(who.answer).toContain('Dana Whitfield');
      const what = extractiveAnswer('What does the pack archiver maintain?', tokens('pack archiver maintain'), [doc]);
      expect(what.answer).not.toContain('Dana Whitfield');
    });
  });

  describe('a question of several parts: each part from its own best sentence, or said to be missing', () => {
    const swearing = 'The swearing-in of the new council took place on 5 May 2024. It was public.';
    const meeting = 'The council held its first meeting on 12 May 2024.';
    const question = 'When were the swearing-in and the first meeting?';
    const questionTokens = tokens('swearing-in swearing in first meeting');

    test('two parts answered from two documents, each cited, and the answer verifies', () => {
      const draft = extractiveAnswer(question, questionTokens, [swearing, meeting]);
      expect(draft.answer).toContain('5 May 2024');
      expect(draft.answer).toContain('12 May 2024');
      expect(draft.unanswered_parts).toBeUndefined();
      expect(verifyAnswer(draft, [swearing, meeting]).status).toBe('verified');
    });

    test('a part no sentence holds is named in unanswered_parts, in the question\'s language; the answer still verifies', () => {
      const draft = extractiveAnswer(question, questionTokens, [swearing]);
      expect(draft.answer).toContain('5 May 2024');
      expect(draft.unanswered_parts).toEqual([{ part: 'the first meeting', notice: 'The documents do not mention the first meeting.' }]);
      expect(verifyAnswer(draft, [swearing]).status).toBe('verified');
    });

    test('Chinese: 出生年份和毕业院校分别是什么 — each part its sentence; a missing one said as 资料中没有提到…', () => {
      const bio = '林清，1962 年出生于浙江省。她长期从事材料研究。';
      const school = '林清于 1984 年毕业于南京大学物理系。';
      const zhQuestion = '林清的出生年份和毕业院校分别是什么？';
      const zhTokens = tokens('林清 的 出生 年份 出生年份 和 毕业 院校 毕业院校 分别 是 什么 ？');
      const both = extractiveAnswer(zhQuestion, zhTokens, [bio, school]);
      expect(both.answer).toBe('林清，1962 年出生于浙江省[1]。林清于 1984 年毕业于南京大学物理系[2]。');
      expect(verifyAnswer(both, [bio, school]).status).toBe('verified');
      const one = extractiveAnswer(zhQuestion, zhTokens, [bio]);
      expect(one.unanswered_parts).toEqual([{ part: '毕业院校', notice: '资料中没有提到毕业院校。' }]);
      expect(verifyAnswer(one, [bio]).status).toBe('verified');
    });

    test('A 和 B 分别是多少: each amount from its own document, even when one document names both', () => {
      const x1 = '北极星 X1 的续航约为 45 公里。北极星 X1 与 X2 均支持快充。';
      const x2 = '北极星 X2 的续航约为 60 公里。';
      const draft = extractiveAnswer('北极星 X1 和 X2 的续航分别是多少？', tokens('北极星 x1 和 x2 的 续航 分别 是 多少 ？'), [x1, x2]);
      expect(draft.answer).toContain('45 公里');
      expect(draft.answer).toContain('60 公里');
    });
  });
});
