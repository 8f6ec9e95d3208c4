/**
 * The project a request acts for: what the core's functions are given to scope every read and write to one tenant.
 * The gateways set it from the request's x-api-key (gateways/types.ts scope()).
 */

/** A project, its company, and whether it has left the sandbox (spec part 1, Session). */
export interface ProjectScope {
  id: string;
  name: string;
  companyId: string;
  companyName: string;
  notInSandbox: boolean;
}
