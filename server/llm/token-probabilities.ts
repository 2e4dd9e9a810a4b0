import type { Token } from 'node-llama-cpp';
import type { SequenceTarget } from './prompt-prefill';

/*
 * OpenAI's `logprobs` / `top_logprobs` on the local model (issue 43 §1): LlamaChat writes text but does not say how
 * likely each token was, so a request that asks for log-probabilities is generated here token by token from the
 * context sequence, with each step's probability table (node-llama-cpp's evaluateWithMetadata), from a prompt the
 * server has read into the sequence (prompt-prefill.ts) as for every request; greedy (temperature 0), which is
 * what a yes/no decision read from probabilities wants. No grammar here: such a request asks for a token or
 * two, and the server refuses logprobs with response_format rather than half-enforce it.
 */

export type TopLogprob = { token: string; logprob: number; bytes: number[] };
export type TokenLogprob = TopLogprob & { top_logprobs: TopLogprob[] };
export type LogprobGeneration = { text: string; content: TokenLogprob[]; stopReason: 'stop' | 'length' | 'abort' };

export type LogprobRequest = {
  /** The prompt's tokens, all but the last already read into the sequence (prefillPrompt). */
  prompt: Token[];
  maxTokens: number;
  /** How many alternatives per token (OpenAI: 0–20). */
  topLogprobs: number;
  signal: AbortSignal;
};

/** A probability as OpenAI writes it: natural log, and -9999 for zero (OpenAI's own floor). */
const logOf = (p: number): number => (p > 0 ? Math.log(p) : -9999);
const bytesOf = (text: string): number[] => [...Buffer.from(text, 'utf8')];

export async function generateWithLogprobs(
  target: SequenceTarget,
  request: LogprobRequest,
): Promise<LogprobGeneration> {
  const { sequence, model } = target;
  const content: TokenLogprob[] = [];
  const generated: Token[] = [];
  let stopReason: LogprobGeneration['stopReason'] = 'length';
  const piece = (token: Token) => model.detokenize([token], true);
  const iterator = sequence.evaluateWithMetadata(request.prompt.slice(-1), { probabilities: true }, { temperature: 0 });
  for await (const { token, probabilities } of iterator) {
    if (request.signal.aborted) {
      stopReason = 'abort';
      break;
    }
    if (model.isEogToken(token)) {
      stopReason = 'stop';
      break;
    }
    const top: TopLogprob[] = [];
    for (const [candidate, p] of probabilities) {
      if (top.length >= request.topLogprobs) break;
      const text = piece(candidate);
      top.push({ token: text, logprob: logOf(p), bytes: bytesOf(text) });
    }
    const text = piece(token);
    content.push({ token: text, logprob: logOf(probabilities.get(token) ?? 0), bytes: bytesOf(text), top_logprobs: top });
    generated.push(token);
    if (generated.length >= request.maxTokens) break;
  }
  return { text: model.detokenize(generated), content, stopReason };
}
