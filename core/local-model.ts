/**
 * The local model of MODEL_PROVIDER=local (issue 34, docs/design/local-model.md): its id on the local model service,
 * the file scripts/llm-weights.sh writes, and the service's defaults. One place, read by the config, the CLI and the
 * service.
 */
export const LOCAL_MODEL = {
  id: 'qwen2.5-coder-1.5b-instruct',
  file: 'qwen2.5-coder-1.5b-instruct-q4_k_m.gguf',
  /** LLM_PORT's default. */
  port: 8766,
  contextSize: 8192,
  /**
   * Tokens a reply may run to when the request names no max_tokens. Answers here are 50–150 tokens; at temperature 0
   * the 1.5B model sometimes repeats itself until the limit, and at 2,048 that was 160 s of writing, twice (the
   * call's retry asks the same), for a reply cut off anyway (news-zh held-out, docs/PERFORMANCE.md). 768 ends it in
   * about a minute.
   */
  defaultMaxTokens: 768,
  /**
   * A model call's timeout with the local model: prompts are read at ~100 tokens/s and answers written at ~10 tokens/s
   * on two cores (docs/PERFORMANCE.md), so a grade or an answer takes tens of seconds, not the 45 s of a hosted API.
   */
  timeoutMs: 300_000,
} as const;
