import type { RagClient } from '../../client/rag-client';
import { toRagError } from '../../client/errors';
import { RAG_SESSION_ID } from '../../workflows/search-attributes';
import { notFound } from './api-failure';
import type { TenantDirectory } from './tenant-directory';

const RAG_WORKFLOW_TYPE = 'ragWorkflow';

/**
 * Finds a run the tenant may see, or throws the API's 404. The workflow id is not trusted to say whose run it is
 * (anyone can start a run named "rag-<your session>-…" from the CLI): the server is asked, and the run's
 * RagSessionId search attribute — set by `ask` when the run started — names the session, whose owner must be the
 * tenant. Runs of other workflow types (ingestion, sub-questions) are not part of the API and are "not found" too.
 */
export async function findOwnedRun(
  rag: RagClient,
  tenants: TenantDirectory,
  tenant: string,
  workflowId: string,
): Promise<{ sessionId: string; running: boolean }> {
  const description = await rag.temporal.workflow
    .getHandle(workflowId)
    .describe()
    .catch((error: unknown) => {
      const failure = toRagError(error, workflowId);
      throw failure.code === 'UNKNOWN_RUN' ? notFound('run', workflowId) : failure;
    });
  if (description.type !== RAG_WORKFLOW_TYPE) throw notFound('run', workflowId);
  const sessionId = description.typedSearchAttributes.get(RAG_SESSION_ID);
  if (sessionId === undefined || !(await tenants.ownsSession(sessionId, tenant))) throw notFound('run', workflowId);
  return { sessionId, running: description.status.name === 'RUNNING' };
}
