/**
 * A character that continues a token: a secret is masked only where it stands whole, not where it is part of a longer
 * word or key (issue 33 §5: the API key "x" turned "complexity" into "comple***ity").
 */
const TOKEN_CHAR = /[\p{L}\p{N}_-]/u;

/**
 * `text` with every whole occurrence of each secret replaced by `***`: an occurrence counts when the characters on
 * both sides of it (if any) are not letters, digits, `_` or `-`, so "Bearer sk-1", "key=sk-1," and "user:pw@host"
 * are masked and the letters of an ordinary word never are. Longer secrets are masked first (one may contain another).
 */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of [...secrets].filter((value) => value.length > 0).sort((a, b) => b.length - a.length)) {
    let result = '';
    let from = 0;
    for (let at = out.indexOf(secret); at !== -1; at = out.indexOf(secret, at + 1)) {
      if (at < from) continue;
      const before = at === 0 ? '' : out[at - 1] ?? '';
      const after = out[at + secret.length] ?? '';
      if (TOKEN_CHAR.test(before) || TOKEN_CHAR.test(after)) continue;
      result += `${out.slice(from, at)}***`;
      from = at + secret.length;
    }
    out = result + out.slice(from);
  }
  return out;
}
