import type { RagConfig } from '../../core/config';

// Shorter values would mask ordinary words; no real key or password is this short.
const MIN_SECRET_LENGTH = 6;

/** The user info of a URL ("user:password"), whole and by part; none when it has none or is not a URL. */
function userInfoOf(url: string | undefined): string[] {
  if (url === undefined) return [];
  try {
    const { username, password } = new URL(url);
    return [password, decodeURIComponent(password), username && password ? `${username}:${password}` : ''];
  } catch {
    return [];
  }
}

/** Every credential the configuration holds: API keys, tokens, URL passwords. */
export function secretsOf(config: RagConfig): string[] {
  const values = [
    config.models.apiKey,
    config.rerank.apiKey,
    config.milvus.token,
    config.temporal.apiKey,
    ...userInfoOf(config.database.url),
    ...userInfoOf(config.embeddings.baseUrl),
    ...userInfoOf(config.models.baseUrl),
    ...userInfoOf(config.rerank.endpoint),
    ...userInfoOf(config.milvus.address),
  ];
  return [...new Set(values.filter((value): value is string => typeof value === 'string' && value.length >= MIN_SECRET_LENGTH))];
}

const mask = (text: string, secrets: readonly string[]) => secrets.reduce((masked, secret) => masked.split(secret).join('***'), text);

/**
 * The last guard before a report leaves the process: each check names its target without credentials already, but
 * a server's error text may echo one (a URL, a key in a message), so every configured secret is masked everywhere.
 */
export function scrubSecrets<T>(value: T, secrets: readonly string[]): T {
  if (secrets.length === 0) return value;
  // Masked in the JSON text, so nested strings (a model's plan, a setting's value) are covered too; a secret is
  // matched as JSON escapes it.
  const escaped = secrets.map((secret) => JSON.stringify(secret).slice(1, -1));
  return JSON.parse(mask(JSON.stringify(value), escaped)) as T;
}
