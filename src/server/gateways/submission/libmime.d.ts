/** The part of libmime (nodemailer's MIME library, no types of its own) the submission server uses. */
declare module 'libmime' {
  const libmime: {
    /** decodeWords decodes RFC 2047 encoded words (`=?UTF-8?Q?…?=`) in a header value. */
    decodeWords(value: string): string;
  };
  export default libmime;
}
