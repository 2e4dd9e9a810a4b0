import { textLanguage } from '../text/language';

/*
 * A question of several parts (issue 42 §5): "When were the swearing-in and the first meeting?", "X的出生年份和毕业院校
 * 分别是什么？", "A 和 B 分别是多少？", "Where is X? When was it built?". The extractive answerer answers each part
 * from its own best sentence and says which part the evidence does not hold. Pure; the patterns, in order:
 * 1. Two questions: pieces split after ？/? or at ；/; when every piece asks something (a question word, 吗, a "?").
 *    "I'm in a rebase with conflicts; how do I cancel it?" is one question: its first piece asks nothing.
 * 2. Coordinated things: X and Y / X, Y and Z / X 和(与、以及、及) Y (、 inside the chain), each conjunct a short
 *    phrase between the question's frame words (的, 是, a question word, a preposition…). The part's question is the
 *    question with the chain replaced by one conjunct and 分别/respectively/each dropped: "X的出生年份是什么？".
 *    Not when the question relates the things (between, difference, compare, 区别, 关系, 之间, 还是…), nor when an
 *    English chain has no question word before it ("I ran tar and it failed, why?"), nor for a 和 inside a word:
 *    given the question's search tokens, a conjunction counts only where no longer token covers it (共和国).
 */

/** One part: the question it asks on its own, and the phrase that names it ("the first meeting", "毕业院校"). */
export type QuestionPart = { text: string; phrase: string };

/** An English conjunct longer than this many words is a clause, not a thing asked about. */
export const MAX_CONJUNCT_WORDS = 6;

const ASKS = /\b(?:what|when|where|who|whom|whose|which|why|how)\b|^\s*(?:is|are|was|were|do|does|did|can|could|will|would|should|has|have)\b|[?？]|什么|哪|谁|几|多少|多[长久大远高重快]|怎么|怎样|如何|为什么|为何|何时|吗|呢|是否|是不是|有没有/iu;
const RELATES =
  /\b(?:between|differences?|differ|compare[ds]?|comparison|versus|vs\.?|relationship|relation|together|either|combined?|same|similar)\b|之间|关系|区别|差别|差异|不同|相同|异同|共同|一起|一同|合作|比较|对比|相比|联系|合并|齐名|还是|哪个更|哪一个/iu;
const DISTRIBUTIVE = /\s*(?:分别|各自)|,?\s+(?:respectively|each)\b/giu;

const ZH_CONJUNCTIONS = ['以及', '和', '与', '及'];
// A Chinese conjunct ends at these words (or at the question's start or end).
const ZH_BOUNDARIES = [
  '分别', '各自', '什么', '哪', '谁', '几', '多少', '怎么', '怎样', '如何', '为什么', '何时', '是', '的', '为', '有', '在', '对',
  '把', '从', '了', '问', '都', '各', '吗', '呢', '，', ',', '：', ':', '？', '?', '。', '！', '!', '；', ';', '时候',
];
// …and the chain is one of things asked about only when it opens the question or follows 的 or a comma, and is
// followed by 的, 分别, 是, 都 or the question's end: "曹髦与王沈商讨什么" (与 = with) and "X与Y为什么…" are not split.
const ZH_OPENS = ['的', '，', ',', '：', ':'];
const ZH_CLOSES = ['的', '分别', '各自', '是', '都', '？', '?'];
// An English chain ends the question or is followed by "of …", "respectively" or "each".
const EN_CLOSES = /^\s*(?:[?？.!]?\s*$|,?\s*(?:of|respectively|each)\b)/iu;
const EN_FRAME = new Set(
  ('what when where who whom whose which why how is are was were do does did has have had will would can could should ' +
    'of in on for at by about from to with during after before than since i you we they it me us that this these those please tell list name give respectively each')
    .split(' '),
);

const ending = (question: string): string => /[？?]\s*$/u.exec(question)?.[0].trim() ?? '';
const phraseOf = (piece: string): string => piece.replace(/[\s？?。.！!；;]+$/u, '').trim();

/** Pattern 1: the question's own questions, when it asks more than one. */
function separateQuestions(question: string): QuestionPart[] {
  const pieces = question.split(/(?<=[？?])\s*(?=\S)|[；;]\s*/u).map((piece) => piece.trim()).filter((piece) => /[\p{L}\p{N}]/u.test(piece));
  if (pieces.length < 2 || !pieces.every((piece) => ASKS.test(piece))) return [];
  return pieces.map((piece) => ({ text: piece, phrase: phraseOf(piece) }));
}

/** True when the conjunction at `at` is a word of its own: no longer search token spans that position. */
function standsAlone(question: string, at: number, conjunction: string, tokens: readonly string[] | undefined): boolean {
  if (tokens === undefined) return true;
  for (const token of tokens) {
    if (token.length <= conjunction.length) continue;
    for (let offset = token.indexOf(conjunction); offset >= 0; offset = token.indexOf(conjunction, offset + 1)) {
      if (question.slice(at - offset, at - offset + token.length) === token) return false;
    }
  }
  return true;
}

type Chain = { start: number; end: number; conjuncts: string[] };

/** Chinese: the first standalone conjunction, its left conjuncts (split at 、) and the ones after it. */
function chineseChain(question: string, tokens: readonly string[] | undefined): Chain | null {
  const conjunctionAt = (from: number): { at: number; length: number } | null => {
    for (let i = from; i < question.length; i += 1) {
      const word = ZH_CONJUNCTIONS.find((c) => question.startsWith(c, i) && standsAlone(question, i, c, tokens));
      if (word) return { at: i, length: word.length };
    }
    return null;
  };
  const first = conjunctionAt(0);
  if (!first) return null;
  let start = first.at;
  while (start > 0 && !ZH_BOUNDARIES.some((word) => question.slice(0, start).endsWith(word))) start -= 1;
  if (start > 0 && !ZH_OPENS.some((word) => question.slice(0, start).endsWith(word))) return null;
  const conjuncts = question.slice(start, first.at).split('、');
  let cursor = first.at + first.length;
  let end = cursor;
  for (;;) {
    let stop = cursor;
    const ends = (at: number) => [...ZH_BOUNDARIES, ...ZH_CONJUNCTIONS].some((word) => question.startsWith(word, at));
    while (stop < question.length && !ends(stop)) stop += 1;
    conjuncts.push(question.slice(cursor, stop));
    end = stop;
    const next = conjunctionAt(stop);
    if (!next || next.at !== stop) break;
    cursor = next.at + next.length;
  }
  const rest = question.slice(end).trim();
  return rest === '' || ZH_CLOSES.some((word) => rest.startsWith(word)) ? { start, end, conjuncts } : null;
}

/** English: the first standalone "and", the comma-separated conjuncts before it and the one after it. */
function englishChain(question: string): Chain | null {
  const and = /\band\b/iu.exec(question);
  if (!and) return null;
  const words = [...question.slice(0, and.index).matchAll(/[^\s]+/gu)];
  let first = words.length;
  while (first > 0 && !EN_FRAME.has((words[first - 1] as RegExpMatchArray)[0].toLowerCase().replace(/[,:]$/u, ''))) first -= 1;
  if (first === words.length || first === 0) return null;
  const start = (words[first] as RegExpMatchArray).index as number;
  const conjuncts = question.slice(start, and.index).split(',');
  const afterAnd = and.index + and[0].length;
  const after = [...question.slice(afterAnd).matchAll(/[^\s?？.,;!]+/gu)];
  let last = 0;
  while (last < after.length && !EN_FRAME.has((after[last] as RegExpMatchArray)[0].toLowerCase())) last += 1;
  if (last === 0) return null;
  const lastWord = after[last - 1] as RegExpMatchArray;
  const end = afterAnd + (lastWord.index as number) + lastWord[0].length;
  conjuncts.push(question.slice(afterAnd, end));
  return EN_CLOSES.test(question.slice(end)) ? { start, end, conjuncts } : null;
}

const OPENING_BRACKETS = '《「『“（([【';
const CLOSING_BRACKETS = '》」』”）)]】';

const balanced = (text: string): boolean =>
  [...text].filter((char) => OPENING_BRACKETS.includes(char)).length === [...text].filter((char) => CLOSING_BRACKETS.includes(char)).length;

/** True when the chain lies inside a bracket or title mark, or a conjunct opens one it does not close (《食品与…》). */
function insideBrackets(question: string, chain: Chain, conjuncts: readonly string[]): boolean {
  let depth = 0;
  for (const char of question.slice(0, chain.start)) {
    if (OPENING_BRACKETS.includes(char)) depth += 1;
    else if (CLOSING_BRACKETS.includes(char)) depth = Math.max(0, depth - 1);
  }
  return depth > 0 || !conjuncts.every(balanced);
}

/**
 * The parts of `question` (patterns above), or the question itself as its only part. `tokens`, the question's search
 * tokens, tell a conjunction from a character of a longer word; without them every 和 counts.
 */
export function questionParts(question: string, tokens?: readonly string[]): QuestionPart[] {
  const alone = [{ text: question, phrase: phraseOf(question) }];
  const separate = separateQuestions(question);
  if (separate.length > 1) return separate;
  if (RELATES.test(question) || !ASKS.test(question)) return alone;
  const chain = textLanguage(question) === 'zh' ? chineseChain(question, tokens) : englishChain(question);
  if (chain === null) return alone;
  const conjuncts = chain.conjuncts.map((conjunct) => conjunct.trim());
  const tooLong = (conjunct: string) => conjunct.split(/\s+/u).length > MAX_CONJUNCT_WORDS;
  // A single character is a piece of a name (中和帮), not a thing; a conjunction inside 《…》 or brackets is a title's.
  const piece = (conjunct: string) => /^\p{Script=Han}$/u.test(conjunct) || !/[\p{L}\p{N}]/u.test(conjunct);
  if (conjuncts.length < 2 || conjuncts.some((conjunct) => piece(conjunct) || tooLong(conjunct)) || insideBrackets(question, chain, conjuncts)) return alone;
  const before = question.slice(0, chain.start);
  const after = question.slice(chain.end).replace(DISTRIBUTIVE, '');
  return conjuncts.map((conjunct) => ({ text: `${before}${conjunct}${after}`.replace(/\s+([？?])/gu, '$1') || `${conjunct}${ending(question)}`, phrase: conjunct }));
}

/** A part with its question terms: its `own` (those its phrase holds) and the shared ones of the frame. */
export type PartTerms = { part: QuestionPart; own: string[]; terms: string[] };

/**
 * Each part's terms, given the whole question's topic terms; null when the question has one part or a part holds no
 * term of its own (then it is answered as one question).
 */
export function partTerms(parts: readonly QuestionPart[], terms: readonly string[]): PartTerms[] | null {
  if (parts.length < 2) return null;
  const phrases = parts.map((part) => part.phrase.toLowerCase());
  const shared = terms.filter((term) => !phrases.some((phrase) => phrase.includes(term)));
  const split = parts.map((part, i) => {
    const own = terms.filter((term) => (phrases[i] as string).includes(term));
    return { part, own, terms: [...own, ...shared] };
  });
  return split.every((part) => part.own.length > 0) ? split : null;
}
