import type { LeafCatalog } from '../ports';
import { type MilvusConnection, milvusCall, newMilvusClient } from './milvus/calls';
import { REQUIRED_FIELDS } from './milvus/schema';
import { createMilvusLeafStore, type MilvusLeafStore } from './milvus-leaf-store';

/**
 * The knowledge bases of one Milvus (Lite, a cluster, Zilliz Cloud): one collection each, of ragtime's leaf schema.
 * Leaf stores are opened on first use and kept (one client each); `list` names the collections that have every
 * field of that schema, so other collections in the same Milvus are not knowledge bases.
 */
export function createMilvusCatalog(connection: MilvusConnection, dim: number): LeafCatalog & { leafStore(kb: string): MilvusLeafStore } {
  const client = newMilvusClient(connection);
  const where = `Milvus at ${connection.address}`;
  const stores = new Map<string, MilvusLeafStore>();
  const leafStore = (kb: string): MilvusLeafStore => {
    let store = stores.get(kb);
    if (!store) {
      store = createMilvusLeafStore({ ...connection, collection: kb, dim });
      stores.set(kb, store);
    }
    return store;
  };
  return {
    leafStore,
    async list() {
      const reply = await milvusCall(where, 'showCollections', () => client.showCollections());
      const names = (reply.data ?? []).map((collection) => collection.name).sort();
      const ragtime: string[] = [];
      for (const name of names) {
        const described = await milvusCall(where, 'describeCollection', () => client.describeCollection({ collection_name: name })).catch(async (error: unknown) => {
          // Dropped between the listing and now (another process' `kb drop`): it is not a knowledge base any more.
          const still = await milvusCall(where, 'hasCollection', () => client.hasCollection({ collection_name: name }));
          if (still.value) throw error;
          return null;
        });
        if (described === null) continue;
        const fields = new Set(described.schema.fields.map((field) => field.name));
        if (REQUIRED_FIELDS.every((field) => fields.has(field))) ragtime.push(name);
      }
      return ragtime;
    },
    async drop(kb) {
      const exists = await milvusCall(where, 'hasCollection', () => client.hasCollection({ collection_name: kb }));
      if (exists.value) await leafStore(kb).dropCollection();
    },
    async close() {
      await Promise.allSettled([...[...stores.values()].map((store) => store.close()), client.closeConnection()]);
    },
  };
}
