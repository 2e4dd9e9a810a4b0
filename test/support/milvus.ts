/**
 * The Milvus SDK for tests: one client factory with the options Milvus Lite needs, and the SDK's exports.
 * Test files import the SDK from here, not from '@zilliz/milvus2-sdk-node' directly (see the note below).
 *
 * Why the mock: under jest on Node 20 `require('@zilliz/milvus2-sdk-node')` fails with "Must use import to load
 * ES Module: node_modules/thrift/node_modules/uuid/dist-node/index.js". The SDK's index loads its bulk writer,
 * which loads @shanghaikid/parquetjs -> thrift -> uuid@14, an ESM-only package; jest's CommonJS runtime cannot
 * require ESM before Node 24.9 (plain Node 20.19+ can, so tsx and production code are fine). ragtime never
 * writes Parquet, so the Parquet library is replaced by an empty module for tests. The better fix belongs in
 * jest.config.js: `moduleNameMapper: { '^uuid$': require.resolve('uuid') }` (the CommonJS uuid@11 at the top
 * of node_modules); with that in place this mock can go.
 */
jest.mock('@shanghaikid/parquetjs', () => ({}));

import { MilvusClient } from '@zilliz/milvus2-sdk-node';
import { services } from './services';

export * from '@zilliz/milvus2-sdk-node';

/**
 * A client for MILVUS_ADDRESS. The SDK's default keepalive pings every 10 s even with no call in flight; gRPC
 * servers treat that as abuse (GOAWAY "too_many_pings"), so the interval is raised and idle pings are off.
 */
export function newMilvusClient(address: string = services.milvusAddress): MilvusClient {
  return new MilvusClient({
    address,
    timeout: 30_000,
    logLevel: 'error',
    channelOptions: { 'grpc.keepalive_time_ms': 10 * 60_000, 'grpc.keepalive_permit_without_calls': 0 },
  });
}

/** Drops a test's collection (if it exists) and closes the client: the end of a suite that made one. */
export async function dropTestCollection(collection: string): Promise<void> {
  const milvus = newMilvusClient();
  await milvus.dropCollection({ collection_name: collection }).catch(() => undefined);
  await milvus.closeConnection();
}
