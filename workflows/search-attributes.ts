import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/*
 * The search attributes a run keeps current, so operators find runs in the Temporal UI by session, status, route
 * and complexity. They are registered on the server at start (scripts/services.sh).
 */
export const RAG_SESSION_ID = defineSearchAttributeKey('RagSessionId', SearchAttributeType.KEYWORD);
export const RAG_STATUS = defineSearchAttributeKey('RagStatus', SearchAttributeType.KEYWORD);
export const RAG_ROUTE = defineSearchAttributeKey('RagRoute', SearchAttributeType.KEYWORD);
export const RAG_COMPLEXITY = defineSearchAttributeKey('RagComplexity', SearchAttributeType.KEYWORD);
export const RAG_HITL_ROUNDS = defineSearchAttributeKey('RagHitlRounds', SearchAttributeType.INT);
/** The knowledge base a run reads (DESIGN §4b), set when it starts; absent for runs that name none. */
export const RAG_KB = defineSearchAttributeKey('RagKb', SearchAttributeType.KEYWORD);
