import type { AnswerCheckAction, NumericWarning, NumericWarningReason, RagAnswer, UnsupportedClaim } from '../schemas/answer';
import { noKnowledgeText } from './no-knowledge-text';
import { checkTokens, type CheckToken } from './numeric-tokens';
import { CITATION_MARKER, hasContent, markersOf, splitSentences } from './sentences';

/*
 * The answer check (issue 26 §4, in the spirit of NexaRAG's verifier), run by verifyAnswer after the citation check.
 *
 * Numeric warnings: every number, quantity (number and unit), date and model name of the answer must be held by one
 * of the answer's valid cited quotes, or by the question (restating the question's own "Aurora X2" or "2024" is not
 * invention). A bare number is held when that value occurs anywhere in them (in a date, a model name, with a unit);
 * a quantity when they hold the value with the same unit, or as a number of its own with no unit (a quoted "256"
 * holds "256GB", the 2 of "2012年2月" does not hold "2 年";
 * a quoted "256GB" does not hold "256MB": unit_mismatch); a date when they hold it or a more precise one ("2024年5月"
 * is held by "2024-05-01"); a model name when they hold it, separators aside ("RTX4090" is held by "RTX 4090").
 * List numbers ("1." at a sentence's start) are not checked.
 *
 * Unsupported claims: a sentence with a valid citation whose content words, the question's words left out, are held
 * by the quotes it cites in a share below MIN_CLAIM_OVERLAP. Content words: Latin words and numbers of two or more
 * characters but a few stop words, and Han bigrams (runs of Han characters split at function characters such as
 * 的, 是, 和; a run of one character counts as one word). A sentence left with no content word is supported.
 */

/** A cited sentence is a claim without support when less than this share of its content words is in its quotes. */
export const MIN_CLAIM_OVERLAP = 0.25;

/** What the check found, and the action ANSWER_CHECK_ACTION makes of it; null when it found nothing. */
export type AnswerCheck = { numeric_warnings: NumericWarning[]; unsupported_claims: UnsupportedClaim[]; action: AnswerCheckAction };

/** A cited quote of the answer that holds (its marker, its text). */
export type HeldQuote = { marker: number; quote: string };

type Support = { tokens: CheckToken[]; values: Set<number>; bare: Set<number>; compact: string };

function supportOf(texts: readonly string[]): Support {
  const tokens = texts.flatMap((text) => checkTokens(text));
  const values = new Set<number>();
  for (const token of tokens) if (token.value !== null) values.add(token.value);
  const compact = texts.map((text) => text.normalize('NFKC').toLowerCase().replace(/[^a-z0-9]+/g, ' ')).join(' ');
  for (const digits of compact.match(/\d+/g) ?? []) values.add(Number(digits));
  // Decimals and thousands as written ("2.5", "1,299"): their tokens gave them already.
  const bare = new Set(tokens.flatMap((token) => (token.kind === 'number' && token.value !== null ? [token.value] : [])));
  return { tokens, values, bare, compact: compact.replace(/\s+/g, '') };
}

/** Why `token` is not held by `support`, or null when it is. */
function unsupported(token: CheckToken, support: Support): Exclude<NumericWarningReason, 'no_cited_quote'> | null {
  const same = (kind: CheckToken['kind']) => support.tokens.filter((other) => other.kind === kind);
  switch (token.kind) {
    case 'number':
      return support.values.has(token.value as number) ? null : 'not_in_quotes';
    case 'quantity': {
      const quantities = same('quantity').filter((other) => other.value === token.value);
      if (quantities.some((other) => other.unit === token.unit)) return null;
      if (quantities.length > 0) return 'unit_mismatch';
      // The value quoted without a unit ("2 至 3 年" holds "2 年"); not a value that is part of a date or another token.
      return support.bare.has(token.value as number) ? null : 'not_in_quotes';
    }
    case 'date': {
      const held = same('date').some(
        (other) => other.canonical === token.canonical || other.canonical.startsWith(`${token.canonical}-`) || (token.canonical.length === 5 && other.canonical.endsWith(`-${token.canonical}`)),
      );
      return held || (token.value !== null && support.values.has(token.value)) ? null : 'not_in_quotes';
    }
    case 'model_name':
      return same('model_name').some((other) => other.canonical === token.canonical) || support.compact.includes(token.canonical.replace(/\./g, '')) ? null : 'not_in_quotes';
  }
}

const LIST_NUMBER = /^\s*\(?\d{1,2}[.、)）]/;

/** The numeric warnings of an answer, sentence by sentence, each token once per sentence. */
export function numericWarnings(answer: string, quotes: readonly HeldQuote[], question: string): NumericWarning[] {
  const support = supportOf([...quotes.map((quote) => quote.quote), question]);
  const warnings: NumericWarning[] = [];
  for (const sentence of splitSentences(answer).filter(hasContent)) {
    const seen = new Set<string>();
    for (const token of checkTokens(sentence)) {
      if (token.kind === 'number' && token.start === 0 && LIST_NUMBER.test(sentence)) continue;
      const why = unsupported(token, support);
      const key = `${token.kind}:${token.canonical}`;
      if (why === null || seen.has(key)) continue;
      seen.add(key);
      warnings.push({ token: token.surface, kind: token.kind, sentence, reason: quotes.length === 0 ? 'no_cited_quote' : why });
    }
  }
  return warnings;
}

const STOP_WORDS = new Set(['the', 'an', 'is', 'are', 'was', 'were', 'be', 'of', 'to', 'in', 'on', 'for', 'and', 'or', 'with', 'it', 'its', 'this', 'that', 'by', 'as', 'at', 'from', 'has', 'have', 'can', 'you', 'your']);
// Function characters that split a Han run before bigrams are taken.
const HAN_BREAKS = /[的了是在和与及或也都就而为被把对从到这那其之吗呢吧啊个]/g;
const HAN_RUN = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+/g;

/** The content words of a text (see above), as a set. */
export function contentWords(text: string): Set<string> {
  const folded = text.replace(CITATION_MARKER, ' ').normalize('NFKC').toLowerCase();
  const words = new Set<string>();
  for (const word of folded.match(/[a-z0-9]+/g) ?? []) if (word.length >= 2 && !STOP_WORDS.has(word)) words.add(word);
  for (const run of folded.replace(HAN_BREAKS, ' ').match(HAN_RUN) ?? []) {
    const chars = [...run];
    if (chars.length === 1) words.add(run);
    for (let i = 0; i + 1 < chars.length; i += 1) words.add(`${chars[i]}${chars[i + 1]}`);
  }
  return words;
}

/** Cited sentences whose words their quotes barely hold (only sentences with a valid citation are looked at). */
export function unsupportedClaims(answer: string, quotes: readonly HeldQuote[], question: string): UnsupportedClaim[] {
  const asked = contentWords(question);
  const claims: UnsupportedClaim[] = [];
  for (const sentence of splitSentences(answer).filter(hasContent)) {
    const markers = new Set(markersOf(sentence));
    const cited = quotes.filter((quote) => markers.has(quote.marker));
    if (cited.length === 0) continue; // uncited: verifyAnswer reports it already
    const held = new Set(cited.flatMap((quote) => [...contentWords(quote.quote)]));
    // A one-character word ("年" of "3 年") is held when the quotes have the character anywhere.
    const quoted = cited.map((quote) => quote.quote.normalize('NFKC')).join(' ');
    const words = [...contentWords(sentence)].filter((word) => !asked.has(word));
    if (words.length === 0) continue;
    const overlap = words.filter((word) => held.has(word) || ([...word].length === 1 && quoted.includes(word))).length / words.length;
    if (overlap < MIN_CLAIM_OVERLAP) claims.push({ sentence, overlap: Math.round(overlap * 100) / 100 });
  }
  return claims;
}

/**
 * The action for these findings: `allow` keeps and only reports them; `warn` keeps the answer, flagged; `refuse`
 * withholds an answer with a numeric warning (a concrete number, date, unit or name no quote holds: the harmful
 * case, and the precise one), and warns on unsupported claims alone (a word-overlap measure, too coarse to refuse on).
 */
export function answerCheckAction(findings: Pick<AnswerCheck, 'numeric_warnings' | 'unsupported_claims'>, policy: AnswerCheckAction): AnswerCheckAction {
  if (policy === 'allow') return 'allow';
  return policy === 'refuse' && findings.numeric_warnings.length > 0 ? 'refuse' : 'warn';
}

/** The check of an answer whose valid cited quotes are `quotes`; null when it finds nothing. */
export function checkAnswer(answer: string, quotes: readonly HeldQuote[], question: string, policy: AnswerCheckAction): AnswerCheck | null {
  const numeric = numericWarnings(answer, quotes, question);
  const claims = unsupportedClaims(answer, quotes, question);
  if (numeric.length === 0 && claims.length === 0) return null;
  return { numeric_warnings: numeric, unsupported_claims: claims, action: answerCheckAction({ numeric_warnings: numeric, unsupported_claims: claims }, policy) };
}

/**
 * The outcome's answer once the check's action is applied: a refused answer's text becomes the no-knowledge
 * sentence in the question's language and the writer's text moves to `withheld_text`; its citations stay (what was
 * found). Any other answer is returned as it is.
 */
export function applyAnswerCheck(answer: RagAnswer, question: string): RagAnswer {
  if (answer.verification.action !== 'refuse') return answer;
  return { ...answer, text: noKnowledgeText(question), withheld_text: answer.withheld_text ?? answer.text };
}
