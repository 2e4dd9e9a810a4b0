import type { IntentRecord } from '../schemas/intent';

/*
 * How a run answered without retrieval says so (issue 44 §5), instead of a citation check that has nothing to check:
 * "answered without retrieval: a greeting (decided by the rules)". Pure; the CLI prints it, the console says the same.
 */

const WHAT: Record<IntentRecord['intent'], string> = {
  greeting: 'a greeting',
  thanks: 'thanks',
  conversation_meta: 'a question about the conversation',
  knowledge_query: 'a knowledge question',
};

export const withoutRetrievalText = (intent: Pick<IntentRecord, 'intent' | 'decided_by'> | null | undefined): string =>
  intent ? `answered without retrieval: ${WHAT[intent.intent]} (decided by the ${intent.decided_by})` : 'answered without retrieval';
