import { z } from 'zod';
import { AccessGroups } from '../knowledge/document-access';
import { KbName } from '../knowledge/knowledge-base';

/*
 * Who may call the HTTP API (`ragtime serve`): bearer tokens mapped to tenants. Only the SHA-256 of a token is ever
 * configured or stored; `ragtime token hash <token>` prints it. Several hashes per tenant allow rotation.
 */

/** A tenant name: short and plain, since it appears in logs and the session_owner table. */
export const TenantName = z
  .string()
  .min(1, 'tenant name is empty')
  .max(64, 'tenant name is longer than 64 characters')
  .regex(/^[\w.-]+$/, 'tenant name may hold letters, digits and _ . - only');

/** The hex SHA-256 digest of a token (64 hex digits, stored lower-case). */
export const TokenSha256 = z
  .string()
  .regex(/^[0-9a-fA-F]{64}$/, 'token hash is not 64 hex digits (a SHA-256 digest); print one with `ragtime token hash <token>`')
  .transform((hex) => hex.toLowerCase());

/**
 * A token's tenant and digest, and the knowledge bases its tenant may use (DESIGN §4b). A tenant may use the union
 * of the knowledge bases its tokens list; a tenant whose tokens list none may use the default one (RAGTIME_KB).
 */
export const ApiToken = z.strictObject({
  tenant: TenantName,
  sha256: TokenSha256,
  kbs: z.array(KbName).min(1).optional(),
  /**
   * The token's groups (issue 44 §4): it reads the documents whose access list (`acl`) holds one of them, and those
   * without one. Absent (entries written before groups): none, so it reads only documents without an access list.
   */
  groups: AccessGroups.optional(),
});
export type ApiToken = z.output<typeof ApiToken>;

/** RAGTIME_API_TOKENS_FILE: a JSON array of `{ "tenant": "…", "sha256": "…", "kbs"?: ["…"], "groups"?: ["…"] }`. */
export const ApiTokensFile = z.array(ApiToken);

/** The part of a RAGTIME_API_TOKENS entry that names the token's groups: `groups=a|b` (issue 44 §4). */
const GROUPS_PART = 'groups=';

/**
 * RAGTIME_API_TOKENS: "tenantA:sha256hex,tenantB:sha256hex:kb_one|kb_two,tenantC:sha256hex:groups=finance|hr"
 * (blanks around entries ignored; the knowledge bases the tenant may use, and the token's groups, are optional parts
 * after the hash, in that order). Returns the tokens, or the problems found, each
 * naming the entry by position (never its hash, in case someone pasted a raw token there).
 */
export function parseApiTokenList(text: string): { tokens: ApiToken[]; problems: string[] } {
  const tokens: ApiToken[] = [];
  const problems: string[] = [];
  const entries = text.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  entries.forEach((entry, index) => {
    const [tenant = '', sha256 = '', ...rest] = entry.split(':').map((part) => part.trim());
    const groupsPart = rest.length > 0 && rest[rest.length - 1]!.startsWith(GROUPS_PART) ? rest.pop()!.slice(GROUPS_PART.length) : undefined;
    const [kbs, ...extra] = rest;
    const items = (text: string) => text.split('|').map((item) => item.trim()).filter((item) => item !== '');
    const parsed =
      extra.length > 0
        ? null
        : ApiToken.safeParse({ tenant, sha256, ...(kbs === undefined ? {} : { kbs: items(kbs) }), ...(groupsPart === undefined ? {} : { groups: items(groupsPart) }) });
    if (parsed?.success) tokens.push(parsed.data);
    else {
      const why = parsed ? parsed.error.issues.map((issue) => issue.message).join('; ') : 'too many ":"-separated parts';
      problems.push(`RAGTIME_API_TOKENS: entry ${index + 1} is not "tenant:sha256hex[:kb|kb…][:groups=g|g…]": ${why}`);
    }
  });
  return { tokens, problems };
}

/** RAGTIME_API_TOKENS_FILE's text: the tokens, or the problems found (by position; hashes are never quoted). */
export function parseApiTokensFile(text: string, path: string): { tokens: ApiToken[]; problems: string[] } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { tokens: [], problems: [`RAGTIME_API_TOKENS_FILE ${path} is not JSON: write an array of {"tenant": "…", "sha256": "…"}`] };
  }
  const parsed = ApiTokensFile.safeParse(json);
  if (parsed.success) return { tokens: parsed.data, problems: [] };
  const where = (issuePath: PropertyKey[]) => (issuePath.length === 0 ? 'the file' : `entry ${Number(issuePath[0]) + 1}${issuePath.length > 1 ? ` (${issuePath.slice(1).join('.')})` : ''}`);
  return {
    tokens: [],
    problems: parsed.error.issues.map((issue) => `RAGTIME_API_TOKENS_FILE ${path}: ${where(issue.path)}: ${issue.message}; expected an array of {"tenant": "…", "sha256": "…"}`),
  };
}
