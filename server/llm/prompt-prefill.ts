import type { ChatHistoryItem, ChatWrapper, LlamaContextSequence, LlamaModel, Token } from 'node-llama-cpp';

/*
 * The prompt read into the context sequence before generation, in small steps that a closed request can stop
 * (issue 43 §3). LlamaChat checks its abort signal only between generated tokens, so a long prompt — evidence of a
 * few thousand tokens, a minute on two busy cores — ran to its end after the client had gone. Read here first,
 * LlamaChat finds the prompt already in the sequence (it keeps the common prefix, adaptStateToTokens) and only
 * generates. The common prefix with what the sequence already holds is kept, so the evidence a grade read is not
 * read again by the answer that starts with it (the KV cache).
 */

/**
 * Tokens read per step: one step is what an abort may wait for. 64 reads as fast as one batch of the whole prompt
 * (83.7 against 83.0 tokens/s on this machine's 2 cores, idle, 1,800 tokens), where 16 read at 64.4 (docs/PERFORMANCE.md);
 * a step is then ~0.8 s.
 */
export const PREFILL_STEP_TOKENS = 64;

export type SequenceTarget = { sequence: LlamaContextSequence; model: LlamaModel; chatWrapper: ChatWrapper };
export type Prefilled = { tokens: Token[]; reused: number };

/** The chat's prompt as the chat wrapper renders it for LlamaChat (the empty model turn last). */
export function chatPromptTokens(target: SequenceTarget, history: ChatHistoryItem[]): Token[] {
  return target.chatWrapper.generateContextState({ chatHistory: history }).contextText.tokenize(target.model.tokenizer);
}

/**
 * Reads the prompt's tokens but the last into the sequence (the first generated token is read from the last one),
 * keeping the prefix it already holds. Throws the signal's reason when aborted between steps.
 */
export async function prefillPrompt(target: SequenceTarget, tokens: Token[], signal: AbortSignal): Promise<Prefilled> {
  const { sequence } = target;
  const { firstDifferentIndex } = sequence.compareContextTokens(tokens);
  const keep = Math.min(firstDifferentIndex, tokens.length - 1);
  if (keep < sequence.nextTokenIndex) await sequence.eraseContextTokenRanges([{ start: keep, end: sequence.nextTokenIndex }]);
  for (let at = keep; at < tokens.length - 1; at += PREFILL_STEP_TOKENS) {
    if (signal.aborted) throw abortReason(signal);
    await sequence.evaluateWithoutGeneratingNewTokens(tokens.slice(at, Math.min(at + PREFILL_STEP_TOKENS, tokens.length - 1)));
  }
  if (signal.aborted) throw abortReason(signal);
  return { tokens, reused: keep };
}

const abortReason = (signal: AbortSignal): Error => (signal.reason instanceof Error ? signal.reason : new Error('the client closed the request'));
