import type { RetrievalDiagnostics } from '../../core/schemas/retrieval-diagnostics';
import type { RetrievalResult } from '../../core/trace/writers';
import { shownPage } from '../../core/schemas/page-number';

const fmt = (value: number | null | undefined, digits = 4): string => (typeof value === 'number' ? value.toFixed(digits) : '-');
const rankOf = (value: number | null): string => (value === null ? '-' : String(value));

const FILTER_NOTES = {
  no_metadata: 'the knowledge base\'s leaves carry no metadata (ingested before it): ingest again to filter on it',
  no_match: 'no document matches it',
} as const;

/** issue 44 §2: the filter, how many documents it left, and why none when it left none. */
function filterLine(d: RetrievalDiagnostics): string {
  const filter = Object.entries(d.filters ?? {}).map(([key, values]) => `${key}=${values.join(',')}`).join(' ');
  const left = d.filter_documents === null || d.filter_documents === undefined ? '' : `: ${d.filter_documents} document(s) left`;
  return `filter ${filter}${left}${d.filter_note ? ` (${FILTER_NOTES[d.filter_note]})` : ''}`;
}

function diagnosticsLines(d: RetrievalDiagnostics): string[] {
  const lines: string[] = [];
  if (d.embedding_error) lines.push(`embedding error: ${d.embedding_error}`);
  if (d.filters) lines.push(filterLine(d));
  for (const [leg, hits] of Object.entries(d.legs)) {
    if (!hits) continue;
    lines.push(`${leg} leg (top ${hits.length}):`);
    hits.forEach((hit) => lines.push(`  ${String(hit.rank).padStart(2)}. ${fmt(hit.score)}  ${hit.chunk_id}`));
  }
  if (d.fused.length) {
    lines.push('fused (RRF k=60):       rrf      dense bm25');
    d.fused.forEach((hit) => lines.push(`  ${String(hit.rank).padStart(2)}. ${fmt(hit.rrf_score)}  ${rankOf(hit.dense_rank).padStart(5)} ${rankOf(hit.bm25_rank).padStart(4)}  ${hit.chunk_id}`));
  }
  d.merge_groups.forEach((group) => lines.push(`merged into L${group.level} ${group.parent_chunk_id}: ${group.child_count} child(ren)`));
  if (d.reranked.length) {
    lines.push('reranked:');
    d.reranked.forEach((hit) => lines.push(`  ${String(hit.rank).padStart(2)}. (was ${rankOf(hit.before_rank)}) ${fmt(hit.rerank_score)}  ${hit.chunk_id}`));
  }
  d.attempts.forEach((a) => lines.push(`attempt ${a.name}: ${a.candidate_count} candidates, usable=${a.usable}, top=${fmt(a.top_score)}, ${a.duration_ms.toFixed(1)} ms${a.error ? `, error: ${a.error}` : ''}`));
  const t = d.timing_ms;
  lines.push(`timing ms: embed ${fmt(t.embed, 1)}  dense ${fmt(t.dense, 1)}  bm25 ${fmt(t.bm25, 1)}  fuse ${fmt(t.fuse, 1)}  merge ${fmt(t.merge, 1)}  rerank ${fmt(t.rerank, 1)}  total ${t.total.toFixed(1)}`);
  return lines;
}

/** `ragtime search` output: the evidence, the 26-field retrieval meta, and the diagnostics. */
export function renderRetrieval(result: RetrievalResult): string {
  const lines = [`${result.docs.length} chunk(s)`];
  result.docs.forEach((doc, i) => {
    const text = (doc.text ?? '').replace(/\s+/g, ' ').slice(0, 100);
    lines.push(`  [${i + 1}] ${doc.filename} p${shownPage(doc.page_number) ?? '-'} ${doc.chunk_id ?? ''} score=${fmt(doc.rerank_score ?? doc.score)}  ${text}`);
  });
  lines.push('retrieval meta:');
  for (const [key, value] of Object.entries(result.meta)) if (value !== null && value !== undefined) lines.push(`  ${key}: ${JSON.stringify(value)}`);
  if (result.diagnostics) lines.push(...diagnosticsLines(result.diagnostics));
  return lines.join('\n');
}
