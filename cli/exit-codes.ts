/** The ragtime CLI's exit codes, documented in `ragtime --help`. */
export const EXIT = {
  /** The run completed (any route), or the command did what it was asked. */
  ok: 0,
  /** The run failed, or the command did. */
  failed: 1,
  /** Bad usage or invalid input: nothing was started. */
  usage: 2,
  /** The run waits for a person's answer (use `ragtime answer <workflowId> "<text>"`). */
  awaitingInput: 3,
  /**
   * A service (Temporal, Milvus, embeddings) is not reachable, or a run completed without reading the knowledge base;
   * for `ragtime doctor`, a check failed.
   */
  unavailable: 4,
} as const;

export const EXIT_CODES_HELP = `
Exit codes:
  0  completed (or the command succeeded)
  1  the run or the command failed
  2  invalid input or usage; nothing was started
  3  the run is waiting for an answer (ragtime answer <workflowId> "<text>")
  4  a service is not reachable (start the local ones with \`ragtime services up\` or \`make up\`; \`ragtime doctor\`
     checks each one), the run failed because one was not (a model endpoint: SERVICE_UNAVAILABLE), or the run
     completed "degraded": the knowledge base could not be read, so its route says
     nothing about the knowledge`;
