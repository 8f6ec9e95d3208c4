/**
 * Json is a parsed JSON answer or document that a test reads loosely (`res.body.data[0].json.plan`). The shapes
 * themselves are the contract tests' job (tests/api/contract.api.test.ts checks every answer against the spec), so
 * the helpers that fetch JSON default to this instead of retyping each gateway's response.
 */
export type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any -- the one loose type for JSON read by tests; contract.api.test.ts checks shapes
