/* Part of the chunk contract (core/schemas/retrieved-chunk.ts): how its page_number is counted and shown. */
/**
 * A chunk's page as people count pages: chunks keep the spec's 0-based `page_number` (§6.8, the loaders' page index),
 * and every view (CLI, console, MCP) shows it from 1 (issue 33 §6: pages were shown 0-based). A page that is not a
 * whole number is shown as it is; none is null.
 */
export function shownPage(pageNumber: string | number | null | undefined): number | string | null {
  if (pageNumber === null || pageNumber === undefined || pageNumber === '') return null;
  const index = typeof pageNumber === 'number' ? pageNumber : /^\d+$/.test(pageNumber.trim()) ? Number(pageNumber.trim()) : null;
  return index !== null && Number.isInteger(index) && index >= 0 ? index + 1 : pageNumber;
}
