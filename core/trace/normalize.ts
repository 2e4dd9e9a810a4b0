import { RagError, describeZodError } from '../errors';
import {
  CHUNK_LIST_FIELDS,
  EXTENSION_TRACE_FIELDS,
  RAG_SUB_TRACE_FIELDS,
  RAG_TRACE_FIELDS,
  RagSubTrace,
  RagTrace,
} from '../schemas/rag-trace';
import { RETRIEVED_CHUNK_FIELDS } from '../schemas/retrieved-chunk';
import type { z } from 'zod';

type PlainObject = Record<string, unknown>;

function isPlainObject(value: unknown): value is PlainObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Python truthiness, for the "truthy filename" rule (spec §5.6 step 3). */
function isTruthy(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  if (isPlainObject(value)) return Object.keys(value).length > 0;
  return Boolean(value);
}

function pick(source: PlainObject, fields: readonly string[]): PlainObject {
  const picked: PlainObject = {};
  for (const field of fields) if (field in source) picked[field] = source[field];
  return picked;
}

function normalizeChunkList(value: unknown): PlainObject[] {
  if (!Array.isArray(value)) return [];
  return value
    .filter((item): item is PlainObject => isPlainObject(item) && isTruthy(item.filename))
    .map((item) => pick(item, RETRIEVED_CHUNK_FIELDS));
}

/** Drops null values at every level; keeps false, 0, "" and [] (pydantic's `exclude_none`). */
function dropNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropNulls);
  if (!isPlainObject(value)) return value;
  const out: PlainObject = {};
  for (const [key, item] of Object.entries(value)) {
    if (item !== null && item !== undefined) out[key] = dropNulls(item);
  }
  return out;
}

function validate<S extends z.ZodType>(schema: S, candidate: PlainObject, subject: string): z.infer<S> {
  const parsed = schema.safeParse(candidate);
  if (!parsed.success) throw new RagError('INVALID_TRACE', describeZodError(subject, parsed.error));
  return dropNulls(parsed.data) as z.infer<S>;
}

function projectFields(trace: PlainObject, fields: readonly string[]): PlainObject {
  const projected = pick(trace, fields);
  for (const field of CHUNK_LIST_FIELDS) {
    if (field in projected) projected[field] = normalizeChunkList(projected[field]);
  }
  return projected;
}

/**
 * The external form of a sub-trace (spec §5.6): null for a non-object or an empty object, `{}` for an object
 * of unknown keys only. Throws RagError INVALID_TRACE when a kept value breaks the protocol.
 */
export function normalizeRagSubTrace(trace: unknown): RagSubTrace | null {
  if (!isPlainObject(trace) || Object.keys(trace).length === 0) return null;
  return validate(RagSubTrace, projectFields(trace, RAG_SUB_TRACE_FIELDS), 'rag sub-trace');
}

/**
 * The external, persisted form of a trace (spec §5.6): unknown keys (including the raw `rewrite_count`) dropped,
 * chunk lists filtered to chunks with a truthy filename and projected to the 6 protocol keys, null chunk lists
 * and null sub_traces turned into [], nested sub-traces normalized, and null values removed at every level.
 */
export function normalizeRagTrace(trace: unknown): RagTrace | null {
  if (!isPlainObject(trace) || Object.keys(trace).length === 0) return null;
  const projected = projectFields(trace, [...RAG_TRACE_FIELDS, ...EXTENSION_TRACE_FIELDS]);
  if ('sub_traces' in projected) {
    const subTraces = projected.sub_traces;
    projected.sub_traces = Array.isArray(subTraces)
      ? subTraces.filter(isPlainObject).map(normalizeRagSubTrace).filter((sub) => sub !== null)
      : [];
  }
  return validate(RagTrace, projected, 'rag trace');
}
