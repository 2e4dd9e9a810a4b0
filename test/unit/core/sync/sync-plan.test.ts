import { selectedBy } from '../../../../core/sync/glob';
import { massDeleteReason, planSyncPass } from '../../../../core/sync/sync-plan';

/* The plan of a sync pass (issue 46 §1) and its mass-delete guard (§3), from listed files and held documents. */

const held = (docId: string, hash: string) => ({ doc_id: docId, content_hash: hash });

test('new, changed, unchanged, removed and renamed files; documents of other sources are left alone', () => {
  const plan = planSyncPass(
    'docs',
    [
      { path: 'a.md', hash: 'h-a' },
      { path: 'b.md', hash: 'h-b2' },
      { path: 'sub/new.md', hash: 'h-new' },
      { path: 'moved/c.md', hash: 'h-c' },
    ],
    [held('docs/a.md', 'h-a'), held('docs/b.md', 'h-b'), held('docs/c.md', 'h-c'), held('docs/gone.md', 'h-gone'), held('other/x.md', 'h-x'), held('docsy/a.md', 'h-a')],
  );
  expect(plan).toEqual({
    ingest: [
      { path: 'b.md', docId: 'docs/b.md', hash: 'h-b2', kind: 'change' },
      { path: 'moved/c.md', docId: 'docs/moved/c.md', hash: 'h-c', kind: 'rename', from: 'docs/c.md' },
      { path: 'sub/new.md', docId: 'docs/sub/new.md', hash: 'h-new', kind: 'add' },
    ],
    remove: ['docs/c.md', 'docs/gone.md'],
    unchanged: 1,
    held: 4,
  });
});

test('two new copies of one removed file: one is its rename, the other a new document', () => {
  const plan = planSyncPass('s', [{ path: 'x.md', hash: 'h' }, { path: 'y.md', hash: 'h' }], [held('s/old.md', 'h')]);
  expect(plan.ingest.map((item) => [item.path, item.kind, item.from ?? null])).toEqual([['x.md', 'rename', 's/old.md'], ['y.md', 'add', null]]);
});

test('a vanished source (nothing listed) would remove every document: refused above the share; renames do not count', () => {
  const everything = planSyncPass('s', [], [held('s/a.md', '1'), held('s/b.md', '2'), held('s/c.md', '3')]);
  expect(massDeleteReason(everything, 0.5)).toMatchInlineSnapshot(
    `"the pass would remove 3 of the source's 3 documents (100 %), more than 50 %; if the source is unmounted or emptied by mistake, restore it; if the removal is meant, run the pass with --allow-mass-delete (or raise --max-delete-share)"`,
  );
  expect(massDeleteReason(everything, 1)).toBeNull();
  const moved = planSyncPass('s', [{ path: 'n/a.md', hash: '1' }, { path: 'n/b.md', hash: '2' }, { path: 'c.md', hash: '3' }], [held('s/a.md', '1'), held('s/b.md', '2'), held('s/c.md', '3')]);
  expect(massDeleteReason(moved, 0.5)).toBeNull();
  expect(massDeleteReason(planSyncPass('s', [], []), 0.5)).toBeNull();
});

test('globs: "*" stays in a folder, "**" crosses them, a glob without "/" matches the name anywhere', () => {
  expect(selectedBy('docs/a/b.md', ['docs/**'], [])).toBe(true);
  expect(selectedBy('docs/b.md', ['docs/*.md'], [])).toBe(true);
  expect(selectedBy('docs/a/b.md', ['docs/*.md'], [])).toBe(false);
  expect(selectedBy('x/y/notes.txt', ['*.md'], [])).toBe(false);
  expect(selectedBy('x/y/notes.md', ['*.md'], ['**/y/**'])).toBe(false);
  expect(selectedBy('x/drafts/a.md', [], ['drafts/**'])).toBe(true);
  expect(selectedBy('drafts/a.md', [], ['drafts/**'])).toBe(false);
});
