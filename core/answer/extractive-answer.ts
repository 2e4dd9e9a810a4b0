import { topicTerms } from '../offline-policy/text-signals';
import type { AnswerDraft } from '../schemas/answer';
import { textLanguage } from '../text/language';
import { type QuestionSlot, questionSlot, statesSlot } from './question-slot';
import { hasContent, joinWrappedLines, splitSentences } from './sentences';

/*
 * The offline provider's answerer (docs/offline-policy.md): extractive. It quotes the one to three sentences of the
 * evidence that best cover the question's terms, each cited with itself as the quote, so its answers always verify.
 * Pure: the caller tokenizes the question (jieba in the adapter).
 */

/** At most this many sentences in an answer. */
export const MAX_ANSWER_SENTENCES = 3;
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

type Candidate = { doc: number; position: number; text: string; score: number; terms: string[] };

const ENDING = /[。！？!?；;，,.:：]+$/u;
// A Markdown heading names a section; it answers nothing.
const HEADING = /^#{1,6}\s/;

/** Inverse document frequency of each term over the sentences: rare terms say more about where the answer is. */
function idfOf(terms: readonly string[], sentences: readonly string[]): Map<string, number> {
  const lowered = sentences.map((sentence) => sentence.toLowerCase());
  return new Map(terms.map((term) => [term, Math.log(1 + lowered.length / (1 + lowered.filter((s) => s.includes(term)).length))]));
}

type Scored = { candidates: Candidate[]; weight: (terms: readonly string[]) => number };

/** Every sentence of the evidence but headings, scored by the IDF-weighted share of the question's terms it holds. */
function candidates(questionTokens: readonly string[], documents: readonly string[]): Scored {
  const terms = topicTerms(questionTokens);
  const all = documents.flatMap((text, doc) =>
    splitSentences(joinWrappedLines(text))
      .map((sentence, position) => ({ doc, position, text: sentence }))
      .filter((candidate) => !HEADING.test(candidate.text) && hasContent(candidate.text)),
  );
  const idf = idfOf(terms, all.map((candidate) => candidate.text));
  const total = terms.reduce((sum, term) => sum + (idf.get(term) ?? 0), 0);
  const weight = (held: readonly string[]) => (total > 0 ? held.reduce((sum, term) => sum + (idf.get(term) ?? 0), 0) / total : 0);
  return {
    weight,
    candidates: all.map((candidate) => {
      const haystack = candidate.text.toLowerCase();
      const held = terms.filter((term) => haystack.includes(term));
      // Retrieval's order breaks ties: of two equal sentences the better-ranked document's is quoted.
      const rankBonus = 0.001 * (documents.length - candidate.doc);
      return { ...candidate, terms: held, score: weight(held) + rankBonus };
    }),
  };
}

/** The best sentence, then while the answer has room the one adding the most question terms not yet quoted. */
function choose({ candidates: scored, weight }: Scored): Candidate[] {
  const byScore = [...scored].sort((a, b) => b.score - a.score || a.doc - b.doc || a.position - b.position);
  const chosen = [byScore[0] as Candidate];
  const covered = new Set(chosen[0]?.terms);
  while (chosen.length < MAX_ANSWER_SENTENCES) {
    let next: { candidate: Candidate; gain: number } | null = null;
    for (const candidate of byScore) {
      if (chosen.includes(candidate) || [...candidate.text].length > MAX_SENTENCE_CHARS) continue;
      const best = chosen[0] as Candidate;
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
 * The answer's sentences when the question asks for a version, a date or an amount. The documents that answer are the
 * best sentence's and every other whose best sentence holds as much of the question (a near-duplicate: the same fix
 * in another branch's notes). A quoted sentence of another document that states such a fact is left out: it was
 * quoted for the question's common words ("Django 5.2.18 fixes…" beside the section of 5.2.19's fix) and would give
 * its fact as the answer. When no sentence left states one, each answering document adds a sentence on the question
 * (one of its terms) that does — the nearest one before its best sentence (a title or lead governs what follows it:
 * "Django 4.2.1 fixes…" above the fix's section), else the best-scored one after it — right after the best sentence.
 */
function withSlotFilled(slot: QuestionSlot, chosen: Candidate[], { candidates: scored, weight }: Scored): Candidate[] {
  const best = chosen[0] as Candidate;
  const bestWeight = weight(best.terms);
  const anchors = new Map<number, Candidate>([[best.doc, best]]);
  for (const candidate of scored) {
    if (!anchors.has(candidate.doc) && weight(candidate.terms) >= bestWeight - 1e-9) anchors.set(candidate.doc, candidate);
  }
  const kept = chosen.filter((candidate) => anchors.has(candidate.doc) || !statesSlot(slot, candidate.text));
  if (kept.some((candidate) => statesSlot(slot, candidate.text))) return kept;
  const fillers: Candidate[] = [];
  for (const [doc, anchor] of anchors) {
    const states = scored.filter(
      (c) => c.doc === doc && c !== anchor && c.terms.length > 0 && [...c.text].length <= MAX_SENTENCE_CHARS && statesSlot(slot, c.text),
    );
    const before = states.filter((c) => c.position < anchor.position).sort((a, b) => b.position - a.position)[0];
    const after = states.filter((c) => c.position > anchor.position).sort((a, b) => b.score - a.score || a.position - b.position)[0];
    const filler = before ?? after;
    if (filler) fillers.push(filler);
  }
  return [best, ...fillers, ...kept.slice(1).filter((candidate) => !fillers.includes(candidate))].slice(0, MAX_ANSWER_SENTENCES);
}

/**
 * The extractive answer to `question` from `documents` (the evidence texts, in order; document i is cited as
 * doc_index i + 1). Empty evidence gives an empty draft (the run never asks for one: route `answer` has evidence).
 */
export function extractiveAnswer(question: string, questionTokens: readonly string[], documents: readonly string[]): AnswerDraft {
  const scored = candidates(questionTokens, documents);
  if (scored.candidates.length === 0) return { answer: '', citations: [] };
  const slot = questionSlot(question);
  const picked = choose(scored);
  const chosen = (slot === null ? picked : withSlotFilled(slot, picked, scored)).sort((a, b) => a.doc - b.doc || a.position - b.position);
  const zh = textLanguage(question) === 'zh';
  const pieces = chosen.map((candidate, i) => {
    const body = candidate.text.replace(ENDING, '');
    const ending = /[？?]$/u.test(candidate.text) ? (zh ? '？' : '?') : zh ? '。' : '.';
    return `${body}[${i + 1}]${ending}`;
  });
  return {
    answer: pieces.join(zh ? '' : ' '),
    citations: chosen.map((candidate, i) => ({ marker: i + 1, doc_index: candidate.doc + 1, quote: candidate.text })),
  };
}
