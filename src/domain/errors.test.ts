/** Error text normalising for display (spec part 1 §8, part 2 §8). */
import { describe, expect, it } from 'vitest';
import { contactErrorText, loginErrorText, normaliseErrorText, signupErrorText, signupFieldErrors, signupMessagesInWords, SUPPORT_EMAIL } from './errors.ts';

describe('normaliseErrorText', () => {
  it('strips brackets, braces and quotes', () => {
    expect(normaliseErrorText('["users[0].email: Invalid email"]')).toBe('users0.email: Invalid email');
    expect(normaliseErrorText('{"detail": \'bad\' `x`}')).toBe('detail: bad x');
  });

  it('joins an errors array with ", "', () => {
    expect(normaliseErrorText(['name: Required field', 'timezone: unknown time zone "Mars/Olympus"'])).toBe(
      'name: Required field, timezone: unknown time zone Mars/Olympus',
    );
  });

  it('joins the errors array of a response body', () => {
    expect(normaliseErrorText({ errors: ['a: one', 'b: [two]'] })).toBe('a: one, b: two');
  });

  it('uses an Error’s message', () => {
    expect(normaliseErrorText(new Error('  {boom}  '))).toBe('boom');
  });

  it('maps "Failed to fetch" (in any form, any case) to "Unknown networking error"', () => {
    expect(normaliseErrorText(new TypeError('Failed to fetch'))).toBe('Unknown networking error');
    expect(normaliseErrorText('TypeError: failed to fetch')).toBe('Unknown networking error');
    expect(normaliseErrorText(['Failed to fetch'])).toBe('Unknown networking error');
  });

  it('renders null, undefined and other values as text', () => {
    expect(normaliseErrorText(null)).toBe('');
    expect(normaliseErrorText(undefined)).toBe('');
    expect(normaliseErrorText(500)).toBe('500');
    expect(normaliseErrorText({ other: 1 })).toBe('object Object');
  });
});

describe('loginErrorText', () => {
  it('turns anything mentioning 401 into the bad-password text', () => {
    expect(loginErrorText(['401: invalid username / password'])).toBe('invalid username / password');
    expect(loginErrorText({ errors: ['HTTP 401 Unauthorized'] })).toBe('invalid username / password');
  });

  it('a thrown 401 reads "invalid username / password combo"', () => {
    expect(loginErrorText(new Error('Request failed with status 401'), true)).toBe('invalid username / password combo');
  });

  it('leaves other errors as their normalised text', () => {
    expect(loginErrorText(['password: Required field'])).toBe('password: Required field');
    expect(loginErrorText(new TypeError('Failed to fetch'), true)).toBe('Unknown networking error');
    expect(loginErrorText(['"500": server down'], true)).toBe('500: server down');
  });
});

describe('signupFieldErrors', () => {
  it('routes captcha and password messages to their fields wherever they appear', () => {
    expect(signupFieldErrors(['captcha: verification failed; please try again', 'password: must be at least 8 characters'])).toEqual({
      captcha: 'verification failed; please try again',
      password: 'must be at least 8 characters',
    });
    expect(signupFieldErrors(['request: the captcha provider is down'])).toEqual({ captcha: 'the captcha provider is down' });
  });
  it('routes the other payload fields by their prefix and skips messages naming no field', () => {
    expect(
      signupFieldErrors([
        'company_user.email: Another user with that email already exists',
        'company_user.json.business_website: must start with http:// or https://',
        'company_display_name: a company named Acme already exists',
        'body: something else',
      ]),
    ).toEqual({
      email: 'Another user with that email already exists',
      business_website: 'must start with http:// or https://',
      business_name: 'a company named Acme already exists',
    });
  });
});

describe('signupErrorText and contactErrorText', () => {
  it('joins the errors after "Error: " and rewords an inner 401', () => {
    expect(signupErrorText(['company_user.email: Invalid email', 'password: Required field'])).toBe(
      'Error: company_user.email: Invalid email, password: Required field',
    );
    expect(signupErrorText(['inner call failed with 401 Unauthorized'])).toBe('Error: invalid username / password combo');
  });
  it('rewords a failed fetch of the contact form and names the support address', () => {
    expect(contactErrorText(new TypeError('Failed to fetch'))).toBe(
      `Error: unable to send message, please check your inputs and try again, or email us at ${SUPPORT_EMAIL}`,
    );
    expect(contactErrorText(['details: Required field'])).toBe('Error: details: Required field');
  });
});

describe('signupMessagesInWords', () => {
  it("names each field by the form's label, never by the payload's name", () => {
    expect(
      signupMessagesInWords([
        'company_user.email: Required field',
        'password: Required field',
        'company_display_name: Required field',
        'company_user.json.business_website: must start with http:// or https://',
        'captcha: verification failed',
      ]),
    ).toEqual([
      'Business email: Required field',
      'Password: Required field',
      'Business name: Required field',
      'Business website: must start with http:// or https://',
      'captcha: verification failed',
    ]);
  });
  it('leaves a message that names no field as it is', () => {
    expect(signupMessagesInWords(['the sign-up server did not answer within 4 seconds'])).toEqual(['the sign-up server did not answer within 4 seconds']);
  });
});
