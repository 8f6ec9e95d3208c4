-- pick_template(contact, templates, bounds): the template one recipient of a blast gets (spec part 2 §3 A/B blasts,
-- template_ids_with_weights). `bounds` are the weights' running totals from 0: for weights 70 and 30,
-- templates {A, B} and bounds {0, 70, 100}. The recipient's point is the last 32 bits of its contact id (random in a
-- version-4 and in a version-7 UUID, whose first 48 bits are its time) modulo the total, and it gets the template
-- whose [bound, next bound) holds the point: a stable draw, so a re-expansion picks the same template, and a split close to the weights (tests/api/wizard.api.test.ts). A blast
-- with one template passes {T} and {0, 1}. One expression (no FROM), so PostgreSQL inlines it into the expansion.
CREATE OR REPLACE FUNCTION pick_template(contact uuid, templates uuid[], bounds int[]) RETURNS uuid
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT templates[width_bucket((('x' || right(contact::text, 8))::bit(32)::bigint % bounds[array_length(bounds, 1)])::int,
                                bounds[1:array_length(bounds, 1) - 1])]
$$;
