import type { CliHost } from '../cli/host';
import { main } from '../cli/main';
import { formatDocs } from '../core/graph/format-docs';
import { EvidenceGrade } from '../core/schemas/model-outputs';
import type * as ServeApi from '../server/serve-api';
import type * as ServeCodec from '../server/serve-codec';
import type * as LocalLlm from '../server/llm/local-llm-server';
import type * as ServeMcp from '../server/mcp/serve-mcp-stdio';
import { auditSqliteFileOf } from '../runtime/data-files';
import type * as SessionTurns from '../activities/adapters/sql-session-turns';
import type * as AnswerStream from '../activities/adapters/sql-answer-stream';
import type * as AuditStore from '../activities/adapters/sql-audit-store';
import type * as SessionOwners from '../activities/adapters/sql-session-owners';
import type * as BuildAdapters from '../workers/build-adapters';
import type * as RunDoctor from '../workers/doctor/run-doctor';
import type * as RunWorker from '../workers/run-worker';

/*
 * The entry point of the `ragtime` command (bin/ragtime.js runs it): the CLI, given the worker and the servers it
 * starts. Those load the SDKs of every store (about a second), so each is required on first use and `ask`, `answer`,
 * `trace` and `runs` start quickly. require, not import(): bin/ragtime.js registers tsx's CommonJS hooks only, and
 * Node's ESM loader would not resolve the extensionless .ts paths.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
const host: CliHost = {
  runWorker: (config, options) => (require('../workers/run-worker') as typeof RunWorker).runWorker(config, options),
  // The CLI is the operator's: its UNKNOWN_KB names the knowledge bases that exist (a worker's and the API's do not).
  openRetriever(config) {
    const adapters = (require('../workers/build-adapters') as typeof BuildAdapters).buildAdapters(config, { namesInErrors: true });
    return {
      retrieve: (query, kb, scope) => adapters.retriever.retrieve(query, kb, scope),
      // The grader's reply parsed as the gradeEvidence activity parses it (without its retries: a failure falls back).
      grade: async (query, docs) => EvidenceGrade.parse(await adapters.chat.models.gradeEvidence(query, formatDocs(docs), docs)),
      close: () => adapters.close(),
    };
  },
  runDoctor: (config) => (require('../workers/doctor/run-doctor') as typeof RunDoctor).runDoctor(config),
  openKnowledge(config) {
    const adapters = (require('../workers/build-adapters') as typeof BuildAdapters).buildAdapters(config, { namesInErrors: true });
    const { knowledge } = adapters;
    return {
      list: () => knowledge.list(),
      create: (kb) => knowledge.create(kb),
      drop: (kb) => knowledge.drop(kb),
      stats: (kb) => knowledge.stats(kb),
      documents: { list: (kb) => knowledge.documents.list(kb) },
      open: (kb) => knowledge.open(kb),
      removeDocument: (kb, docId) => knowledge.removeDocument(kb, docId),
      changeDocumentMeta: (kb, docId, change) => knowledge.changeDocumentMeta(kb, docId, change),
      close: () => adapters.close(),
    };
  },
  openSessionTurns(config) {
    const store = (require('../activities/adapters/sql-session-turns') as typeof SessionTurns).createSessionTurnStore({
      databaseUrl: config.database.url,
      sqliteFile: auditSqliteFileOf(config),
    });
    return { turnsOf: (tenant, sessionId, options) => store.turnsOf(tenant, sessionId, options), close: () => store.close() };
  },
  openAnswerStream(config) {
    return (require('../activities/adapters/sql-answer-stream') as typeof AnswerStream).createAnswerStreamStore({
      databaseUrl: config.database.url,
      sqliteFile: auditSqliteFileOf(config),
    });
  },
  openSessionStores(config) {
    const location = { databaseUrl: config.database.url, sqliteFile: auditSqliteFileOf(config) };
    const audit = (require('../activities/adapters/sql-audit-store') as typeof AuditStore).createAuditStore({ ...location, includeContent: config.audit.includeContent });
    const turns = (require('../activities/adapters/sql-session-turns') as typeof SessionTurns).createSessionTurnStore(location);
    const answerStream = (require('../activities/adapters/sql-answer-stream') as typeof AnswerStream).createAnswerStreamStore(location);
    return {
      audit,
      turns,
      answerStream,
      close: async () => {
        await Promise.allSettled([audit.close(), turns.close(), answerStream.close()]);
      },
    };
  },
  openTenantStores(config) {
    const location = { databaseUrl: config.database.url, sqliteFile: auditSqliteFileOf(config) };
    const audit = (require('../activities/adapters/sql-audit-store') as typeof AuditStore).createAuditStore({ ...location, includeContent: config.audit.includeContent });
    const turns = (require('../activities/adapters/sql-session-turns') as typeof SessionTurns).createSessionTurnStore(location);
    const answerStream = (require('../activities/adapters/sql-answer-stream') as typeof AnswerStream).createAnswerStreamStore(location);
    const owners = (require('../activities/adapters/sql-session-owners') as typeof SessionOwners).createSessionOwnerStore(location);
    const knowledge = host.openKnowledge(config);
    return {
      audit,
      turns,
      answerStream,
      owners,
      knowledge,
      readmit: (tenant) => owners.readmit(tenant),
      close: async () => {
        await Promise.allSettled([audit.close(), turns.close(), answerStream.close(), owners.close(), knowledge.close()]);
      },
    };
  },
  openSessionOwners(config) {
    const owners = (require('../activities/adapters/sql-session-owners') as typeof SessionOwners).createSessionOwnerStore({
      databaseUrl: config.database.url,
      sqliteFile: auditSqliteFileOf(config),
    });
    return { claim: (sessionId, tenant) => owners.claim(sessionId, tenant), isPurged: (tenant) => owners.isPurged(tenant), close: () => owners.close() };
  },
  // search_knowledge at /mcp searches with the retriever `ragtime search` uses (opened on the first search);
  // GET /api/doctor runs the checks of `ragtime doctor`.
  serveApi: (config, rag, options) =>
    (require('../server/serve-api') as typeof ServeApi).serveApi(config, rag, {
      ...options,
      openRetriever: () => host.openRetriever(config),
      runDoctor: () => host.runDoctor(config),
    }),
  serveMcpStdio: (rag, options) => (require('../server/mcp/serve-mcp-stdio') as typeof ServeMcp).serveMcpStdio(rag, options),
  serveCodec: (keyring, settings, options) =>
    (require('../server/serve-codec') as typeof ServeCodec).serveCodec(keyring, settings, options),
  serveLocalLlm: (options) =>
    (require('../server/llm/local-llm-server') as typeof LocalLlm).startLocalLlmServer({ ...options, log: (line) => console.log(`ragtime llm: ${line}`) }),
};
/* eslint-enable @typescript-eslint/no-require-imports */

/** Runs the command line on `argv` and resolves to its exit code. */
export function run(argv: string[]): Promise<number> {
  return main(argv, host);
}
