import * as path from 'node:path';
import type { Command } from 'commander';
import { DEFAULT_CODEC_KEY_FILE_NAME } from '../../core/codec-keys';
import { RagError } from '../../core/errors';
import { generateKeyFile, newKeyId, rotateKeyFile } from '../codec-key-file';
import type { CliContext } from '../context';
import { cliDataDir } from '../data-dir';
import { EXIT } from '../exit-codes';
import { untilStopped } from '../until-stopped';

/** The key file the commands work on: --file, else RAGTIME_CODEC_KEY_FILE, else RAGTIME_DATA_DIR/codec-keys.json. */
function keyFileOf(flag: string | undefined): string {
  return flag ?? (process.env.RAGTIME_CODEC_KEY_FILE?.trim() || path.join(cliDataDir(process.env), DEFAULT_CODEC_KEY_FILE_NAME));
}

/** `ragtime codec-server` and `ragtime codec-keys generate|rotate` (docs/SECURITY.md). */
export function registerCodecCommands(program: Command, context: CliContext, setExit: (code: number) => void): void {
  program
    .command('codec-server')
    .description('serve the payload codec for the Temporal UI (POST /encode, /decode; CORS for the UI; bearer tokens) until Ctrl-C')
    .option('--port <n>', 'port (default RAGTIME_CODEC_PORT, 8234)')
    .option('--host <host>', 'address to bind (default RAGTIME_CODEC_HOST, 127.0.0.1)')
    .action(async (flags: { port?: string; host?: string }) => {
      const { codec, codecServer } = context.config;
      if (codec === null) {
        throw new RagError('INVALID_CONFIG', 'no codec keys are configured, so there is nothing to decrypt: set RAGTIME_CODEC_KEYS or RAGTIME_CODEC_KEY_FILE (or run `ragtime codec-keys generate`)');
      }
      if (codecServer.tokens.length === 0) {
        throw new RagError('INVALID_CONFIG', 'RAGTIME_CODEC_TOKENS is not set: the codec server decrypts for whoever calls it, so it needs at least one token digest (printf %s "$TOKEN" | sha256sum)');
      }
      const port = flags.port === undefined ? codecServer.port : Number(flags.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) {
        console.error(`ragtime: INVALID_INPUT: --port ${flags.port} is not a port number`);
        setExit(EXIT.usage);
        return;
      }
      const running = await context.host.serveCodec(codec, codecServer, { host: flags.host ?? codecServer.host, port });
      console.log(running.banner);
      await untilStopped();
      await running.close();
    });

  const keys = program.command('codec-keys').description('create or rotate the payload-encryption key file (keys are never printed)');
  keys
    .command('generate')
    .description('create a key file with one fresh AES-256 key (refuses to overwrite one)')
    .option('--file <path>', `key file (default RAGTIME_CODEC_KEY_FILE, else RAGTIME_DATA_DIR/${DEFAULT_CODEC_KEY_FILE_NAME})`)
    .option('--id <id>', 'key id (default k-<yyyymmdd>-<random>)')
    .action((flags: { file?: string; id?: string }) => {
      const file = keyFileOf(flags.file);
      const { activeKeyId } = generateKeyFile(file, flags.id ?? newKeyId(new Date()));
      console.log(`wrote ${file} (mode 0600): active key "${activeKeyId}"; every client, worker and codec server needs this file`);
    });
  keys
    .command('rotate')
    .description('add a fresh key as the active one; older keys stay, so existing histories remain readable')
    .option('--file <path>', `key file (default RAGTIME_CODEC_KEY_FILE, else RAGTIME_DATA_DIR/${DEFAULT_CODEC_KEY_FILE_NAME})`)
    .option('--id <id>', 'key id (default k-<yyyymmdd>-<random>)')
    .action((flags: { file?: string; id?: string }) => {
      const file = keyFileOf(flags.file);
      const { activeKeyId, keyCount, previous } = rotateKeyFile(file, flags.id ?? newKeyId(new Date()));
      console.log(`rotated ${file}: active key "${activeKeyId}" (was "${previous}"), ${keyCount} keys; restart workers, clients and the codec server to use it`);
    });
}
