import { statSync, unlinkSync } from 'node:fs';
import * as net from 'node:net';
import type { AppendListener, PgNotifications } from './pg-notifications';

/*
 * The side channel's push on the single-machine default (issue 47 §2): SQLite has no LISTEN/NOTIFY, so the processes
 * that share one SQLite file (workers, `ragtime serve`, the CLI) share a Unix socket beside it, `<file>.push`. The
 * first process that needs it listens there (the hub), every other one connects to it; a writer sends each append's
 * events to the hub, which passes them to the processes subscribed to that run. When the hub goes away (its process
 * ends or is killed), the others elect a new one at once: the first to find the socket dead removes it and listens.
 * Best effort, as PostgreSQL's: a push lost while the channel is down only means a listener is woken by its fallback
 * poll; the events are in the store, and the run's result is the record.
 * The socket file carries its folder's permissions: who may not read the database cannot reach its push either.
 */

/** Frames are JSON lines: subscribe, unsubscribe and publish (to the hub); a push (from the hub): `{w, g, e?}`. */
type Frame = { t: 's' | 'u'; w: string } | { t: 'p'; w: string; g: string; e?: unknown };
type Push = { w: string; g: string; e?: unknown };

export type LocalNotifications = PgNotifications & {
  /** Tells the subscribers of `workflowId`, in every process sharing the file, that these events were appended. */
  publish(workflowId: string, generation: string, events: unknown): void;
};

/** Unix socket paths are limited to 108 bytes on Linux, 104 on macOS: a longer one gets no push (readers poll). */
const MAX_SOCKET_PATH = 103;
/** A push carries its events up to this size, else only the generation (the listener reads the store). */
const MAX_EVENTS_BYTES = 64 * 1024;
/** A peer this far behind is dropped (it reconnects; its listeners poll meanwhile); a longer line is not a frame. */
const MAX_BUFFERED_BYTES = 1024 * 1024;
/** How soon a subscriber that lost the hub tries again, and how often a hub checks the socket file is still its own. */
const RETRY_MS = 50;
const CHECK_MS = 2_000;

/** The socket beside a SQLite file; null for an in-memory database (no other process shares it) or a long path. */
export function localPushPath(sqliteFile: string): string | null {
  if (sqliteFile === ':memory:' || sqliteFile === '') return null;
  const socket = `${sqliteFile}.push`;
  return Buffer.byteLength(socket) <= MAX_SOCKET_PATH ? socket : null;
}

/** Reads JSON lines from a socket; a line that does not parse is skipped, an endless one closes the socket. */
function onFrames(socket: net.Socket, handle: (frame: Record<string, unknown>) => void): void {
  let buffered = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffered += chunk;
    if (buffered.length > MAX_BUFFERED_BYTES) return void socket.destroy();
    let end: number;
    while ((end = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      try {
        const frame: unknown = JSON.parse(line);
        if (frame && typeof frame === 'object' && typeof (frame as { w?: unknown }).w === 'string') handle(frame as Record<string, unknown>);
      } catch {
        // Not a frame: skipped.
      }
    }
  });
  socket.on('error', () => undefined);
}

const send = (socket: net.Socket, frame: Frame | Push) => {
  if (socket.destroyed) return;
  if (socket.writableLength > MAX_BUFFERED_BYTES) return void socket.destroy();
  socket.write(`${JSON.stringify(frame)}\n`);
};

export function createLocalNotifications(socketPath: string): LocalNotifications {
  const listeners = new Map<string, Set<AppendListener>>();
  let role: 'none' | 'electing' | 'client' | 'hub' = 'none';
  let client: net.Socket | null = null;
  let hub: { server: net.Server; peers: Map<net.Socket, Set<string>>; identity: string; check: NodeJS.Timeout } | null = null;
  /** Which socket file is there (an inode number alone may be reused at once for the next file); '' when none. */
  const identity = () => {
    try {
      const stat = statSync(socketPath);
      return `${stat.ino}:${stat.ctimeMs}`;
    } catch {
      return '';
    }
  };
  let queued: Frame[] = [];
  let closed = false;
  let retry: NodeJS.Timeout | undefined;

  const deliverHere = (push: Push) => {
    for (const listener of listeners.get(push.w) ?? []) listener(push.g, push.e);
  };
  /** The hub's job: a published append to the subscribers of its run, here and in the other processes. */
  const relay = (push: Push) => {
    deliverHere(push);
    for (const [peer, runs] of hub?.peers ?? []) if (runs.has(push.w)) send(peer, { w: push.w, g: push.g, ...(push.e === undefined ? {} : { e: push.e }) });
  };
  const handleHere = (frame: Frame) => {
    if (frame.t === 'p') relay(frame);
  };

  /**
   * The hub is gone (or this one steps down): elect again. A hub that steps down because the file is another's now
   * does not close its server: closing unlinks the path, which is the new hub's (its fd goes with the process).
   */
  const lost = (replaced = false) => {
    client = null;
    if (hub) {
      clearInterval(hub.check);
      for (const peer of hub.peers.keys()) peer.destroy();
      if (!replaced) hub.server.close();
      hub = null;
    }
    role = 'none';
    // A subscriber elects again soon (the jitter: not every process at the same moment); a writer when it publishes.
    if (!closed && listeners.size > 0) {
      clearTimeout(retry);
      retry = setTimeout(() => elect(), RETRY_MS * (1 + Math.random())).unref();
    }
  };

  const becomeClient = (socket: net.Socket) => {
    if (closed) return void socket.destroy();
    role = 'client';
    client = socket;
    onFrames(socket, (push) => deliverHere(push as Push));
    socket.on('close', () => {
      if (client === socket) lost();
    });
    for (const workflowId of listeners.keys()) send(socket, { t: 's', w: workflowId });
    for (const frame of queued.splice(0)) send(socket, frame);
  };

  const becomeHub = (server: net.Server) => {
    if (closed) return void server.close();
    const peers = new Map<net.Socket, Set<string>>();
    // Another process that judged this socket dead may have replaced it: then this hub steps down and joins theirs.
    const check = setInterval(() => {
      if (hub && identity() !== hub.identity) lost(true);
    }, CHECK_MS).unref();
    hub = { server, peers, identity: identity(), check };
    role = 'hub';
    server.on('connection', (peer) => {
      peer.unref();
      const runs = new Set<string>();
      peers.set(peer, runs);
      onFrames(peer, (frame) => {
        if (frame.t === 's') runs.add(frame.w as string);
        else if (frame.t === 'u') runs.delete(frame.w as string);
        else if (frame.t === 'p' && typeof frame.g === 'string') relay(frame as Push);
      });
      peer.on('close', () => peers.delete(peer));
    });
    for (const frame of queued.splice(0)) handleHere(frame);
  };

  /** Joins the hub, or becomes it: the first to find no live socket listens (a dead one's file is removed first). */
  function elect(attempt = 0): void {
    if (closed || role !== 'none') return;
    role = 'electing';
    const giveUp = () => {
      role = 'none';
      queued = [];
      if (!closed && listeners.size > 0 && attempt < 20) retry = setTimeout(() => elect(attempt + 1), RETRY_MS * (attempt + 1)).unref();
    };
    const socket = net.connect(socketPath).unref();
    socket.once('connect', () => {
      socket.removeAllListeners('error');
      becomeClient(socket);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      socket.destroy();
      if (error.code !== 'ENOENT' && error.code !== 'ECONNREFUSED') return giveUp();
      if (error.code === 'ECONNREFUSED') {
        try {
          unlinkSync(socketPath);
        } catch {
          // Removed by another process electing at the same time.
        }
      }
      const server = net.createServer().unref();
      server.once('error', () => {
        role = 'none';
        // EADDRINUSE: another process listened first; join it.
        if (attempt < 3) elect(attempt + 1);
        else giveUp();
      });
      server.listen(socketPath, () => becomeHub(server));
    });
  }

  const submit = (frame: Frame) => {
    if (closed) return;
    if (role === 'hub') return handleHere(frame);
    if (role === 'client' && client) return send(client, frame);
    // Electing: sent once there is a hub (subscriptions are resent from `listeners` then, so only publishes queue).
    if (frame.t === 'p' && queued.length < 1_000) queued.push(frame);
    elect();
  };

  return {
    publish(workflowId, generation, events) {
      const fits = events !== undefined && Buffer.byteLength(JSON.stringify(events)) <= MAX_EVENTS_BYTES;
      submit({ t: 'p', w: workflowId, g: generation, ...(fits ? { e: events } : {}) });
    },
    subscribe(workflowId, listener) {
      const set = listeners.get(workflowId) ?? new Set<AppendListener>();
      const first = set.size === 0;
      set.add(listener);
      listeners.set(workflowId, set);
      if (first) submit({ t: 's', w: workflowId });
      return () => {
        set.delete(listener);
        if (set.size > 0 || listeners.get(workflowId) !== set) return;
        listeners.delete(workflowId);
        if (role === 'client' && client) send(client, { t: 'u', w: workflowId });
      };
    },
    close() {
      closed = true;
      clearTimeout(retry);
      listeners.clear();
      queued = [];
      client?.destroy();
      lost();
      return Promise.resolve();
    },
  };
}
