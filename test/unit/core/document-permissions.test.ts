import { leafFilter } from '../../../activities/adapters/milvus/filter-expression';
import { withAcl } from '../../../cli/filter-flags';
import { accessClause, mayRead, unreadable, visibleStats } from '../../../core/knowledge/document-access';
import { type AccessDocument, WITHHELD, hiddenDocuments, redactForReader } from '../../../core/knowledge/redact-for-reader';
import type { DocumentRecord } from '../../../core/knowledge/knowledge-base';
import { documentPasses, filterClauses } from '../../../core/retrieval/metadata-filter';
import { parseApiTokenList } from '../../../core/schemas/api-tokens';
import { RunDetail } from '../../../core/schemas/run-detail';
import { detailOf, outcomeOf, retrievalOf } from '../../support/run-detail-fixture';

/*
 * Issue 44 §4, the pure parts: who reads a document, the forced clause a caller's filter cannot widen, token entries
 * with groups, ingest --acl, and the one redaction every read goes through.
 */

const HASH = 'a'.repeat(64);
const MARK = 'zq7secretmark';
const SECRET_TEXT = `The ${MARK} ledger: the merger closes on 3 March, price 41 per share.`;
const documents: AccessDocument[] = [
  { doc_id: `vault/${MARK}-ledger.md`, filename: `${MARK}-ledger.md`, source: `/data/vault/${MARK}-ledger.md`, meta: { acl: ['finance'], title: [`${MARK} Ledger`] } },
  { doc_id: 'guides/handbook.md', filename: 'handbook.md', source: '/data/guides/handbook.md', meta: { path: ['guides'] } },
];
const chunk = (docId: string, filename: string, text: string) => ({ doc_id: docId, file_path: docId, filename, text, chunk_id: `${docId}::p0::l3::0` });

test('a document without an access list is read by every token; one with a list by a token holding one of its groups', () => {
  expect(mayRead([], [])).toBe(true);
  expect(mayRead(['hr'], ['finance'])).toBe(false);
  expect(mayRead(['hr', 'finance'], ['finance'])).toBe(true);
  expect(documentPasses('a.md', undefined, [accessClause([])])).toBe(true);
  expect(documentPasses('a.md', { acl: ['finance'] }, [accessClause([])])).toBe(false);
});

test("a caller's acl filter cannot widen the forced clause: both are ANDed, in code and in Milvus' expression", () => {
  const clauses = filterClauses({ acl: ['finance'] }, [accessClause(['hr'])]);
  expect(documentPasses('s.md', { acl: ['finance'] }, clauses)).toBe(false);
  expect(documentPasses('p.md', undefined, clauses)).toBe(false); // the caller's own filter narrows, never widens
  expect(leafFilter({ leafLevel: 3, filter: clauses } as never)).toBe(
    'chunk_level == 3 and json_contains_any(meta["acl"], ["finance"]) and (json_contains_any(meta["acl"], ["hr"]) or not exists meta["acl"])',
  );
  // A token without groups: only documents without an access list.
  expect(leafFilter({ leafLevel: 3, filter: [accessClause([])] } as never)).toBe('chunk_level == 3 and not exists meta["acl"]');
});

test('RAGTIME_API_TOKENS entries carry groups after the knowledge bases; entries without them stay valid (no groups)', () => {
  const { tokens, problems } = parseApiTokenList(`acme:${HASH},acme:${HASH}:kb_a|kb_b:groups=finance|hr,acme:${HASH}:groups=ops`);
  expect(problems).toEqual([]);
  expect(tokens).toEqual([
    { tenant: 'acme', sha256: HASH },
    { tenant: 'acme', sha256: HASH, kbs: ['kb_a', 'kb_b'], groups: ['finance', 'hr'] },
    { tenant: 'acme', sha256: HASH, groups: ['ops'] },
  ]);
  expect(parseApiTokenList(`acme:${HASH}:kb:groups=a:extra`).problems[0]).toContain('tenant:sha256hex[:kb|kb…][:groups=g|g…]');
});

test('ingest --acl is the metadata key acl; with --meta acl=… too it is refused', () => {
  expect(withAcl({ meta: { product: ['atlas'] } }, 'finance, hr')).toEqual({ meta: { product: ['atlas'], acl: ['finance', 'hr'] } });
  expect(withAcl({}, undefined)).toEqual({});
  expect(() => withAcl({ meta: { acl: ['x'] } }, 'finance')).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
});

test('a run read by a token without the group: evidence, quotes, names, ids and counts of the hidden document are gone, the answer withheld', () => {
  const secret = chunk(documents[0]!.doc_id, documents[0]!.filename, SECRET_TEXT);
  const open = chunk('guides/handbook.md', 'handbook.md', 'The handbook says the office opens at nine every weekday morning.');
  const outcome = {
    ...outcomeOf({ docs: [secret, open] }),
    // Only the fields the redaction reads: the text and a citation quoting the hidden document.
    answer: { text: 'The merger closes on 3 March [1].', citations: [{ marker: 1, doc_index: 1, chunk_id: secret.chunk_id, filename: secret.filename, page_number: null, quote: SECRET_TEXT }], verification: { status: 'verified', invalid_citations: [], uncited_sentences: [] } } as never,
    answer_null_reason: null,
  };
  const detail = detailOf(outcome, {
    retrievals: [retrievalOf({ docs: [secret, open], meta: { retrieval_mode: 'hybrid', candidate_count: 2 }, diagnostics: { ...retrievalOf().diagnostics!, filter_documents: 2 } })],
  });
  const hidden = hiddenDocuments([], documents);
  const shown = redactForReader(detail, hidden);
  const text = JSON.stringify(shown);
  expect(text).not.toContain(MARK);
  expect(text).not.toContain('merger');
  expect(shown.outcome.answer).toBeNull();
  expect(shown.outcome.answer_null_reason).toBe('not_visible');
  expect(shown.outcome.docs.map((doc) => doc.doc_id)).toEqual(['guides/handbook.md']);
  expect(shown.retrievals[0]!.docs).toHaveLength(1);
  expect(shown.retrievals[0]!.meta.candidate_count).toBe(1);
  expect(shown.retrievals[0]!.diagnostics?.filter_documents).toBeNull();
  expect(RunDetail.safeParse(shown).success).toBe(true);
  // A string elsewhere that quotes the hidden text or names the document is withheld, not dropped.
  expect(redactForReader({ docs: [secret], note: `read ${SECRET_TEXT}` }, hidden).note).toBe(WITHHELD);
  // The token holding the group, and a run that never touched the document, are shown as they are.
  expect(redactForReader(detail, hiddenDocuments(['finance'], documents))).toBe(detail);
  const plain = detailOf(outcomeOf({ docs: [open] }));
  expect(redactForReader(plain, hidden)).toEqual(plain);
});

test("a knowledge base's stats leave out what the token may not read", () => {
  const records = documents.map((document, i) => ({ kb: 'kb', ...document, file_type: 'Markdown', pages: 1, l1: 1, l2: 2, l3: 3 + i, bytes: 100, content_hash: '', ingested_at: '' })) as DocumentRecord[];
  const stats = { kb: 'kb', documents: 2, chunks: { l1: 2, l2: 4, l3: 7 }, bytes: 200, last_ingest: null };
  expect(visibleStats(stats, unreadable([], records))).toEqual({ ...stats, documents: 1, chunks: { l1: 1, l2: 2, l3: 4 }, bytes: 100 });
  expect(visibleStats(stats, unreadable(['finance'], records))).toBe(stats);
});
