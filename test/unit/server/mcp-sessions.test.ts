import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { cancelRunOnAbort } from '../../../server/mcp/cancel-run-on-abort';
import { McpSessions } from '../../../server/mcp/mcp-sessions';

/*
 * The bookkeeping of /mcp's sessions (server/mcp/mcp-sessions.ts) and of a cancelled call (cancel-run-on-abort.ts),
 * without a network: the HTTP behaviour itself is tested in test/integration/mcp-http.test.ts.
 */

function fakeSession(id: string, tenant: string, closed: string[]) {
  const closer = (what: string) => ({ close: async () => void closed.push(`${what}:${id}`) });
  return { id, tenant, server: closer('server') as unknown as McpServer, transport: closer('transport') as unknown as StreamableHTTPServerTransport };
}

describe('McpSessions', () => {
  test('a session is found only with the tenant that opened it', async () => {
    const sessions = new McpSessions(60_000, 10);
    sessions.add(fakeSession('s1', 'acme', []));
    expect(sessions.of('s1', 'acme')?.id).toBe('s1');
    expect(sessions.of('s1', 'globex')).toBeUndefined();
    expect(sessions.of('s2', 'acme')).toBeUndefined();
    await sessions.closeAll();
  });

  test('idle: closed after the bound unless a request is in flight; the bound counts from the last request’s end', async () => {
    let now = 0;
    const closed: string[] = [];
    const sessions = new McpSessions(1_000, 10, () => now);
    sessions.add(fakeSession('busy', 'acme', closed));
    sessions.add(fakeSession('idle', 'acme', closed));
    const busy = sessions.of('busy', 'acme');
    if (!busy) throw new Error('no session');
    const end = sessions.use(busy);
    now = 5_000;
    await sessions.closeIdle();
    expect(closed).toEqual(['transport:idle', 'server:idle']);
    end();
    now = 5_500;
    await sessions.closeIdle();
    expect(sessions.size).toBe(1);
    now = 6_000;
    await sessions.closeIdle();
    expect(sessions.size).toBe(0);
    expect(closed).toEqual(['transport:idle', 'server:idle', 'transport:busy', 'server:busy']);
    await sessions.closeAll();
  });

  test('at most maxSessions', async () => {
    const sessions = new McpSessions(60_000, 1);
    expect(sessions.hasRoom()).toBe(true);
    sessions.add(fakeSession('s1', 'acme', []));
    expect(sessions.hasRoom()).toBe(false);
    await sessions.closeAll();
  });
});

describe('cancelRunOnAbort', () => {
  const watch = (connected: boolean) => {
    const controller = new AbortController();
    const cancels: string[] = [];
    const watcher = cancelRunOnAbort(controller.signal, () => connected, async () => void cancels.push('cancel'), () => undefined);
    return { controller, cancels, watcher };
  };

  test('the client cancels the call while connected: the run is cancelled', async () => {
    const { controller, cancels, watcher } = watch(true);
    controller.abort('cancelled by the client');
    await watcher.done();
    expect({ cancels, cancelled: watcher.cancelled() }).toEqual({ cancels: ['cancel'], cancelled: true });
  });

  test('the connection closed (the SDK aborts every handler): the run is kept', async () => {
    const { controller, cancels, watcher } = watch(false);
    controller.abort();
    await watcher.done();
    expect({ cancels, cancelled: watcher.cancelled() }).toEqual({ cancels: [], cancelled: false });
  });

  test('a call that ends without an abort cancels nothing', async () => {
    const { cancels, watcher } = watch(true);
    await watcher.done();
    expect({ cancels, cancelled: watcher.cancelled() }).toEqual({ cancels: [], cancelled: false });
  });
});
