import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync, mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { CODEC_KEY_BYTES, CodecKeyId, parseCodecKeyFile } from '../core/codec-keys';
import { RagError } from '../core/errors';

/*
 * The codec key file (docs/SECURITY.md): `{ "activeKeyId": "…", "keys": [{ "id": "…", "key": "<base64>" }] }`,
 * written with mode 0600. `generate` creates one with a fresh key; `rotate` adds a fresh key as the active one and
 * keeps the others, so everything written before stays readable.
 */

type KeyFile = { activeKeyId: string; keys: Array<{ id: string; key: string }> };

/** A new key id: the date and a random suffix, e.g. "k-20261130-3fa2". */
export function newKeyId(now: Date): string {
  return `k-${now.toISOString().slice(0, 10).replace(/-/g, '')}-${randomBytes(2).toString('hex')}`;
}

const freshKey = (): string => randomBytes(CODEC_KEY_BYTES).toString('base64');

function write(file: string, content: KeyFile): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, file); // atomic: a reader sees the old file or the new one, never half of one
}

function checkId(id: string): string {
  const parsed = CodecKeyId.safeParse(id);
  if (!parsed.success) throw new RagError('INVALID_INPUT', `key id ${JSON.stringify(id)}: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  return parsed.data;
}

/** Creates a key file with one fresh key; refuses to overwrite an existing file (its keys may still be needed). */
export function generateKeyFile(file: string, id: string): { activeKeyId: string; keyCount: number } {
  if (existsSync(file)) {
    throw new RagError('INVALID_INPUT', `${file} exists; its keys may still be needed to read histories. Use \`ragtime codec-keys rotate\` to add a key`);
  }
  const activeKeyId = checkId(id);
  write(file, { activeKeyId, keys: [{ id: activeKeyId, key: freshKey() }] });
  return { activeKeyId, keyCount: 1 };
}

/** Adds a fresh key as the active one, keeping every other key for decryption. */
export function rotateKeyFile(file: string, id: string): { activeKeyId: string; keyCount: number; previous: string } {
  if (!existsSync(file)) throw new RagError('INVALID_INPUT', `${file} does not exist; create it with \`ragtime codec-keys generate\``);
  const text = readFileSync(file, 'utf8');
  const { keyring, problems } = parseCodecKeyFile(text, file);
  if (keyring === null) throw new RagError('INVALID_CONFIG', problems.join('; '));
  const activeKeyId = checkId(id);
  if (keyring.keys.some((key) => key.id === activeKeyId)) throw new RagError('INVALID_INPUT', `key id "${activeKeyId}" is already in ${file}; pick a new id`);
  const existing = (JSON.parse(text) as KeyFile).keys;
  write(file, { activeKeyId, keys: [{ id: activeKeyId, key: freshKey() }, ...existing] });
  return { activeKeyId, keyCount: existing.length + 1, previous: keyring.activeKeyId };
}
