import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { classifyIntent } from '../core/intent/classify-intent';

/*
 * How often the intent rules (issue 44 §5) would take a real question for chit-chat: every question (and every
 * dialogue turn) of the golden sets given is classified as if its session had earlier turns (the strictest case: the
 * conversation rules apply too), and each one that would not be retrieved for is listed. Pure; no service.
 *
 *   npx tsx bench/intent-rules.ts .data/golden/* samples/golden/*
 */

const dirs = process.argv.slice(2).filter((dir) => existsSync(path.join(dir, 'questions.jsonl')));
if (dirs.length === 0) throw new Error('usage: npx tsx bench/intent-rules.ts <golden set dir>… (each holding questions.jsonl)');
let questions = 0;
const taken: string[] = [];
for (const dir of dirs) {
  for (const line of readFileSync(path.join(dir, 'questions.jsonl'), 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const { question, turns = [] } = JSON.parse(line) as { question: string; turns?: string[] };
    for (const text of [question, ...turns]) {
      questions += 1;
      const result = classifyIntent(text, { turnsBefore: 1 });
      if (!result.needs_retrieval) taken.push(`${path.basename(dir)}: ${JSON.stringify(text)} → ${result.intent} (${result.rule})`);
    }
  }
}
console.log(`${dirs.length} set(s), ${questions} question(s): ${taken.length} taken for chit-chat`);
for (const line of taken) console.log(`  ${line}`);
