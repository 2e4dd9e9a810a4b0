import * as net from 'node:net';
import { exitCodeOf } from '../../../cli/render/outcome';
import type { RagOutcome } from '../../../core/schemas/run-io';
import { modelEndpointStatus } from '../../../workers/model-endpoint-check';

// Issue 33 §5: a worker says at start-up when its model endpoint is unreachable; a run that failed on it exits 4.

test('an endpoint that accepts connections is reachable; a closed port is UNREACHABLE, saying what follows', async () => {
  const server = net.createServer((socket) => socket.end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  try {
    expect(await modelEndpointStatus(`http://127.0.0.1:${port}/v1`)).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port} reachable \\(\\d+ ms\\)$`));
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
  expect(await modelEndpointStatus(`http://127.0.0.1:${port}/v1`)).toMatch(
    new RegExp(`^http://127\\.0\\.0\\.1:${port} UNREACHABLE \\(.*ECONNREFUSED.*\\): runs that call a model fail with SERVICE_UNAVAILABLE \\(exit 4\\)`),
  );
});

test('a run that failed because a service could not be reached exits 4; any other failure 1', () => {
  // The fields exitCodeOf reads.
  const failed = (type: string) => ({ status: 'failed', degraded: null, error: { type, message: 'x' } }) as unknown as RagOutcome;
  expect([exitCodeOf(failed('SERVICE_UNAVAILABLE')), exitCodeOf(failed('MODEL_OUTPUT_INVALID'))]).toEqual([4, 1]);
});
