/**
 * Closing a Temporal client whose server went away (issue 31's teardown race). The SDK retries a call that failed
 * with UNAVAILABLE from a timer; closed before the timer fired, the retry threw "Channel has been shut down" out of
 * the timer, an uncaught exception that failed whichever suite ran next (test/browser/console.test.ts, "failed to
 * run"). client/temporal-connection.ts ends such a retry as CANCELLED. With Connection.connect in place of
 * connectTemporal below, this test fails with that uncaught exception.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@temporalio/client';
import { connectTemporal } from '../../client/temporal-connection';
import { startPrivateDevServer, type PrivateDevServer } from '../support/private-dev-server';

let dir: string;
let server: PrivateDevServer | undefined;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'ragtime-connection-close-'));
  server = await startPrivateDevServer(dir);
}, 90_000);

afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('a result awaited while the server stops, then the client closed: the call rejects, nothing is thrown from a timer', async () => {
  const connection = await connectTemporal({ address: server!.address });
  const client = new Client({ connection });
  // A run no worker will take, so its result is a long poll in flight when the server stops.
  const handle = await client.workflow.start('noSuchWorkflow', { taskQueue: `nobody-${process.pid}`, workflowId: `connection-close-${Date.now()}` });
  const settled = handle.result().then(
    () => 'resolved',
    (error: unknown) => (error instanceof Error ? error.message : String(error)),
  );
  await new Promise((resolve) => setTimeout(resolve, 300));
  await server!.stop();
  // The long poll ends UNAVAILABLE and its retry is scheduled (100 ms); the client closes before it fires.
  await new Promise((resolve) => setTimeout(resolve, 50));
  await connection.close();
  // Long enough for the SDK's retries to have fired several times (100 ms, then backing off).
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  expect(await settled).not.toBe('resolved');
}, 60_000);
