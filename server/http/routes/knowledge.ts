import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { unreadable, visibleStats } from '../../../core/knowledge/document-access';
import type { DocumentRecord } from '../../../core/knowledge/knowledge-base';
import { ApiError, DocumentList, DocumentParams, DocumentRemoved, KbList, KbParams } from '../api-schemas';
import { ApiFailure, notFound } from '../api-failure';
import type { RouteDeps } from '../server-deps';

const errors = { 400: ApiError, 401: ApiError, 404: ApiError, 503: ApiError };

/**
 * Knowledge bases and documents for tenants (DESIGN §4b): the knowledge bases a tenant may use, their documents,
 * and removing one. Another tenant's knowledge base is "not found", as an unknown one.
 */
export const knowledgeRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, { tenants, knowledge }) => {
  const admin = () => {
    if (!knowledge) throw new ApiFailure(503, 'SERVICE_UNAVAILABLE', 'this server was started without the knowledge stores; documents cannot be listed or removed here');
    return knowledge;
  };
  const allowed = (tenant: string, kb: string) => {
    if (!tenants.kbsOf(tenant).includes(kb)) throw notFound('knowledge base', kb);
  };

  // issue 44 §4: the documents of a knowledge base the request's token may not read (their access list).
  const hiddenOf = (request: { groups: string[] }, documents: DocumentRecord[]) => unreadable(request.groups, documents);

  app.get('/api/kbs', {
    schema: { summary: 'The knowledge bases the caller may use, with their documents, chunks and last ingest', tags: ['knowledge'], response: { 200: KbList, ...errors } },
  }, async (request) => {
    const existing = new Set(await admin().list());
    const defaultKb = tenants.defaultKbOf(request.tenant);
    const mine = tenants.kbsOf(request.tenant).filter((kb) => existing.has(kb));
    const stats = await Promise.all(mine.map(async (kb) => visibleStats(await admin().stats(kb), hiddenOf(request, await admin().documents.list(kb)))));
    return { kbs: stats.map((s) => ({ ...s, default: s.kb === defaultKb })) };
  });

  app.get('/api/kbs/:kb/documents', {
    schema: { summary: 'The documents of a knowledge base: id, source, pages, chunks, ingested at, content hash', tags: ['knowledge'], params: KbParams, response: { 200: DocumentList, ...errors } },
  }, async (request) => {
    const { kb } = request.params;
    allowed(request.tenant, kb);
    await admin().open(kb); // UNKNOWN_KB → 404
    const documents = await admin().documents.list(kb);
    const hidden = new Set(hiddenOf(request, documents).map((document) => document.doc_id));
    return { kb, documents: documents.filter((document) => !hidden.has(document.doc_id)) };
  });

  app.delete('/api/kbs/:kb/documents/*', {
    schema: {
      summary: 'Remove a document: its leaves first (it leaves retrieval at once), then its parents and its record',
      tags: ['knowledge'],
      params: DocumentParams,
      response: { 200: DocumentRemoved, ...errors },
    },
  }, async (request) => {
    const { kb, '*': docId } = request.params;
    allowed(request.tenant, kb);
    const id = decodeURIComponent(docId);
    // issue 44 §4: a document the token may not read is "not found" to it, as one that does not exist.
    if (hiddenOf(request, await admin().documents.list(kb)).some((document) => document.doc_id === id)) throw notFound('document', id);
    return { kb, removed: await admin().removeDocument(kb, id) };
  });
};
