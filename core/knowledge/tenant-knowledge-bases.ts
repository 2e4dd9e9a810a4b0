import type { ApiToken } from '../schemas/api-tokens';

/**
 * The knowledge bases that are a tenant's alone, which `ragtime tenant purge` drops (issue 45 §2), and those it
 * shares, which it keeps. A knowledge base is a tenant's through its tokens' `kbs` (DESIGN §4b; the HTTP API's
 * tenant directory reads the same list). It is shared when another tenant's token lists it too, and the default one
 * (RAGTIME_KB) is always shared: every tenant whose tokens list none uses it, and so does the operator's CLI.
 *
 * @example
 * tenantKnowledgeBases([{ tenant: 'acme', sha256, kbs: ['acme_kb', 'faq'] }, { tenant: 'globex', sha256, kbs: ['faq'] }], 'acme', 'manuals');
 * // { own: ['acme_kb'], shared: [{ kb: 'faq', with: ['globex'] }] }
 */
export function tenantKnowledgeBases(
  tokens: readonly ApiToken[],
  tenant: string,
  defaultKb: string,
): { own: string[]; shared: Array<{ kb: string; with: string[] }> } {
  const listed = [...new Set(tokens.filter((token) => token.tenant === tenant).flatMap((token) => token.kbs ?? []))].sort();
  const users = (kb: string) => [...new Set(tokens.filter((token) => token.tenant !== tenant && (token.kbs ?? [defaultKb]).includes(kb)).map((token) => token.tenant))].sort();
  const own: string[] = [];
  const shared: Array<{ kb: string; with: string[] }> = [];
  for (const kb of listed) {
    const others = users(kb);
    if (kb === defaultKb) shared.push({ kb, with: [...others, '(the default knowledge base)'] });
    else if (others.length > 0) shared.push({ kb, with: others });
    else own.push(kb);
  }
  return { own, shared };
}
