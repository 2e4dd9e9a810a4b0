import { type QuestionSlot, questionSlot, statesSlot } from './question-slot';

/*
 * What kind of answer a question asks for (issue 42 §2, §5), and whether a sentence gives one: the fact slots of
 * question-slot.ts (a version, a date, an amount) and a person, a place, a command (how-to), a flag or option, a list
 * of parts, or a yes/no. The extractive answerer prefers sentences that give the kind; the grader may read it as a
 * signal. Pure, English and Chinese, read from the wording alone: a sentence "stating" a person or a place is a
 * cheap pattern (a title, a role, a capitalized name; 位于, a place suffix), a signal and not a proof.
 */

export type AnswerKind = QuestionSlot | 'option' | 'person' | 'place' | 'command' | 'list' | 'yes_no';

type KindRule = { kind: Exclude<AnswerKind, QuestionSlot>; asks: RegExp };

const FLAG_WORDS = '(?:flags?|options?|switch(?:es)?|arguments?|parameters?)';
const AUXILIARY = '(?:is|are|was|were|am|do|does|did|can|could|will|would|should|shall|has|have|had|may|might|must)';

// "Which option…" is asked before the fact slots: "Which option was added in 3.1?" asks for an option, not a version.
const OPTION: KindRule = {
  kind: 'option',
  asks: new RegExp(`\\b(?:which|what)\\s+(?:\\S+\\s+)?${FLAG_WORDS}\\b|\\b${FLAG_WORDS}\\s+(?:do|should|can|must)\\s+i\\b|哪个(?:选项|参数|开关)|什么(?:选项|参数|开关)|用哪个参数`, 'iu'),
};

// After the fact slots, in this order: a who or where question is that even when it also says "how" or ends in 吗.
const RULES: readonly KindRule[] = [
  {
    kind: 'person',
    asks: /\b(?:who|whom|whose)\b|\b(?:which|what)\s+(?:person|people|author|president|player|founder|director|leader|chairman|ceo)\b|谁|哪位|哪一位|什么人|何人|哪些人/iu,
  },
  {
    kind: 'place',
    asks: /\bwhere\b|\b(?:which|what)\s+(?:city|country|place|state|province|location|directory|folder|region|town)\b|哪里|哪儿|在哪|什么地方|何处|哪个(?:城市|国家|省|地方|位置|目录|文件夹|地区)|位于/iu,
  },
  {
    kind: 'command',
    // 怎么样 / a closing 如何 ("效果如何？") ask for a judgement, not a way.
    asks: /\bhow\s+(?:do|can|could|would|should|shall|may|might)\s+(?:i|we|you|one)\b|\bhow\s+to\b|\b(?:what|which)\s+command\b|\bcommand\s+(?:to|for|that)\b|什么命令|哪个命令|怎么(?!样)|怎样(?![？?]?\s*$)|如何(?![？?]?\s*$)/iu,
  },
  {
    kind: 'list',
    asks: /\bwhat\s+are\s+(?:the\s+)?(?:\S+\s+)?(?:parts|components|steps|ingredients|members|types|kinds|stages|elements|features|requirements|differences)\b|^\s*(?:please\s+)?(?:list|name)\s+(?:all|the|every)\b|有哪些|包括哪些|包含哪些|哪几|都有什么|有什么/iu,
  },
  {
    kind: 'yes_no',
    // The asking verb opens the question or its last clause ("I use tar; can it read zip files?").
    asks: new RegExp(`(?:^|[;:.,]\\s+)${AUXILIARY}(?:n't)?\\s+\\S|是否|是不是|有没有|能不能|能否|可不可以|会不会|对不对|吗\\s*[？?]?\\s*$`, 'iu'),
  },
];

/**
 * The kind of answer `question` asks for, or null when it asks for none of these (why, what is …). Checked in this
 * order: option, then version, date, amount (question-slot.ts), person, place, command, list, yes/no.
 */
export function answerKind(question: string): AnswerKind | null {
  if (OPTION.asks.test(question)) return 'option';
  return questionSlot(question) ?? RULES.find((rule) => rule.asks.test(question))?.kind ?? null;
}

// A command line: an inline code span, a shell prompt, or a line that is all code.
const STATES_COMMAND = /`[^`\n]+`|(?:^|\n)\s*[$#>]\s+\S|^\s{4,}\S/u;
// A flag: -x or --long-name standing alone ("e-mail" and "-5" are not flags), or /S of Windows commands.
const STATES_OPTION = /(?:^|[\s`'"(\[=,])(?:--?[A-Za-z][\w-]*|\/[A-Z?])(?=$|[\s`'")\],=.:;])/u;
const STATES_PERSON =
  /\b(?:Mr|Mrs|Ms|Dr|Prof|Sir)\.?\s+[A-Z]|\b(?:by|founder|author|president|director|chairman|ceo|minister|mayor|maintainer|creator|inventor)\b[^.]*?\b[A-Z][a-z]+|\b[A-Z][a-z]+\s+[A-Z][a-z]+\s+(?:was|is|became|wrote|founded|created|served|said)\b|先生|女士|教授|博士|总统|主席|总理|部长|市长|董事长|总裁|经理|创始人|作者|导演|主演|演员|球员|教练|记者|担任|出任|当选|就任|由[^，。]{1,8}(?:担任|创立|创办|主持|执导|编写|开发|提出)/u;
const STATES_PLACE =
  /\b(?:in|at|near|from|located|based|held|born)\s+(?:the\s+)?[A-Z][a-z]+|(?:^|\s)(?:~|\.{0,2})\/[\w.-]+|\b[A-Z]:\\|位于|坐落|地处|[\u4e00-\u9fff](?:省|市(?![场民长值])|县|自治区|州(?!长)|镇|村|乡(?!村))|[中美英法德日韩俄]国/u;
const STATES_LIST = /(?:[^,，、]+[,，、]){2,}|\S,\s+[^,]+\s(?:and|or)\s+\S|、[^、，。；]+(?:以及|及|和|与|或)|\b(?:include|includes|including|consists?\s+of|such\s+as|namely)\b|包括|包含|分为|分别|以下|如下|等(?:[，。]|$)|(?:^|\n)\s*(?:[-*+•]|\d+[.)、])\s+\S/iu;

/** True when `sentence` gives an answer of `kind` (see the patterns above; a yes/no is any statement, not a question). */
export function statesKind(kind: AnswerKind, sentence: string): boolean {
  switch (kind) {
    case 'version':
    case 'date':
    case 'amount':
      return statesSlot(kind, sentence);
    case 'option':
      return STATES_OPTION.test(sentence);
    case 'command':
      return STATES_COMMAND.test(sentence);
    case 'person':
      return STATES_PERSON.test(sentence);
    case 'place':
      return STATES_PLACE.test(sentence);
    case 'list':
      return STATES_LIST.test(sentence);
    case 'yes_no':
      return /[\p{L}\p{N}]/u.test(sentence) && !/[？?]\s*$/u.test(sentence);
  }
}
