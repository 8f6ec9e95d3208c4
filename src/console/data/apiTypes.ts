/**
 * The console's gateway types, all derived from generated/ (openapi-typescript output of openapi/*.yaml, indexed by
 * generated/operationTypes.gen.ts) as the server's handlers derive theirs (src/server/gateways/types.ts): no request
 * or response shape of a gateway is written by hand in the console.
 *
 * - OperationResponse<'listSegments'>: the JSON body of the operation's 200 answer;
 * - OperationBody / OperationQuery / OperationPath<'…'>: its request body, query and path parameters;
 * - CallParams<'…'>: the `{body, query, path}` argument of callOperation / callGateway for that operation, each part
 *   required exactly when the spec requires it (and absent when the operation has none);
 * - Schema<'scheduler', 'EmailBlast'>: a component schema of one gateway's spec;
 * - ListRow<'listEmailBlasts'>: one row of a list answer's `data` (or of another array key, ListRow<'listCampaigns', 'campaigns'>).
 */
import type { OperationId } from '../../../generated/operations.gen';
import type { OperationTypes, ServiceSchemas } from '../../../generated/operationTypes.gen';

export type { OperationId };

/** A gateway's service name (its spec file's name), e.g. 'scheduler'. */
export type ServiceName = keyof ServiceSchemas;

/** A component schema of one gateway's spec, e.g. Schema<'scheduler', 'EmailBlast'>. */
export type Schema<S extends ServiceName, N extends keyof ServiceSchemas[S]> = ServiceSchemas[S][N];

type JsonOf<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type BodyOf<O> = O extends { requestBody?: infer R } ? JsonOf<NonNullable<R>> : never;
type QueryOf<O> = O extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
type PathOf<O> = O extends { parameters: { path?: infer P } } ? NonNullable<P> : never;
type OkOf<O> = O extends { responses: { 200: infer R } } ? JsonOf<R> : never;

/** The JSON body of an operation's 200 answer (a union of the operations' answers when `Id` is a union). */
export type OperationResponse<Id extends OperationId> = OkOf<OperationTypes[Id]>;
/** The JSON request body of an operation (`never` when it takes none). */
export type OperationBody<Id extends OperationId> = BodyOf<OperationTypes[Id]>;
/** The query parameters of an operation (`never` when it takes none). */
export type OperationQuery<Id extends OperationId> = QueryOf<OperationTypes[Id]>;
/** The path parameters of an operation (`never` when it takes none). */
export type OperationPath<Id extends OperationId> = PathOf<OperationTypes[Id]>;

/** One part of CallParams: absent when the operation has none, required when the spec requires it, else optional. */
type Part<K extends string, T, Required extends boolean> = [T] extends [never]
  ? { [P in K]?: never }
  : Required extends true
    ? { [P in K]: T }
    : { [P in K]?: T };

type ParamsOf<O> = O extends { parameters: infer Ps }
  ? Part<'body', BodyOf<O>, O extends { requestBody: unknown } ? true : false> &
      Part<'query', QueryOf<O>, Ps extends { query: unknown } ? true : false> &
      Part<'path', PathOf<O>, Ps extends { path: unknown } ? true : false>
  : never;

/**
 * The parameters of one call to operation `Id`: `path` (e.g. `{ids: 'a,b'}` for `/templates/{ids}`), `query` (undefined,
 * null and '' values are left out of the URL) and the JSON `body`, as the operation's spec declares them.
 */
export type CallParams<Id extends OperationId> = Id extends OperationId ? ParamsOf<OperationTypes[Id]> : never;

/** A retry policy (count/delay), e.g. RETRY.reports. */
export type RetryPolicy = { retries: number; delayMs: number };

/** The arguments after the operationId: the params (optional when the operation requires none of its parts) and a retry policy. */
export type CallArgs<Id extends OperationId> =
  Record<never, never> extends CallParams<Id> ? [params?: CallParams<Id>, retry?: RetryPolicy] : [params: CallParams<Id>, retry?: RetryPolicy];

/** One row of the array under `Key` (default `data`) of an operation's answer, e.g. ListRow<'listSegments'>. */
export type ListRow<Id extends OperationId, Key extends string = 'data'> =
  OperationResponse<Id> extends infer R ? (R extends { [P in Key]?: Array<infer Row> | null } ? Row : never) : never;
