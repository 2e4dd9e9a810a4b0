import { textLanguage } from '../text/language';
import { REFERENCE_WORDS, STOPWORDS } from './text-signals';

/*
 * The terms of a question the offline grader v2 weighs (docs/offline-policy.md): jieba's precise-mode words (no
 * overlapping search-mode pieces, so nothing counts twice), each weighted by its inverse document frequency, and
 * marked `required` when it names something specific — a number or date, a Latin-script name or model ("C1",
 * "BM25"), a title in 《》, or a proper noun (jieba's nr/ns/nt/nz tags, or a word its dictionary does not know).
 * The word a question word asks for ("哪个国家", "什么时期") names the kind of the answer, which the evidence states
 * by example (英国, 唐朝): it weighs little and is never required. The words themselves come from the caller (jieba
 * in the adapter), so this stays pure.
 */

/** A word of the question and its part of speech (jieba's tags: nr person, ns place, nt organization, m numeral…). */
export type TaggedWord = { word: string; tag: string };

export type QuestionTerm = {
  term: string;
  /** Inverse document frequency (times ANSWER_TYPE_FACTOR for the answer's kind): rare words say more. */
  weight: number;
  /** A specific thing the question names: the evidence must hold it (as a whole token when `exact`). */
  required: boolean;
  /** Matched as a whole token (numbers, Latin words), so that "8" is not found inside "28日". */
  exact: boolean;
};

/** Parts of speech that name a specific thing. */
export const NAMED_TAGS: ReadonlySet<string> = new Set(['nr', 'nrt', 'nrfg', 'ns', 'nt', 'nz', 'eng']);
/** jieba's tag for a word its dictionary does not know (found by its HMM): usually a name (张舒雅, 郑有杰). */
export const UNKNOWN_WORD_TAG = 'x';
/** Calendar and counting words that say nothing about a topic on their own (a date's number carries it). */
export const UNIT_WORDS: ReadonlySet<string> = new Set(['年', '月', '日', '号', '天', '时', '分', '秒', '岁', '个', '次', '位', '名', '种', '第']);
/**
 * Parts of speech that carry no topic: pronouns and question words (r: 什么, 哪), particles (u), prepositions (p),
 * conjunctions (c), adverbs (d), modal and interjection words (y, e, o), locality words (f: 中, 上), measure words (q).
 */
export const FUNCTION_TAGS: ReadonlySet<string> = new Set(['r', 'rr', 'rz', 'rg', 'u', 'ud', 'ug', 'uj', 'ul', 'uv', 'uz', 'p', 'c', 'd', 'dg', 'df', 'y', 'e', 'o', 'f', 'q']);
/** Question words (什么, 哪一年, 几轮, 多少): they ask, they name nothing. */
const QUESTION_WORD = /^(?:什么|啥|哪|何|几|多少|多[远久大高长重宽深厚])/u;
/** Question words whose next noun is the kind of thing asked for (哪个国家 → 国家, 什么时期 → 时期). */
const ASKING_FOR_A_NOUN = /^(?:什么|啥|哪|哪个|哪些|哪种|哪类|哪家|哪位|哪部|哪条|哪所|哪支|哪座|哪款|哪只|哪本|哪项|哪场|哪届|何种|几|多少)$/u;
/** What the kind of the answer weighs against its IDF: the evidence names the answer, seldom its kind. */
export const ANSWER_TYPE_FACTOR = 0.25;
/** The weight of a word the IDF table does not know (jieba's own choice for unknown words: the median). */
export const UNKNOWN_WORD_IDF = 11.7;
/** Characters jieba's HMM glues onto an unknown word ("器是", "潘淑是", "俗称作"): particles and light verbs. */
const GLUED_CHARACTERS = /^[的是有]|[的是在有了叫作为]$/u;

const PUNCTUATION_ONLY = /^[\s\p{P}\p{S}]*$/u;
const HAS_DIGIT = /\p{N}/u;
const HAS_LETTER = /\p{L}/u;
const LATIN = /^[\p{Script=Latin}\p{N}._+#-]+$/u;
const HAN_ONLY = /^\p{Script=Han}+$/u;
/**
 * Parts of speech of the pieces a name jieba does not know comes out in: proper nouns, unknown words, morphemes and
 * abbreviations (火斑/x 笛/nr 鲷/g, 吉尔杭/x 阿/j) — not common nouns (椰子/n 猫/n 又称/n is three words).
 */
const NAME_PIECE_TAG = /^(?:nr[a-z]*|ns|nt|nz|x|g|ng|zg|j)$/;

/** The titles a question puts in 《》: names whatever their words. */
export function quotedTitles(question: string): string[] {
  return [...question.matchAll(/《([^》]+)》/gu)].map((match) => (match[1] as string).trim().toLowerCase()).filter((title) => title !== '');
}

/**
 * Whether a Latin-script word names something: in a Chinese question any Latin word does (Aurora, X2, BM25); in an
 * English one, a word with a capital letter past the first word, or with a digit (Orbit, CLI, v2).
 */
function latinNames(word: string, index: number, chineseQuestion: boolean): boolean {
  return chineseQuestion || HAS_DIGIT.test(word) || (index > 0 && /\p{Lu}/u.test(word));
}

/**
 * An unknown word without the particle its HMM glued on ("潘淑是" → "潘淑"). It names something when three or more
 * characters are left: two-character unknown words are mostly a word boundary the HMM misplaced ("里排", "器是").
 */
function unknownWord(term: string): { term: string; named: boolean } {
  const trimmed = term.replace(GLUED_CHARACTERS, '');
  return { term: trimmed, named: [...trimmed].length >= 3 };
}

/** A question word: 什么, 几轮, 多少 (pronoun or numeral), or any word starting with 哪 that is not a name (哪年, 哪国). */
function isQuestionWord(term: string, tag: string): boolean {
  if (!QUESTION_WORD.test(term)) return false;
  if (tag === UNKNOWN_WORD_TAG) return /^(?:哪|多)/u.test(term);
  return tag.startsWith('r') || tag === 'm' || (term.startsWith('哪') && !NAMED_TAGS.has(tag));
}

const ALPHANUMERIC = /^[\p{Script=Latin}\p{N}]+$/u;

/** jieba splits "Wi-Fi", "USB-C" and "v1.2" at the joiner: one word again, as they are written. */
function joinLatinWords(words: readonly TaggedWord[]): TaggedWord[] {
  const out: TaggedWord[] = [];
  for (let i = 0; i < words.length; i += 1) {
    const word = words[i] as TaggedWord;
    const previous = out.at(-1);
    const next = words[i + 1];
    if (previous && next && (word.word === '-' || word.word === '.') && ALPHANUMERIC.test(previous.word) && ALPHANUMERIC.test(next.word) && /\p{Script=Latin}/u.test(previous.word + next.word)) {
      out[out.length - 1] = { word: `${previous.word}${word.word}${next.word}`, tag: 'eng' };
      i += 1;
    } else out.push(word);
  }
  return out;
}

type Kept = QuestionTerm & { at: number; compoundable: boolean };

/**
 * A name jieba's dictionary does not hold comes out in pieces, one of them a single character (火斑 + 笛 + 鲷,
 * 瑞 + 尼尔): adjacent pieces like that are one name, matched whole ("火斑笛鲷" is not "银纹笛鲷"), required,
 * weighing what its pieces weigh together.
 */
function joinCompounds(kept: readonly Kept[]): Kept[] {
  const out: Kept[] = [];
  let run: Kept[] = [];
  const flush = () => {
    if (run.length >= 2 && run.some((piece) => [...piece.term].length === 1)) {
      out.push({ term: run.map((piece) => piece.term).join(''), weight: run.reduce((sum, piece) => sum + piece.weight, 0), required: true, exact: false, at: run[0]!.at, compoundable: false });
    } else out.push(...run);
    run = [];
  };
  for (const piece of kept) {
    const previous = run.at(-1);
    if (!piece.compoundable || (previous && previous.at + 1 !== piece.at)) flush();
    if (piece.compoundable) run.push(piece);
    else out.push(piece);
  }
  flush();
  return out;
}

export function questionTerms(question: string, words: readonly TaggedWord[], idf: (word: string) => number | undefined): QuestionTerm[] {
  const references = new Set<string>(REFERENCE_WORDS);
  const titles = quotedTitles(question);
  const chinese = textLanguage(question) === 'zh';
  const kept: Kept[] = [];
  let position = 0;
  let asking = false;
  joinLatinWords(words).forEach(({ word, tag }, at) => {
    const index = PUNCTUATION_ONLY.test(word) ? position : position++;
    let term = word.trim().toLowerCase();
    if (term === '' || PUNCTUATION_ONLY.test(term)) return;
    const numeric = HAS_DIGIT.test(term);
    const latin = LATIN.test(term);
    let unknownName = false;
    if (!latin && !numeric && tag === UNKNOWN_WORD_TAG) ({ term, named: unknownName } = unknownWord(term));
    if (!numeric && isQuestionWord(term, tag)) {
      asking = ASKING_FOR_A_NOUN.test(term);
      return;
    }
    // Between a question word and its noun: a numeral or measure (哪一段时期, 哪两条线路).
    if (asking && !numeric && (tag === 'm' || tag === 'q')) return;
    const answerType = asking;
    asking = false;
    if (STOPWORDS.has(term) || references.has(term) || UNIT_WORDS.has(term) || (FUNCTION_TAGS.has(tag) && !numeric)) return;
    const named = numeric || (latin ? latinNames(word.trim(), index, chinese) : tag === UNKNOWN_WORD_TAG ? unknownName : NAMED_TAGS.has(tag));
    if (term === '') return;
    const weight = (idf(term) ?? UNKNOWN_WORD_IDF) * (answerType ? ANSWER_TYPE_FACTOR : 1);
    kept.push({ term, weight, required: named && !answerType, exact: numeric || latin, at, compoundable: !numeric && !latin && !answerType && HAN_ONLY.test(term) && NAME_PIECE_TAG.test(tag) });
  });
  const terms = new Map<string, QuestionTerm>();
  const add = ({ term, weight, required, exact }: QuestionTerm) => {
    if (!terms.has(term) && !titles.some((title) => title !== term && title.includes(term))) terms.set(term, { term, weight, required, exact });
  };
  for (const title of titles) add({ term: title, weight: idf(title) ?? UNKNOWN_WORD_IDF, required: true, exact: false });
  for (const { term, weight, required, exact } of joinCompounds(kept)) add({ term, weight, required, exact });
  return [...terms.values()];
}

/** A serial label — letters, a separator or not, and a number, as files are numbered (DEV_82, IMG-2020, scan0001): not a thing. */
const SERIAL = /^\p{Script=Latin}+(?:[_-]\p{N}+|\p{N}{4,})$/u;

/**
 * The specific things a document title names (its required terms with a letter in them, serial labels aside):
 * "Aurora X2 路由器" → aurora, x2; "DEV_519" → nothing.
 */
export function namedWords(text: string, words: readonly TaggedWord[]): string[] {
  return questionTerms(text, words, () => 1)
    .filter((term) => term.required && HAS_LETTER.test(term.term) && !SERIAL.test(term.term))
    .map((term) => term.term);
}
