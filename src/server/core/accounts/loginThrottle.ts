/**
 * Sign-in throttling (a limit the attacker cannot reset). Failed sign-ins are
 * counted twice, with rate-limiter-flexible's drizzle store (RateLimiterDrizzle over the `rate_limits` table), so every
 * server process on the database sees the same counts and they survive a restart:
 * - per client address (`login-ip:<address>`): at most LOGIN_MAX_FAILURES per LOGIN_FAILURE_WINDOW_S, whatever
 *   accounts were tried; nothing clears it but the window's end, so signing in to an account of one's own from the
 *   same address does not reset it;
 * - per account (`login-account:<email, lower case>`): at most LOGIN_MAX_FAILURES_PER_ACCOUNT per window, from any
 *   address; a successful sign-in to that account clears only this count.
 * While either is used up, POST /api/login/login answers 429 with the wait (Retry-After, seconds) before the password
 * is even checked, so a guess made while limited tells nothing.
 */
import { RateLimiterDrizzle, RateLimiterRes } from 'rate-limiter-flexible';
import type { Db } from '../../db/client.ts';
import { rateLimits } from '../../db/schema.ts';
import { HttpError } from '../../errors.ts';

/** TooManyAttempts: 429 with the wait in minutes, and the seconds for a Retry-After header. */
export class TooManyAttempts extends HttpError {
  constructor(
    readonly retryAfterS: number,
    what: 'address' | 'account',
  ) {
    const minutes = Math.max(1, Math.ceil(retryAfterS / 60));
    const wait = `try again in ${minutes} minute${minutes === 1 ? '' : 's'}`;
    super(429, [
      what === 'address'
        ? `login: too many failed sign-in attempts from your address; ${wait}`
        : `login: too many failed sign-in attempts for this account; ${wait}, or reset the password`,
    ]);
  }
}

/** The limits: failures allowed per client address and per account within `windowS` seconds. */
export interface LoginLimits {
  perAddress: number;
  perAccount: number;
  windowS: number;
}

/** LoginThrottle counts failed sign-ins per client address and per account in the database (see the module docstring). */
export class LoginThrottle {
  private readonly byAddress: RateLimiterDrizzle;
  private readonly byAccount: RateLimiterDrizzle;

  constructor(
    db: Db,
    private readonly limits: LoginLimits,
  ) {
    const common = { storeClient: db, schema: rateLimits, duration: limits.windowS };
    this.byAddress = new RateLimiterDrizzle({ ...common, keyPrefix: 'login-ip', points: limits.perAddress });
    this.byAccount = new RateLimiterDrizzle({ ...common, keyPrefix: 'login-account', points: limits.perAccount });
  }

  /** check throws TooManyAttempts when `address` or `email`'s account has used up its failures in the current window. */
  async check(address: string, email: string): Promise<void> {
    const [fromAddress, forAccount] = await Promise.all([this.byAddress.get(address), this.byAccount.get(accountKey(email))]);
    if (fromAddress && fromAddress.consumedPoints >= this.limits.perAddress) throw new TooManyAttempts(Math.ceil(fromAddress.msBeforeNext / 1000), 'address');
    if (forAccount && forAccount.consumedPoints >= this.limits.perAccount) throw new TooManyAttempts(Math.ceil(forAccount.msBeforeNext / 1000), 'account');
  }

  /** failed counts one failed sign-in to `email` from `address`, on both counts. */
  async failed(address: string, email: string): Promise<void> {
    await Promise.all([consume(this.byAddress, address), consume(this.byAccount, accountKey(email))]);
  }

  /** succeeded clears the count of `email`'s account (never the address's). */
  async succeeded(email: string): Promise<void> {
    await this.byAccount.delete(accountKey(email));
  }

  /**
   * attempt runs one sign-in under the limits: refuses it (TooManyAttempts, with the Retry-After header set on `reply`)
   * when either count is used up; counts it as failed when `signIn` throws a 401; clears the account's count when it
   * succeeds. Used by the console's and the operators' sign-in alike. Resolves what `signIn` resolves.
   */
  async attempt<T>(address: string, email: string, reply: { header(name: string, value: string): unknown }, signIn: () => Promise<T>): Promise<T> {
    try {
      await this.check(address, email);
      try {
        const result = await signIn();
        await this.succeeded(email);
        return result;
      } catch (err) {
        if (err instanceof HttpError && err.statusCode === 401) await this.failed(address, email);
        throw err;
      }
    } catch (err) {
      if (err instanceof TooManyAttempts) reply.header('retry-after', String(err.retryAfterS));
      throw err;
    }
  }
}

/** The account's counter key: the email as typed at sign-in, trimmed and lower case (as accounts are looked up). */
const accountKey = (email: string) => email.trim().toLowerCase();

/** consume counts one point; a count past the limit is not an error here (check refuses the next attempt). */
async function consume(limiter: RateLimiterDrizzle, key: string): Promise<void> {
  try {
    await limiter.consume(key);
  } catch (res) {
    if (!(res instanceof RateLimiterRes)) throw res;
  }
}
