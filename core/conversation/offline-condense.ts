import type { CondensedBy, SessionTurn } from '../schemas/conversation';
import { textLanguage } from '../text/language';
import { historyReference } from './history-reference';
import { subjectOf } from './subject-of';

/*
 * The offline provider's condensation (issue 25 §1): deterministic rules that make a follow-up question stand alone,
 * in the person's language (docs/offline-policy.md, "Follow-up questions"):
 * 1. no earlier turns, or nothing in the question that refers back (history-reference.ts): the question as it is;
 * 2. a pronoun ("它的保修期呢？", "Does it support WPA3?"): replaced by the subject of the latest turn that has one
 *    ("Aurora X2 路由器的保修期呢？");
 * 3. a new subject and nothing else ("那 Nimbus C1 呢？", "and the X3?"): that turn's question asked of it;
 * 4. a new attribute and nothing else ("价格呢？", "and the price?"): asked of that turn's subject.
 * No subject in any earlier turn: the question as it is, and the record says why.
 */

export type Condensed = { standalone: string; condensedBy: CondensedBy; why: string };

const EN_POSSESSIVE = /^(its|their)$/i;

/** What replaces a pronoun: the subject, possessive where the pronoun was ("它的" → "X 的", "its" → "X's"). */
function replacementOf(marker: string, subject: string, zh: boolean): string {
  if (zh) return marker.endsWith('的') || marker === '其' ? `${subject}的` : subject;
  return EN_POSSESSIVE.test(marker) ? `${subject}'s` : subject;
}

export function offlineCondense(question: string, turns: readonly SessionTurn[]): Condensed {
  const asIs = (why: string): Condensed => ({ standalone: question, condensedBy: 'none', why });
  if (turns.length === 0) return asIs('no earlier turns');
  const reference = historyReference(question);
  if (reference === null) return asIs('the question stands alone');
  const latestFirst = [...turns].reverse();
  const source = latestFirst.find((turn) => subjectOf(turn.standaloneQuestion) !== null);
  const found = source ? subjectOf(source.standaloneQuestion) : null;
  if (!source || found === null) return asIs('it refers back, but no earlier turn names a subject');
  // A subject said in full earlier is kept in full: "Aurora X2" (from "Aurora X2 路由器支持…吗？") is the "Aurora X2
  // 路由器" of an earlier turn.
  const fuller = latestFirst.map((turn) => subjectOf(turn.standaloneQuestion)).find((earlier) => earlier !== null && earlier !== found && earlier.includes(found));
  const subject = fuller ?? found;
  const zh = textLanguage(question) === 'zh';
  const by = (standalone: string, why: string): Condensed => ({ standalone, condensedBy: 'offline_rules', why: `${why} (turn ${source.turn})` });
  switch (reference.kind) {
    case 'pronoun': {
      const at = zh ? question.indexOf(reference.marker) : question.search(new RegExp(`\\b${reference.marker.replace(/'/g, "\\'")}\\b`, 'i'));
      const standalone = `${question.slice(0, at)}${replacementOf(reference.marker, subject, zh)}${question.slice(at + reference.marker.length)}`;
      return by(standalone, `resolved "${reference.marker}" to "${subject}"`);
    }
    case 'new_subject':
      return by(source.standaloneQuestion.replace(subject, reference.subject), `asked the question of "${subject}" of "${reference.subject}"`);
    case 'new_attribute':
      return by(zh ? `${subject}的${reference.attribute}呢？` : `What about the ${reference.attribute} of ${subject}?`, `asked "${reference.attribute}" of "${subject}"`);
  }
}
