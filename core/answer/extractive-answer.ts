import { topicTerms } from '../offline-policy/text-signals';
import { type AnswerDraft, MAX_ANSWER_CITATIONS } from '../schemas/answer';
import { textLanguage } from '../text/language';
import { type AnswerKind, answerKind, statesKind } from './answer-kind';
import { type AnswerSentence, answerSentences, haystackOf } from './answer-sentences';
import { codeSpan } from './example-lines';
import { partTerms, questionParts } from './question-parts';

/*
 * The offline provider's answerer (docs/offline-policy.md, "Answerer"): extractive. It quotes the one to three
 * sentences of the evidence that best cover the question's terms — with the example lines right under them — each
 * cited with itself as the quote, so its answers always verify. A question of several parts is answered part by part.
 * Pure: the caller tokenizes the question (jieba in the adapter) and may score sentences by meaning.
 */

/** At most this many sentences in an answer (per part: MAX_PART_SENTENCES). */
export const MAX_ANSWER_SENTENCES = 3;
/** At most this many sentences answer one part of a question of several parts. */
export const MAX_PART_SENTENCES = 2;
/**
 * A further sentence is quoted when the question terms it holds and the quoted ones do not weigh at least this share
 * of all the question's terms (IDF-weighted): it must add something the answer does not say yet.
 */
export const MIN_NEW_TERMS_SHARE = 0.2;
/**
 * …and, from another document than the best sentence's, when it is itself on the question: its own score is at least
 * this share of the best sentence's (a sentence of the best sentence's document needs only to add terms).
 */
export const MIN_RELATED_SCORE_SHARE = 0.5;
/** Sentences longer than this are not quoted (tables, run-on text); the best one is quoted whatever its length. */
export const MAX_SENTENCE_CHARS = 400;
/** The caller's sentence score (rescaled to 0–1) weighs this much in a sentence's score; the word score the rest. */
export const SENTENCE_SCORE_WEIGHT = 0.5;
/** Kinds of answer a sentence is added for when the quoted ones give none (see withKindFilled). */
const FILLED_KINDS: ReadonlySet<AnswerKind> = new Set(['version', 'date', 'amount', 'option', 'person', 'place', 'command']);

/**
 * A relevance of sentence `sentence` of document `doc` (0-based; the sentences are answerSentences(documents)) to
 * `question` — the whole question, or one part's question when it has several — higher is closer, any scale.
 */
export type SentenceScore = (doc: number, sentence: string, question: string) => number;
export type ExtractiveOptions = { sentenceScore?: SentenceScore; sentenceScoreWeight?: number };
/** A part of the question no sentence holds a term of, and the sentence saying so in the question's language. */
export type UnansweredPart = { part: string; notice: string };
/** The draft, and the parts it does not answer when there are any (they cannot be sentences: those must cite). */
export type ExtractiveDraft = AnswerDraft & { unanswered_parts?: UnansweredPart[] };

type Candidate = AnswerSentence & { haystack: string; score: number; terms: string[] };
type Scored = { candidates: Candidate[]; weight: (terms: readonly string[]) => number };
type Evidence = { sentences: AnswerSentence[]; haystacks: string[]; idf: Map<string, number>; documents: number };

const ENDING = /[。！？!?；;，,.:：]+$/u;
// A list bullet or a quote mark opens the line, not the sentence: the answer leaves it out (the quote keeps it).
const OPENING = /^(?:[-*+•]|>)\s+/u;

/** Inverse document frequency of each term over the sentences: rare terms say more about where the answer is. */
function idfOf(terms: readonly string[], haystacks: readonly string[]): Map<string, number> {
  return new Map(terms.map((term) => [term, Math.log(1 + haystacks.length / (1 + haystacks.filter((s) => s.includes(term)).length))]));
}

/** The caller's scores for `question`, rescaled to 0–1 over the sentences (all 0 when they do not differ). */
function callerScores(evidence: Evidence, question: string, score: SentenceScore): number[] {
  const raw = evidence.sentences.map((sentence) => score(sentence.doc, sentence.text, question));
  const finite = raw.filter(Number.isFinite);
  const low = Math.min(...finite);
  const range = Math.max(...finite) - low;
  return raw.map((value) => (Number.isFinite(value) && range > 1e-9 ? (value - low) / range : 0));
}

/** Every sentence scored by the IDF-weighted share of `terms` it holds, combined with the caller's score if given. */
function scored(evidence: Evidence, terms: readonly string[], question: string, options: ExtractiveOptions): Scored {
  const total = terms.reduce((sum, term) => sum + (evidence.idf.get(term) ?? 0), 0);
  const weight = (held: readonly string[]) => (total > 0 ? held.reduce((sum, term) => sum + (evidence.idf.get(term) ?? 0), 0) / total : 0);
  const meaning = options.sentenceScore ? callerScores(evidence, question, options.sentenceScore) : null;
  const share = options.sentenceScoreWeight ?? SENTENCE_SCORE_WEIGHT;
  return {
    weight,
    candidates: evidence.sentences.map((sentence, i) => {
      const haystack = evidence.haystacks[i] as string;
      const held = terms.filter((term) => haystack.includes(term));
      const words = weight(held);
      // Retrieval's order breaks ties: of two equal sentences the better-ranked document's is quoted.
      const rankBonus = 0.001 * (evidence.documents - sentence.doc);
      const score = (meaning === null ? words : (1 - share) * words + share * (meaning[i] as number)) + rankBonus;
      return { ...sentence, haystack, terms: held, score };
    }),
  };
}

/**
 * The best sentence (of those `eligible`), then while the answer has room the one adding the most question terms not
 * yet quoted.
 */
function choose({ candidates, weight }: Scored, max: number, eligible: (candidate: Candidate) => boolean): Candidate[] {
  const byScore = [...candidates].sort((a, b) => b.score - a.score || a.doc - b.doc || a.position - b.position);
  const best = byScore.find(eligible);
  if (best === undefined) return [];
  const chosen = [best];
  const covered = new Set(best.terms);
  while (chosen.length < max) {
    let next: { candidate: Candidate; gain: number } | null = null;
    for (const candidate of byScore) {
      if (chosen.includes(candidate) || [...candidate.text].length > MAX_SENTENCE_CHARS) continue;
      if (candidate.doc !== best.doc && candidate.score < best.score * MIN_RELATED_SCORE_SHARE) continue;
      const gain = weight(candidate.terms.filter((term) => !covered.has(term)));
      if (next === null || gain > next.gain) next = { candidate, gain };
    }
    if (next === null || next.gain < MIN_NEW_TERMS_SHARE) break;
    chosen.push(next.candidate);
    for (const term of next.candidate.terms) covered.add(term);
  }
  return chosen;
}

/**
 * The answer's sentences when the question asks for a kind of answer in FILLED_KINDS (a version, a date, an amount,
 * an option, a person, a place, a command: answer-kind.ts). The documents that answer are the best sentence's and every other whose best sentence holds as much of the question (a near-duplicate:
 * the same fix in another branch's notes). A quoted sentence of another document that states such a fact is left
 * out: it was quoted for the question's common words ("Django 5.2.18 fixes…" beside the section of 5.2.19's fix) and
 * would give its fact as the answer. When no sentence left states one, each answering document adds a sentence on
 * the question (one of its terms) that does — the nearest one before its best sentence (a title or lead governs what
 * follows it: "Django 4.2.1 fixes…" above the fix's section), else the best-scored one after it — right after the
 * best sentence.
 */
function withKindFilled(kind: AnswerKind, chosen: Candidate[], { candidates, weight }: Scored, max: number): Candidate[] {
  const best = chosen[0] as Candidate;
  const states = (candidate: Candidate) => statesKind(kind, [candidate.text, ...candidate.examples.flatMap((block) => block.lines)].join('\n'));
  const bestWeight = weight(best.terms);
  const anchors = new Map<number, Candidate>([[best.doc, best]]);
  for (const candidate of candidates) {
    if (!anchors.has(candidate.doc) && weight(candidate.terms) >= bestWeight - 1e-9) anchors.set(candidate.doc, candidate);
  }
  const kept = chosen.filter((candidate) => anchors.has(candidate.doc) || !states(candidate));
  if (kept.some(states)) return kept;
  const fillers: Candidate[] = [];
  for (const [doc, anchor] of anchors) {
    const stating = candidates.filter(
      (c) => c.doc === doc && c !== anchor && c.terms.length > 0 && [...c.text].length <= MAX_SENTENCE_CHARS && states(c),
    );
    const before = stating.filter((c) => c.position < anchor.position).sort((a, b) => b.position - a.position)[0];
    const after = stating.filter((c) => c.position > anchor.position).sort((a, b) => b.score - a.score || a.position - b.position)[0];
    const filler = before ?? after;
    if (filler) fillers.push(filler);
  }
  return [best, ...fillers, ...kept.slice(1).filter((candidate) => !fillers.includes(candidate))].slice(0, max);
}

/** The sentences answering `question` on `terms`, the best among those `eligible`. */
function answerTo(evidence: Evidence, question: string, terms: readonly string[], max: number, options: ExtractiveOptions, eligible = (_: Candidate) => true): Candidate[] {
  const scores = scored(evidence, terms, question, options);
  const picked = choose(scores, max, eligible);
  const kind = answerKind(question);
  return picked.length === 0 || kind === null || !FILLED_KINDS.has(kind) ? picked : withKindFilled(kind, picked, scores, max);
}

/**
 * The draft: the sentences in reading order (with the head of a code entry they continue), each with its marker, its
 * example lines under it with theirs; at most MAX_ANSWER_CITATIONS markers (the draft's schema allows no more), the
 * sentences and blocks past them left out.
 */
function draftOf(chosen: readonly AnswerSentence[], zh: boolean): AnswerDraft {
  const withHeads = new Map(chosen.flatMap((sentence) => [sentence.head, sentence]).filter((s) => s !== undefined).map((s) => [`${s.doc}:${s.position}`, s]));
  const sorted = [...withHeads.values()].sort((a, b) => a.doc - b.doc || a.position - b.position);
  const citations: AnswerDraft['citations'] = [];
  const cite = (doc: number, quote: string) => citations.push({ marker: citations.length + 1, doc_index: doc + 1, quote });
  const pieces = sorted.flatMap((sentence) => {
    if (citations.length >= MAX_ANSWER_CITATIONS) return [];
    cite(sentence.doc, sentence.text);
    const lead = `${sentence.text.replace(OPENING, '').replace(ENDING, '')}[${citations.length}]`;
    const blocks = sentence.examples.slice(0, MAX_ANSWER_CITATIONS - citations.length);
    if (blocks.length === 0) return [{ text: `${lead}${/[？?]$/u.test(sentence.text) ? (zh ? '？' : '?') : zh ? '。' : '.'}`, block: false }];
    const lines = blocks.flatMap((block) => {
      cite(sentence.doc, block.quote);
      return block.lines.map((line) => `${codeSpan(line)}[${citations.length}]`);
    });
    return [{ text: [`${lead}${zh ? '：' : ':'}`, ...lines].join('\n'), block: true }];
  });
  const answer = pieces.map((piece, i) => (i === 0 ? '' : piece.block || pieces[i - 1]?.block ? '\n' : zh ? '' : ' ') + piece.text).join('');
  return { answer, citations };
}

const noticeOf = (part: string, zh: boolean): string => (zh ? `资料中没有提到${part}。` : `The documents do not mention ${part}.`);

/**
 * The extractive answer to `question` from `documents` (the evidence texts, in order; document i is cited as
 * doc_index i + 1). Empty evidence gives an empty draft (the run never asks for one: route `answer` has evidence).
 * A question of several parts (question-parts.ts) is answered part by part, each from its own best sentences (those
 * holding a term of the part's own); a part no sentence holds a term of is named in `unanswered_parts`.
 */
export function extractiveAnswer(question: string, questionTokens: readonly string[], documents: readonly string[], options: ExtractiveOptions = {}): ExtractiveDraft {
  const sentences = answerSentences(documents);
  if (sentences.length === 0) return { answer: '', citations: [] };
  const terms = topicTerms(questionTokens);
  const haystacks = sentences.map(haystackOf);
  const evidence: Evidence = { sentences, haystacks, idf: idfOf(terms, haystacks), documents: documents.length };
  const zh = textLanguage(question) === 'zh';
  const parts = partTerms(questionParts(question, questionTokens), terms);
  if (parts === null) return draftOf(answerTo(evidence, question, terms, MAX_ANSWER_SENTENCES, options), zh);
  const holdsOwn = (own: readonly string[]) => (candidate: Candidate) => own.some((term) => candidate.haystack.includes(term));
  const answered = parts.filter(({ own }) => haystacks.some((haystack) => own.some((term) => haystack.includes(term))));
  const unanswered = parts.filter((part) => !answered.includes(part)).map(({ part }) => ({ part: part.phrase, notice: noticeOf(part.phrase, zh) }));
  const chosen = new Map<string, AnswerSentence>();
  for (const { part, own, terms: held } of answered) {
    for (const sentence of answerTo(evidence, part.text, held, MAX_PART_SENTENCES, options, holdsOwn(own))) chosen.set(`${sentence.doc}:${sentence.position}`, sentence);
  }
  const draft = answered.length > 0 ? draftOf([...chosen.values()], zh) : draftOf(answerTo(evidence, question, terms, MAX_ANSWER_SENTENCES, options), zh);
  return unanswered.length > 0 ? { ...draft, unanswered_parts: unanswered } : draft;
}
