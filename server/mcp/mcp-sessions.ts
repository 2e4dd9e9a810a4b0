import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';

/** One open MCP session of the Streamable HTTP endpoint: its server and transport, and the tenant that opened it. */
export type McpSession = {
  id: string;
  tenant: string;
  server: McpServer;
  transport: StreamableHTTPServerTransport;
  /** POST requests of this session being served now (a long tool call keeps its session from going idle). */
  active: number;
  lastUsed: number;
};

export const DEFAULT_IDLE_SESSION_MS = 30 * 60_000;
export const DEFAULT_MAX_SESSIONS = 1_000;

/**
 * The open sessions of /mcp (docs/MCP.md). A session belongs to the tenant whose token opened it: to any other
 * token it does not exist (as a run or session of another tenant in the HTTP API). A session with no request in
 * flight and none for `idleMs` is closed, so a client that vanished without DELETE leaves nothing behind.
 */
export class McpSessions {
  private readonly sessions = new Map<string, McpSession>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly idleMs: number = DEFAULT_IDLE_SESSION_MS,
    private readonly maxSessions: number = DEFAULT_MAX_SESSIONS,
    private readonly now: () => number = Date.now,
  ) {
    this.sweeper = setInterval(() => void this.closeIdle(), Math.max(50, Math.min(idleMs / 2, 60_000)));
    // The sweeper alone never keeps the process alive.
    this.sweeper.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  hasRoom(): boolean {
    return this.sessions.size < this.maxSessions;
  }

  add(session: Omit<McpSession, 'active' | 'lastUsed'>): void {
    this.sessions.set(session.id, { ...session, active: 0, lastUsed: this.now() });
  }

  /** The session, if `tenant` opened it; undefined for an unknown id and for another tenant's. */
  of(id: string, tenant: string): McpSession | undefined {
    const session = this.sessions.get(id);
    return session && session.tenant === tenant ? session : undefined;
  }

  /** Marks a request of the session as being served until the returned function is called. */
  use(session: McpSession): () => void {
    session.active += 1;
    session.lastUsed = this.now();
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      session.active -= 1;
      session.lastUsed = this.now();
    };
  }

  /** Forgets a session (its transport closed: DELETE, idle, or shutdown). */
  remove(id: string): void {
    this.sessions.delete(id);
  }

  async closeIdle(): Promise<void> {
    const cutoff = this.now() - this.idleMs;
    const idle = [...this.sessions.values()].filter((session) => session.active === 0 && session.lastUsed <= cutoff);
    await Promise.allSettled(idle.map((session) => this.close(session)));
  }

  async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.allSettled([...this.sessions.values()].map((session) => this.close(session)));
  }

  private async close(session: McpSession): Promise<void> {
    this.sessions.delete(session.id);
    await session.transport.close();
    await session.server.close();
  }
}
