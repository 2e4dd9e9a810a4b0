import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { toLeafHit, toLeafRow } from '../../../activities/adapters/milvus/rows';
import { prepareFile } from '../../../activities/ingest/prepare-file';
import { storeFile } from '../../../activities/ingest/store-file';
import type { ChunkingVersion } from '../../../core/ingest/leaf-context';
import { FakeEmbedder, MemoryLeafStore, MemoryParentStore } from '../../support/ingest-doubles';

/*
 * Issue 42 §1 at the store side: what storeFile embeds and stores for a knowledge base chunked `contextual-v1` (the
 * leaf's context and text) and for an older `plain` one (the text alone, no context, as before), and which vectors
 * a re-ingestion reuses (those whose embedded text, context included, is unchanged). In-memory stores; the Milvus
 * side is test/integration/contextual-leaves.test.ts.
 */

/** A memory leaf store of a given chunking, keyed by the embedded text as the Milvus store is. */
class ChunkedLeafStore extends MemoryLeafStore {
  constructor(private readonly version: ChunkingVersion) {
    super();
  }
  async chunking(): Promise<ChunkingVersion> {
    return this.version;
  }
  override async vectorsOfDocument(docId: string, model: string): Promise<Map<string, number[]>> {
    const embedded = (leaf: { text: string; context?: string }) => (leaf.context ? `${leaf.context}\n${leaf.text}` : leaf.text);
    return new Map(this.leaves.filter((leaf) => leaf.file_path === docId && leaf.embedding_model === model).map((leaf) => [embedded(leaf), [...leaf.dense]]));
  }
}

let tmp = '';
beforeAll(() => void (tmp = mkdtempSync(path.join(os.tmpdir(), 'ragtime-contextual-'))));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const PAGE = ['# 星途科技', '', '星途科技成立于2015年。', '', '## 联系我们', '', '客服热线 400-820-1234，工作日 9:00-18:00。'].join('\n');

async function ingest(version: ChunkingVersion, text: string, stores = { leafStore: new ChunkedLeafStore(version), parentStore: new MemoryParentStore(), embedder: new FakeEmbedder() }, filename = 'xingtu.md') {
  const file = path.join(tmp, filename);
  writeFileSync(file, text);
  const prepared = await prepareFile(file, filename, { docId: 'xingtu.md' });
  stores.embedder.batches.length = 0;
  const stored = await storeFile(prepared, 0, stores, () => undefined);
  return { ...stores, stored };
}

test('contextual-v1: the embedder gets "context\\ntext"; the leaf keeps its own text and carries the context', async () => {
  const { leafStore, embedder } = await ingest('contextual-v1', PAGE);
  expect(embedder.batches.flat()).toEqual(['星途科技\n# 星途科技\n\n星途科技成立于2015年。\n\n## 联系我们\n\n客服热线 400-820-1234，工作日 9:00-18:00。']);
  expect(leafStore.leaves.map((leaf) => [leaf.text.startsWith('# 星途科技'), leaf.context])).toEqual([[true, '星途科技']]);
});

test('plain (a knowledge base created before): the text alone is embedded, and no chunk is stored with a context', async () => {
  const { leafStore, parentStore, embedder } = await ingest('plain', PAGE);
  expect(embedder.batches.flat()).toEqual([leafStore.leaves[0]!.text]);
  expect(leafStore.leaves.every((leaf) => !('context' in leaf))).toBe(true);
  expect([...parentStore.chunks.values()].every((chunk) => !('context' in chunk))).toBe(true);
});

test('re-ingestion reuses a vector only when context and text are both unchanged: a new title with the same text embeds again', async () => {
  // No level-1 heading: the title is the file name, so the same text under another name changes the context only.
  const section = '## 联系我们\n\n客服热线 400-820-1234。';
  const first = await ingest('contextual-v1', section);
  const again = await ingest('contextual-v1', section, first);
  expect(again.stored).toEqual({ inserted: 1, reused: 1 });
  expect(again.embedder.batches).toEqual([]);
  const renamed = await ingest('contextual-v1', section, first, 'xingtu-tech.md');
  expect(renamed.leafStore.leaves.map((leaf) => [leaf.text, leaf.context])).toEqual([[section, 'xingtu-tech › 联系我们']]);
  expect(renamed.stored.reused).toBe(0);
  expect(renamed.embedder.batches.flat()).toEqual([`xingtu-tech › 联系我们\n${section}`]);
});

describe('Milvus rows (activities/adapters/milvus/rows.ts)', () => {
  const leaf = { chunk_id: 'x::p0::l3::0', text: '客服热线 400', context: '星途科技 › 联系我们', filename: 'x.md', file_type: 'Markdown', file_path: 'x', page_number: 0, parent_chunk_id: '', root_chunk_id: '', chunk_level: 3, chunk_idx: 2, dense: [1, 0] };

  test('a contextual collection gets indexed_text (the BM25 input) and the context; a plain one neither', () => {
    expect(toLeafRow(leaf, 2, 'contextual-v1')).toMatchObject({ text: '客服热线 400', indexed_text: '星途科技 › 联系我们\n客服热线 400', context: '星途科技 › 联系我们' });
    const plain = toLeafRow(leaf, 2, 'plain');
    expect(plain.text).toBe('客服热线 400');
    expect('indexed_text' in plain || 'context' in plain).toBe(false);
  });

  test('a hit carries the stored context beside its text, and none when the row has none', () => {
    expect(toLeafHit({ text: 'a', context: 'T › H' }, 1)).toMatchObject({ text: 'a', context: 'T › H' });
    expect('context' in toLeafHit({ text: 'a' }, 1)).toBe(false);
  });
});
