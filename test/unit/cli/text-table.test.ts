import { textTable } from '../../../cli/render/text-table';

// Issue 33 §6: `docs list` was misaligned with Chinese document names (a CJK character takes two terminal cells).
test('columns line up on a terminal with Chinese, accented and ASCII cells', () => {
  const lines = textTable([
    ['DOCUMENT', 'PAGES', 'CHUNKS'],
    ['星途科技客服手册.md', '3', '12'],
    ['café.md', '1', '4'],
    ['aurora-x2.md', '10', '40'],
  ]).split('\n');
  // The second column starts at the same terminal cell on every line: 19 cells of the widest name, then two spaces.
  const widthBefore = (line: string, cell: string) => {
    const prefix = line.slice(0, line.indexOf(`  ${cell}`) + 2);
    return [...prefix].reduce((sum, char) => sum + (/[\u4e00-\u9fff]/u.test(char) ? 2 : 1), 0);
  };
  expect([widthBefore(lines[0]!, 'PAGES'), widthBefore(lines[1]!, '3'), widthBefore(lines[2]!, '1'), widthBefore(lines[3]!, '10')]).toEqual([21, 21, 21, 21]);
  expect(lines[3]).toBe('aurora-x2.md         10     40');
});
