import type { Payload } from '@temporalio/common';
import { z } from 'zod';

/*
 * Payloads in proto3 JSON, as the Temporal UI and CLI send them to a codec endpoint: `{ "payloads": [{ "metadata":
 * { "<key>": "<base64>" }, "data": "<base64>" }] }`. Empty fields may be left out (proto3 JSON omits defaults).
 */

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;
const base64 = z.string().regex(BASE64, 'is not base64');

export const JsonPayload = z.object({
  metadata: z.record(z.string(), base64).nullish(),
  data: base64.nullish(),
});
export type JsonPayload = z.infer<typeof JsonPayload>;

export const JsonPayloads = z.object({ payloads: z.array(JsonPayload) });
export type JsonPayloads = z.infer<typeof JsonPayloads>;

export function fromJsonPayload({ metadata, data }: JsonPayload): Payload {
  return {
    metadata: Object.fromEntries(Object.entries(metadata ?? {}).map(([key, value]) => [key, Buffer.from(value, 'base64')])),
    data: Buffer.from(data ?? '', 'base64'),
  };
}

export function toJsonPayload({ metadata, data }: Payload): JsonPayload {
  return {
    metadata: Object.fromEntries(Object.entries(metadata ?? {}).map(([key, value]) => [key, Buffer.from(value ?? []).toString('base64')])),
    data: Buffer.from(data ?? []).toString('base64'),
  };
}
