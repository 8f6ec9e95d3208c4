-- uuid_v7(): a new version-7 UUID (RFC 9562 §5.7): the first 48 bits the Unix time in ms (clock_timestamp(), UTC),
-- then the version and variant bits, the other 74 bits random (gen_random_uuid()'s). Ids made one after another sort
-- after each other (within a millisecond, at random), so a table's heap, its primary key and the indexes that lead
-- with the id grow at their right-hand end and rows made together sit together: a blast's expansion, which reads
-- contacts in id order, then reads their pages in order instead of one at random per contact
-- (docs/bench-log.md "2026-11-30"). The default of contacts.id, and the unique part of each Message-ID
-- (core/sending/outbox.ts messageIdSql), whose index likewise grows at its end. PostgreSQL 18 has uuidv7() built in;
-- this is the same layout for the servers before it and for PGlite.
CREATE OR REPLACE FUNCTION uuid_v7() RETURNS uuid
LANGUAGE sql VOLATILE PARALLEL SAFE AS $$
  SELECT encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid())
                                        PLACING substring(int8send(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3)
                                        FROM 1 FOR 6), 52, 1), 53, 1), 'hex')::uuid
$$;
