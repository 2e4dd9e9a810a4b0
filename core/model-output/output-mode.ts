import { z } from 'zod';

/*
 * How a model is asked for structured output (issue 24 §1). Providers differ in what they accept, so ragtime has a
 * ladder of ways to ask, from the strongest guarantee to the weakest; every reply is validated by the same zod schema
 * whichever way it was asked, so a lower rung never changes what is accepted, only how the model is told.
 */

/** The rungs, strongest first: strict json_schema, a forced tool call, json_object with the schema in the prompt, a plain prompt. */
export const OutputMode = z.enum(['json_schema', 'tools', 'json_object', 'prompt']);
export type OutputMode = z.infer<typeof OutputMode>;

export const OUTPUT_LADDER: readonly OutputMode[] = OutputMode.options;

/** MODEL_OUTPUT_MODE: `auto` starts at the top and steps down on a refusal; a rung forces that one way. */
export const OutputModeSetting = z.enum(['auto', ...OutputMode.options]);
export type OutputModeSetting = z.infer<typeof OutputModeSetting>;

/** The rung below `mode`, or null at the bottom. */
export function nextOutputMode(mode: OutputMode): OutputMode | null {
  return OUTPUT_LADDER[OUTPUT_LADDER.indexOf(mode) + 1] ?? null;
}

/** What each rung sends, for messages and docs. */
export const OUTPUT_MODE_SENDS: Record<OutputMode, string> = {
  json_schema: 'response_format json_schema (strict)',
  tools: 'a forced function call whose parameters are the schema',
  json_object: 'response_format json_object, the schema in the prompt',
  prompt: 'no response_format, the schema in the prompt',
};
