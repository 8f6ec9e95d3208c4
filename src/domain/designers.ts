/**
 * The email designers' outside origins, named once for the console (which loads them) and the server (whose
 * Content-Security-Policy allows them; src/server/plugins/securityHeaders.ts).
 */

/** Where react-email-editor loads Unlayer's embed script and editor iframe from (the one optional outside script). */
export const UNLAYER_ORIGIN = 'https://editor.unlayer.com';
