/**
 * The gateways' OpenAPI documents, read-only, at `/openapi/<service>.json`: the very documents the server registers
 * each gateway's routes and validation from (generated/openapi/<service>.json), so the API reference (/docs/api) shows
 * exactly what the gateways accept. No key is needed: a document describes the API, not any account. Only GET (and
 * HEAD); any other path under /openapi/ answers the usual 404 `{errors}` (plugins/console.ts reserves the prefix).
 */
import type { FastifyInstance } from 'fastify';

/** The URL prefix the documents are served under. */
export const API_DOCUMENTS_PREFIX = '/openapi/';

/** apiDocumentUrl is where the document of gateway `service` is served. */
export function apiDocumentUrl(service: string): string {
  return `${API_DOCUMENTS_PREFIX}${service}.json`;
}

/** registerApiDocuments serves each of `documents` (service → its bundled OpenAPI document) at apiDocumentUrl(service). */
export function registerApiDocuments(app: FastifyInstance, documents: ReadonlyArray<{ service: string; specification: object }>): void {
  for (const { service, specification } of documents) {
    const body = JSON.stringify(specification, null, 2);
    app.get(apiDocumentUrl(service), async (_req, reply) =>
      // no-cache: a browser checks again on each visit, so a new release's document is seen at once.
      reply.type('application/json; charset=utf-8').header('cache-control', 'no-cache').send(body),
    );
  }
}
