/**
 * Sign-in throttling (issue 7 "Bad input": repeated failed logins from one address are rate-limited with a clear
 * message). Failed attempts are counted per client address with rate-limiter-flexible in this process's memory; a
 * success clears the count. With several server processes each keeps its own count (the limit is per process).
 */
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { HttpError } from './errors.ts';

/** TooManyAttempts: 429 with the wait in minutes, and the seconds for a Retry-After header. */
export class TooManyAttempts extends HttpError {
  constructor(readonly retryAfterS: number) {
    const minutes = Math.max(1, Math.ceil(retryAfterS / 60));
    super(429, [`login: too many failed sign-in attempts from your address; try again in ${minutes} minute${minutes === 1 ? '' : 's'}`]);
  }
}

/** LoginThrottle allows `maxFailures` failed sign-ins per address per `windowS` seconds. */
export class LoginThrottle {
  private readonly limiter: RateLimiterMemory;

  constructor(private readonly maxFailures: number, windowS: number) {
    this.limiter = new RateLimiterMemory({ points: maxFailures, duration: windowS });
  }

  /** check throws TooManyAttempts when `address` has used up its failures in the current window. */
  async check(address: string): Promise<void> {
    const res = await this.limiter.get(address);
    if (res && res.consumedPoints >= this.maxFailures) throw new TooManyAttempts(Math.ceil(res.msBeforeNext / 1000));
  }

  /** failed counts one failed attempt from `address`. */
  async failed(address: string): Promise<void> {
    try {
      await this.limiter.consume(address);
    } catch (res) {
      if (!(res instanceof RateLimiterRes)) throw res;
    }
  }

  /** succeeded clears `address`'s count. */
  async succeeded(address: string): Promise<void> {
    await this.limiter.delete(address);
  }
}
