import { Client } from 'pg';

/*
 * PostgreSQL's LISTEN/NOTIFY as the side channel's push (issue 36 §3): the writer notifies after each append, and a
 * listener is woken within milliseconds instead of at its next poll. One connection per process listens on one
 * channel and hands each notification to the subscribers of its run. Best effort: a lost connection only means the
 * subscribers are not woken, and they still poll (slower); the next subscription reconnects.
 */

/**
 * The answer stream's channel; the payload is `{"w": workflowId, "g": generation, "e": events}`, `e` (the events
 * appended, as stored) only when the payload stays under PostgreSQL's limit: a listener then needs no read.
 */
export const ANSWER_STREAM_CHANNEL = 'ragtime_answer_stream';

/** `events`: what the notification carried (unchecked: the subscriber validates it), absent when it was too long. */
export type AppendListener = (generation: string, events?: unknown) => void;

export type PgNotifications = {
  /** Calls `listener` whenever events of `key` are appended, from any process; returns the unsubscribe. */
  subscribe(key: string, listener: AppendListener): () => void;
  close(): Promise<void>;
};

type Payload = { w: string; g: string; e?: unknown };

/** PostgreSQL refuses payloads of 8,000 bytes or more; a payload with its events above this goes without them. */
const MAX_PAYLOAD_BYTES = 7_900;

/** The notification's payload for one append: the run, the generation, and the events when they fit. */
export function notificationPayload(workflowId: string, generation: string, events: unknown): string {
  const withEvents = JSON.stringify({ w: workflowId, g: generation, e: events } satisfies Payload);
  return Buffer.byteLength(withEvents) < MAX_PAYLOAD_BYTES ? withEvents : JSON.stringify({ w: workflowId, g: generation } satisfies Payload);
}

export function createPgNotifications(databaseUrl: string, channel = ANSWER_STREAM_CHANNEL): PgNotifications {
  const listeners = new Map<string, Set<AppendListener>>();
  let connection: Promise<Client | null> | null = null;

  const onNotification = (message: { channel: string; payload?: string }) => {
    if (message.channel !== channel || !message.payload) return;
    let payload: Payload;
    try {
      payload = JSON.parse(message.payload) as Payload;
    } catch {
      return;
    }
    for (const listener of listeners.get(payload.w) ?? []) listener(payload.g, payload.e);
  };

  const connect = (): Promise<Client | null> => {
    const client = new Client({ connectionString: databaseUrl });
    const forget = () => {
      connection = null;
      client.removeAllListeners();
      client.on('error', () => undefined);
      void client.end().catch(() => undefined);
    };
    client.on('notification', onNotification);
    client.on('error', forget);
    client.on('end', () => (connection = null));
    return client
      .connect()
      .then(() => client.query(`LISTEN ${channel}`))
      .then(() => client)
      .catch(() => {
        forget();
        return null;
      });
  };

  return {
    subscribe(key, listener) {
      connection ??= connect();
      const set = listeners.get(key) ?? new Set<AppendListener>();
      set.add(listener);
      listeners.set(key, set);
      return () => {
        set.delete(listener);
        if (set.size === 0) listeners.delete(key);
      };
    },
    async close() {
      listeners.clear();
      const client = await connection;
      connection = null;
      await client?.end().catch(() => undefined);
    },
  };
}
