import * as path from 'node:path';
import { temporal } from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { ragtimeDataConverter } from '../../client/codec/data-converter';
import { cachedWorkflowBundle } from '../../workers/workflow-bundle';
import type { WorkflowEnv } from '../workflows/harness';
import { TEST_KEYRING } from './codec-keys';

/*
 * The workflow tests of `make check` (docs/TESTING.md): Temporal's time-skipping test server (Java, resolved from Maven
 * Central by scripts/setup.sh; the SDK's own download cannot work here), started by @temporalio/testing for the test
 * file, with ragtime's search attributes registered as scripts/services.sh registers them on the dev server. Waits of
 * days (a person's answer, retry backoffs) pass in no time while a client waits for a result, or on `sleep`.
 */

const SERVER = path.resolve(__dirname, '..', '..', 'scripts', 'time-skipping', 'server.sh');
const KEYWORD = temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD;
const INT = temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_INT;
const SEARCH_ATTRIBUTES = { RagSessionId: KEYWORD, RagStatus: KEYWORD, RagRoute: KEYWORD, RagComplexity: KEYWORD, RagHitlRounds: INT, RagKb: KEYWORD };

export type TimeSkippingEnv = WorkflowEnv & {
  /** Advances the server's clock (skipping the time) while no client waits. */
  sleep(ms: number): Promise<void>;
};

export async function openTimeSkippingEnv(): Promise<TimeSkippingEnv> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const dataConverter = ragtimeDataConverter(TEST_KEYRING);
  const testEnv = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: SERVER } },
    client: { dataConverter },
  });
  try {
    await testEnv.connection.operatorService.addSearchAttributes({ namespace: testEnv.namespace ?? 'default', searchAttributes: SEARCH_ATTRIBUTES });
    const workflowBundle = await cachedWorkflowBundle({ failureConverterPath: dataConverter.failureConverterPath });
    return {
      client: testEnv.client,
      nativeConnection: testEnv.nativeConnection,
      workflowBundle,
      dataConverter,
      sleep: (ms) => testEnv.sleep(ms),
      close: () => testEnv.teardown(),
    };
  } catch (error) {
    await testEnv.teardown();
    throw error;
  }
}
