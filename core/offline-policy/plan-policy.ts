import { MAX_SUB_QUESTIONS, type ComplexityResult } from '../schemas/model-outputs';
import { pythonStrip } from '../python-text';

/*
 * The offline planner: the workflow's fast path already took the obvious simple questions; this splits comparisons
 * and multi-part questions into independently retrievable sub-questions (spec §7.2), else says simple.
 */

const COMPARE_LEAD = /^(请)?(比较|对比|比较一下|对比一下)\s*/;
const COMPARE_TAIL = /(的)?(区别|差异|不同|异同|优缺点|对比|比较)(是什么|有哪些|在哪里)?[？?。!！]*$/;
const CONJUNCTION = /\s*(?:和|与|跟|同|vs\.?|versus)\s*/i;
const ASPECT = /^(.+?)的(.+)$/;
const EN_COMPARE = /^(?:compare|what(?:'s| is) the difference between)\s+(.+?)\s+(?:and|with|vs\.?|versus)\s+(.+?)(?:\s+(?:in terms of|on|for)\s+(.+?))?[?.!]*$/i;
const PART_SPLIT = /[；;]|[？?](?=.)|以及|并且|另外|同时/;

const trimQuestion = (text: string): string => pythonStrip(text).replace(/^[，,、\s]+|[，,、\s]+$/g, '');

function comparisonSubQuestions(question: string): string[] | null {
  const english = EN_COMPARE.exec(pythonStrip(question));
  if (english) {
    const [, left = '', right = '', aspect] = english;
    return [left, right].map((entity) => (aspect ? `What is the ${aspect} of ${entity}?` : `What is ${entity}?`));
  }
  const body = pythonStrip(question).replace(COMPARE_LEAD, '').replace(COMPARE_TAIL, '');
  const hadMarker = body !== pythonStrip(question);
  const parts = body.split(CONJUNCTION);
  if (!hadMarker || parts.length !== 2) return null;
  const [left = '', rightWithAspect = ''] = parts.map(trimQuestion);
  const aspectMatch = ASPECT.exec(rightWithAspect);
  const right = trimQuestion(aspectMatch ? (aspectMatch[1] as string) : rightWithAspect);
  const aspect = trimQuestion(aspectMatch ? (aspectMatch[2] as string) : '');
  if (!left || !right) return null;
  return [left, right].map((entity) => (aspect ? `${entity}的${aspect}` : `${entity}是什么`));
}

function multiPartSubQuestions(question: string): string[] | null {
  const parts = question.split(PART_SPLIT).map(trimQuestion).filter((part) => [...part].length >= 2);
  return parts.length >= 2 ? parts : null;
}

export function offlinePlan(question: string): ComplexityResult {
  const comparison = comparisonSubQuestions(question);
  if (comparison) {
    return { complexity: 'complex', reason: 'offline: a comparison of two subjects, retrieved one by one', sub_questions: comparison };
  }
  const parts = multiPartSubQuestions(question);
  if (parts) {
    return { complexity: 'complex', reason: `offline: ${parts.length} separate questions`, sub_questions: parts.slice(0, MAX_SUB_QUESTIONS) };
  }
  return { complexity: 'simple', reason: 'offline: one information need', sub_questions: [] };
}
