/**
 * Handler typing from generated/ (STYLE.md 1): a gateway's handlers are an object keyed by operationId whose request
 * and reply types come from the openapi-typescript `operations` interface of that gateway. No request or response type
 * is written by hand.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from '../errors.ts';
import type { ProjectScope } from '../core/scope.ts';

type JsonBody<T> = T extends { content: { 'application/json': infer B } } ? B : never;

export type BodyOf<O> = O extends { requestBody: infer R } ? JsonBody<NonNullable<R>> : never;
export type QueryOf<O> = O extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
export type ParamsOf<O> = O extends { parameters: { path?: infer P } } ? NonNullable<P> : never;
export type OkOf<O> = O extends { responses: { 200: infer R } } ? JsonBody<R> : never;

declare module 'fastify' {
  interface FastifyRequest {
    /** The project the request's x-api-key names; set by the ApiKey security handler. */
    project?: ProjectScope;
  }
}

export type RequestOf<O> = FastifyRequest<{ Body: BodyOf<O>; Querystring: QueryOf<O>; Params: ParamsOf<O> }>;

/** One operation's handler: resolves with the 200 body (errors are thrown as HttpError). */
export type Handler<O> = (req: RequestOf<O>, reply: FastifyReply) => Promise<OkOf<O>>;

/** All handlers of one gateway, keyed by operationId. */
export type GatewayHandlers<Ops> = { [K in keyof Ops]: Handler<Ops[K]> };

/** scope returns the request's project; throws when the route was registered without the ApiKey security handler. */
export function scope(req: FastifyRequest): ProjectScope {
  if (!req.project) throw new Error('route has no project scope (missing ApiKey security in its spec)');
  return req.project;
}

/**
 * sameProject throws 403 when the console names a company or project other than the key's own (the company_name and
 * project_name the console sends from the session; absent names are not checked).
 */
export function sameProject(project: ProjectScope, companyName?: string | null, projectName?: string | null): void {
  if (companyName && companyName !== project.companyName) throw new HttpError(403, ['company_name: not the company of this api key']);
  if (projectName && projectName !== project.name) throw new HttpError(403, ['project_name: not the project of this api key']);
}
