/** Sandbox rules (spec part 1 §1, §4; part 2 §1, §5 Test email). */
import { describe, expect, it } from 'vitest';
import { sandboxRejection, SIMULATOR_SUCCESS_ADDRESS } from './sandbox.ts';

describe('sandboxRejection', () => {
  const personas = ['News@Sender.Example.com', 'ops@sender.example.com'];

  it('allows the simulator success address in any case and with spaces around it', () => {
    expect(sandboxRejection(SIMULATOR_SUCCESS_ADDRESS, [])).toBeUndefined();
    expect(sandboxRejection(SIMULATOR_SUCCESS_ADDRESS.toUpperCase(), [])).toBeUndefined();
    expect(sandboxRejection(`  ${SIMULATOR_SUCCESS_ADDRESS}  `, [])).toBeUndefined();
  });

  it('allows the project’s own sender personas, ignoring case', () => {
    expect(sandboxRejection('news@sender.example.com', personas)).toBeUndefined();
    expect(sandboxRejection('OPS@SENDER.EXAMPLE.COM', personas)).toBeUndefined();
    expect(sandboxRejection('ops@sender.example.com', new Set(['  OPS@sender.example.com ']))).toBeUndefined();
  });

  it('rejects anyone else, naming the address and what is allowed', () => {
    const msg = sandboxRejection('Someone@Example.com', personas);
    expect(msg).toBeDefined();
    expect(msg!.startsWith('Someone@Example.com: ')).toBe(true);
    expect(msg).toContain(SIMULATOR_SUCCESS_ADDRESS);
    expect(msg).toMatch(/sandbox/);
    expect(msg).toMatch(/sender personas/);
  });

  it('does not treat a look-alike of an allowed address as allowed', () => {
    expect(sandboxRejection('news@sender.example.com.evil.test', personas)).toBeDefined();
    expect(sandboxRejection(`x${SIMULATOR_SUCCESS_ADDRESS}`, personas)).toBeDefined();
    expect(sandboxRejection('news@sender.example.com', [])).toBeDefined();
  });
});
