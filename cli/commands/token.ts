import { randomBytes } from 'node:crypto';
import type { Command } from 'commander';
import { AccessGroups } from '../../core/knowledge/document-access';
import { KbName } from '../../core/knowledge/knowledge-base';
import { TenantName } from '../../core/schemas/api-tokens';
import { RagError, describeZodError } from '../../core/errors';
import { hashToken } from '../../runtime/api-token-digest';

/** Reads a token from stdin (trailing newline removed), so that it stays out of shell history and `ps`. */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

/** 32 random bytes: as strong as the SHA-256 that stores it; base64url stays in one URL path segment. */
const newTokenValue = (): string => `rt_${randomBytes(32).toString('base64url')}`;

/** `--groups a,b` as the token's groups (each a metadata value, no "|" or ":"); a bad one is INVALID_INPUT. */
function groupsOfFlag(text: string | undefined): string[] {
  if (text === undefined) return [];
  const groups = text.split(',').map((group) => group.trim()).filter((group) => group !== '');
  if (groups.length === 0) throw new RagError('INVALID_INPUT', '--groups names no group; write --groups a,b');
  for (const group of groups) {
    if (/[|:,\s]/.test(group)) throw new RagError('INVALID_INPUT', `--groups: ${JSON.stringify(group)} holds "|", ":" or a blank, which the token entry cannot carry`);
  }
  const parsed = AccessGroups.safeParse(groups);
  if (!parsed.success) throw new RagError('INVALID_INPUT', describeZodError('invalid --groups', parsed.error));
  return [...new Set(parsed.data)];
}

/** `ragtime token hash|new`: the SHA-256 hashes RAGTIME_API_TOKENS holds (the server never sees a raw token at rest). */
export function registerTokenCommands(program: Command): void {
  const token = program.command('token').description('bearer tokens of the HTTP API (`ragtime serve`): hash one, or make a new one');
  token
    .command('hash')
    .description('print the SHA-256 of a token, for RAGTIME_API_TOKENS="tenant:<hash>" (reads stdin when no token or "-" is given)')
    .argument('[token]', 'the token; omit it (or give "-") to read it from stdin and keep it out of the shell history')
    .action(async (given: string | undefined) => {
      const value = given === undefined || given === '-' ? await readStdin() : given;
      if (value === '') throw new RagError('INVALID_INPUT', 'the token is empty; give one, or pipe it in: printf %s "$TOKEN" | ragtime token hash');
      console.log(hashToken(value));
    });
  token
    .command('new')
    .description("make a random token for a tenant (or, with --operator, the operator's); prints the token once and the entry to configure")
    .argument('[tenant]', 'tenant name (letters, digits, _ . -); none with --operator')
    .option('--kb <name...>', 'knowledge bases the tenant may use (default: the server\'s default one)')
    .option('--groups <list>', 'groups of the token (issue 44 §4), comma-separated: it reads documents whose access list (ingest --acl) holds one, and those without one')
    .option('--operator', "the operator's token: it opens GET /api/doctor (service addresses, model names), and no tenant's data")
    .action((tenant: string | undefined, flags: { kb?: string[]; groups?: string; operator?: boolean }) => {
      if (flags.operator) {
        if (tenant !== undefined || flags.kb || flags.groups !== undefined) throw new RagError('INVALID_INPUT', "an operator's token has no tenant, no knowledge bases and no groups: run `ragtime token new --operator` alone");
        const value = newTokenValue();
        console.log(`token:  ${value}\n        the operator's; it is shown only now and stored nowhere\nconfig: RAGTIME_API_OPERATOR_TOKENS=${hashToken(value)}`);
        return;
      }
      if (tenant === undefined) throw new RagError('INVALID_INPUT', 'name the tenant the token is for (ragtime token new <tenant>), or make the operator\'s with --operator');
      const name = TenantName.safeParse(tenant);
      if (!name.success) throw new RagError('INVALID_INPUT', describeZodError('invalid tenant', name.error));
      const kbs = (flags.kb ?? []).map((kb) => {
        const parsed = KbName.safeParse(kb);
        if (!parsed.success) throw new RagError('INVALID_INPUT', describeZodError(`invalid --kb ${JSON.stringify(kb)}`, parsed.error));
        return parsed.data;
      });
      const groups = groupsOfFlag(flags.groups);
      const value = newTokenValue();
      const entry = `${name.data}:${hashToken(value)}${kbs.length > 0 ? `:${kbs.join('|')}` : ''}${groups.length > 0 ? `:groups=${groups.join('|')}` : ''}`;
      console.log(`token:  ${value}\n        give it to ${name.data}; it is shown only now and stored nowhere\nconfig: RAGTIME_API_TOKENS=${entry}`);
    });
}
