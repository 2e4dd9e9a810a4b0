import { renderTenantErasure, renderTenantInventory } from '../../../cli/commands/tenant';

/* What `ragtime tenant purge` prints (issue 45 §2): the counts it asks about (and --dry-run shows), then what went. */

const inventory = {
  tenant: 'acme',
  sessions: ['s-1', 's-2'],
  temporalRuns: 3,
  runsInFlight: ['rag-s-2-1'],
  sessionTurns: 2,
  auditInvocations: 5,
  auditEvents: 17,
  answerStreamEvents: 9,
  knowledgeBases: [{ kb: 'acme_kb', documents: 2, parents: 6, leaves: 1 }],
  sharedKnowledgeBases: [{ kb: 'faq', with: ['globex'] }],
  tokens: 1,
  sessionOwners: 2,
  alreadyPurged: false,
};

test('the inventory: a line per store, the runs in flight named, shared knowledge bases as kept', () => {
  expect(renderTenantInventory(inventory)).toMatchInlineSnapshot(`
"tenant "acme":
  sessions:                          2
  Temporal runs:                     3 (history and visibility, sub-questions included); in flight: rag-s-2-1
  session turns:                     2
  audit rows:                        5 tool invocations, 17 events
  answer-stream events:              9
  knowledge bases of its own:        acme_kb (2 documents, 6 parent chunks, 1 leaf in Milvus)
  knowledge bases kept (shared):     faq (with globex)
  tokens:                            1 in this configuration; from the purge on, every server reading this database refuses all the tenant's tokens
  session owner rows:                2"
`);
});

test('the erasure: what went from each store, the cancelled runs, the tokens refused', () => {
  const { tenant, temporalRuns, sessionTurns, auditInvocations, auditEvents, answerStreamEvents, knowledgeBases, sharedKnowledgeBases, tokens, sessionOwners } = inventory;
  const counts = { tenant, temporalRuns, sessionTurns, auditInvocations, auditEvents, answerStreamEvents, knowledgeBases, sharedKnowledgeBases, tokens, sessionOwners };
  expect(renderTenantErasure({ ...counts, sessions: 2, cancelledRuns: ['rag-s-2-1'], temporalPending: [] })).toMatchInlineSnapshot(`
"erased tenant "acme":
  sessions:                          2
  open runs cancelled first:         1 (rag-s-2-1)
  Temporal runs deleted:             3 (history and visibility, sub-questions included)
  session turns:                     2
  audit rows:                        5 tool invocations, 17 events
  answer-stream events:              9
  knowledge bases dropped:           acme_kb (2 documents, 6 parent chunks, 1 leaf in Milvus)
  knowledge bases kept (shared):     faq (with globex)
  tokens refused:                    1 in this configuration, and any other of the tenant's (remove them from RAGTIME_API_TOKENS; \`ragtime tenant readmit\` accepts them again)
  session owner rows:                2"
`);
});
