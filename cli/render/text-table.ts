import stringWidth from 'string-width';

/**
 * Rows as aligned columns, two spaces apart, each as wide as its widest cell on a terminal: a CJK character takes two
 * cells and a combining mark none (string-width), so Chinese document names line up (issue 33 §6). The last column is
 * not padded.
 */
export function textTable(rows: readonly (readonly string[])[]): string {
  const columns = Math.max(0, ...rows.map((row) => row.length));
  const widths = Array.from({ length: columns }, (_, column) => Math.max(0, ...rows.map((row) => stringWidth(row[column] ?? ''))));
  return rows
    .map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell + ' '.repeat(widths[column]! - stringWidth(cell)))).join('  '))
    .join('\n');
}
