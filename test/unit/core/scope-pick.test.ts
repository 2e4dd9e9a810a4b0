import { chosenScope, scopeCandidates } from '../../../core/graph/scope-pick';
import { documentTitle } from '../../../core/knowledge/document-title';

// Issue 32 §2: what a person reads to choose, and which document their answer names.
const beiji = { filename: 'beiji-x1.md', doc_id: 'beiji-x1.md', text: '# 北极星X1 使用手册\n\n北极星X1 满电续航约 45 公里。' };
const beijiMore = { filename: 'beiji-x1.md', doc_id: 'beiji-x1.md', text: '## 客服\n\n热线：400-820-1234。' };
const tianlang = { filename: 'tianlang-s2.md', doc_id: 'tianlang-s2.md', text: '## 续航\n\n天狼S2 满电续航约 60 公里。' };

test("a document's title is its first level-1 heading in any of its chunks, else its file name without the extension", () => {
  expect(documentTitle(beijiMore, [beijiMore, tianlang, beiji])).toBe('北极星X1 使用手册');
  expect(documentTitle(tianlang, [beiji, tianlang])).toBe('tianlang-s2');
});

test('the candidates a scope_select offered: each document once, with its title', () => {
  expect(scopeCandidates([beiji, beijiMore, tianlang])).toEqual([
    { docId: 'beiji-x1.md', filename: 'beiji-x1.md', title: '北极星X1 使用手册' },
    { docId: 'tianlang-s2.md', filename: 'tianlang-s2.md', title: 'tianlang-s2' },
  ]);
});

test('an answer names a candidate by title, file name, file id or document id (any case, spaces around); else none', () => {
  const candidates = scopeCandidates([beiji, tianlang]);
  for (const answer of ['北极星X1 使用手册', ' beiji-x1 ', 'BEIJI-X1.md']) expect(chosenScope(answer, candidates)).toEqual({ title: '北极星X1 使用手册', docIds: ['beiji-x1.md'] });
  expect(chosenScope('丹瑾', candidates)).toBeNull();
  expect(chosenScope('', candidates)).toBeNull();
});
