import { z } from 'zod';

/*
 * P(yes) from the log-probabilities of a one-token yes/no reply (issue 43 §1): the alternatives OpenAI's
 * `top_logprobs` lists for the first token, "yes"-like ones against "no"-like ones ("Yes", " yes", "YES"; "是"/"否"
 * for a model that answers in Chinese), renormalized over the two. Null when neither is among them: the reply says
 * nothing usable. Pure.
 */

export const TopLogprobs = z.array(z.object({ token: z.string(), logprob: z.number() }));
export type TopLogprobs = z.infer<typeof TopLogprobs>;

const YES = new Set(['yes', 'y', '是', '能', '有']);
const NO = new Set(['no', 'n', '否', '不', '没有']);

export function yesProbability(top: TopLogprobs): number | null {
  let yes = 0;
  let no = 0;
  for (const { token, logprob } of top) {
    const word = token.trim().toLowerCase().replace(/[.,!。，]$/u, '');
    if (YES.has(word)) yes += Math.exp(logprob);
    else if (NO.has(word)) no += Math.exp(logprob);
  }
  return yes + no > 0 ? yes / (yes + no) : null;
}
