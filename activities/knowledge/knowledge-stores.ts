import { RagError } from '../../core/errors';
import { DocumentMeta } from '../../core/knowledge/document-meta';
import { KbName, type DocumentRecord, type KbStats, unknownKbMessage } from '../../core/knowledge/knowledge-base';
import type { DocumentRegistry, Embedder, LeafCatalog, LeafStore, LegacyDocuments, ParentStore } from '../ports';

/*
 * A worker's knowledge bases (DESIGN §4b): one worker serves many, each named in the run or ingestion that uses it.
 * A knowledge base is its Milvus collection (the leaf store), its rows in the parent store and its documents in the
 * registry. The default one (RAGTIME_KB) is created on first use, as the one collection was before; any other must
 * exist (`ragtime kb create`), so that a misspelt name is refused instead of filled.
 */

/** The stores of one knowledge base. */
export type KbStores = { kb: string; leafStore: LeafStore; parentStore: ParentStore };

export interface KnowledgeStores {
  readonly defaultKb: string;
  readonly embedder: Embedder;
  readonly documents: DocumentRegistry;
  /**
   * The stores of `kb` (default: the default knowledge base); UNKNOWN_KB when it does not exist. `create`: the
   * default knowledge base is created when missing (the worker's start, ingestion); never another.
   */
  open(kb?: string, options?: { create?: boolean }): Promise<KbStores>;
  /** The knowledge bases that exist (their collections), by name. */
  list(): Promise<string[]>;
  /** The leaf store of `kb` without checking that it exists (start-up lines, tests). */
  leafStoreOf(kb: string): LeafStore;
  /** The stores of `kb` without checking that it exists: for a retrieval when the check itself cannot be made. */
  uncheckedStores(kb?: string): KbStores;
  /** Creates the knowledge base (its collection); a no-op when it exists. */
  create(kb: string): Promise<void>;
  /**
   * Drops the knowledge base: its collection first (from then on retrieval finds nothing of it), then its parent rows
   * and documents. A drop cut off half way is finished by running it again.
   */
  drop(kb: string): Promise<void>;
  stats(kb: string): Promise<KbStats>;
  /** Removes a document: its leaves (one delete: it leaves retrieval at once), then its parents, then its record. */
  removeDocument(kb: string, docId: string): Promise<DocumentRecord>;
  /**
   * Changes a document's metadata (issue 44 §1, `docs meta set|rm`) without embedding anything: its leaves (Milvus,
   * a partial upsert of `meta`), then its record. Resolves to the record as it is now.
   */
  changeDocumentMeta(kb: string, docId: string, change: (meta: DocumentMeta) => DocumentMeta): Promise<DocumentRecord>;
  close(): Promise<void>;
}

export type KnowledgeStoresDeps = {
  defaultKb: string;
  catalog: LeafCatalog;
  parentsFor: (kb: string) => ParentStore;
  documents: DocumentRegistry;
  /** Documents written before knowledge bases existed; absent: there are none to adopt. */
  legacy?: LegacyDocuments;
  embedder: Embedder;
  close?: () => Promise<void>;
  /**
   * Whether UNKNOWN_KB lists the knowledge bases that exist: only in a process whose every caller may see them all
   * (the operator's CLI). Never in the worker, whose run failures reach tenants, nor in the HTTP API (issue 35 §3).
   */
  namesInErrors?: boolean;
};

function checkName(kb: string): string {
  const parsed = KbName.safeParse(kb);
  if (!parsed.success) throw new RagError('INVALID_INPUT', `invalid knowledge base name ${JSON.stringify(kb)}: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  return parsed.data;
}

export function createKnowledgeStores(deps: KnowledgeStoresDeps): KnowledgeStores {
  const { catalog, documents, embedder, defaultKb } = deps;
  // Knowledge bases seen to exist: checked once per process (a drop elsewhere shows as failed searches, as a lost
  // collection always did).
  const known = new Map<string, Promise<void>>();

  const unknown = async (kb: string): Promise<never> => {
    const existing = deps.namesInErrors ? await catalog.list().catch(() => [] as string[]) : null;
    throw new RagError('UNKNOWN_KB', unknownKbMessage(kb, existing));
  };

  /**
   * Documents written before knowledge bases existed were written for one collection, which their leaves are in: the
   * knowledge base of that collection adopts them (parent rows and records) when a process first opens it. Best
   * effort: a failure (the SQL store down) is tried again at the next open, and never fails the open itself.
   */
  const adopted = new Set<string>();
  const adoptLegacy = async (kb: string, leafStore: LeafStore): Promise<void> => {
    if (!deps.legacy || adopted.has(kb)) return;
    try {
      const pending = await deps.legacy.pending();
      if (pending.length > 0) await deps.legacy.adopt(kb, await leafStore.documentsAmong(pending));
      adopted.add(kb);
    } catch {
      // Tried again at the next open of this knowledge base.
    }
  };

  /**
   * `kb` exists (checked once per process; a drop elsewhere shows as failed searches, as a lost collection always
   * did), or UNKNOWN_KB. With `create`, the default knowledge base is created when missing, as the one collection
   * was: by the worker's start and by ingestion; retrieval never creates anything.
   */
  const ready = async (kb: string, create: boolean): Promise<void> => {
    const leafStore = catalog.leafStore(kb);
    if (!known.has(kb)) {
      const check: Promise<void> =
        create && kb === defaultKb ? leafStore.ensureCollection() : leafStore.exists().then((found: boolean) => (found ? undefined : unknown(kb)));
      // A failed check (Milvus down, or the knowledge base missing) is forgotten: the next call asks again.
      check.catch(() => known.delete(kb));
      known.set(kb, check);
    }
    await known.get(kb);
    await adoptLegacy(kb, leafStore);
  };

  const storesOf = (kb: string): KbStores => ({ kb, leafStore: catalog.leafStore(kb), parentStore: deps.parentsFor(kb) });

  return {
    defaultKb,
    embedder,
    documents,
    async open(kb = defaultKb, options = {}) {
      const name = checkName(kb);
      await ready(name, options.create === true);
      return storesOf(name);
    },
    list: () => catalog.list(),
    leafStoreOf: (kb) => catalog.leafStore(kb),
    uncheckedStores: (kb = defaultKb) => storesOf(checkName(kb)),
    async create(kb) {
      const name = checkName(kb);
      await catalog.leafStore(name).ensureCollection();
      known.set(name, Promise.resolve());
    },
    async drop(kb) {
      const name = checkName(kb);
      const exists = (await catalog.list()).includes(name);
      const kept = (await documents.knowledgeBases()).includes(name);
      if (!exists && !kept) await unknown(name);
      known.delete(name);
      await catalog.drop(name);
      await documents.dropKb(name);
    },
    async stats(kb) {
      const { leafStore } = await this.open(kb);
      const [records, leaves, chunking, withMeta] = await Promise.all([documents.list(kb), leafStore.countLeaves(), leafStore.chunking?.(), leafStore.countLeavesWithMeta?.()]);
      const sum = (pick: (record: DocumentRecord) => number) => records.reduce((total, record) => total + pick(record), 0);
      const last = records.map((record) => record.ingested_at).sort().at(-1) ?? null;
      return {
        kb,
        documents: records.length,
        chunks: { l1: sum((r) => r.l1), l2: sum((r) => r.l2), l3: leaves },
        bytes: sum((r) => r.bytes),
        last_ingest: last,
        ...(chunking === undefined ? {} : { chunking }),
        // issue 44: whether its leaves carry metadata (an empty knowledge base has none to say it of: `all`).
        ...(withMeta === undefined ? {} : { metadata: withMeta === leaves ? 'all' : withMeta === 0 ? 'none' : 'some' }),
      };
    },
    async removeDocument(kb, docId) {
      const { leafStore, parentStore } = await this.open(kb);
      const record = await documents.get(kb, docId);
      if (!record) {
        throw new RagError('UNKNOWN_DOCUMENT', `knowledge base "${kb}" has no document ${JSON.stringify(docId)}; \`ragtime docs list --kb ${kb}\` lists them`);
      }
      await leafStore.deleteByDocument(docId);
      await parentStore.deleteDocument(docId);
      await documents.remove(kb, docId);
      return record;
    },
    async changeDocumentMeta(kb, docId, change) {
      const { leafStore } = await this.open(kb);
      const record = await documents.get(kb, docId);
      if (!record) {
        throw new RagError('UNKNOWN_DOCUMENT', `knowledge base "${kb}" has no document ${JSON.stringify(docId)}; \`ragtime docs list --kb ${kb}\` lists them`);
      }
      const parsed = DocumentMeta.safeParse(change(record.meta ?? {}));
      if (!parsed.success) throw new RagError('INVALID_INPUT', `metadata of ${JSON.stringify(docId)}: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
      if (!leafStore.setDocumentMeta) throw new RagError('INVALID_CONFIG', `the leaf store of "${kb}" cannot change metadata in place`);
      // Leaves first: retrieval filters on them; the record follows (a failure in between is mended by running again).
      await leafStore.setDocumentMeta(docId, parsed.data);
      const updated = { ...record, meta: parsed.data };
      await documents.put(updated);
      return updated;
    },
    async close() {
      await Promise.allSettled([catalog.close(), deps.close?.()]);
    },
  };
}
