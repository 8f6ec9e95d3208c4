-- uuid_v7's definition is core/contacts/sql/uuid_v7.sql, applied after the migrations; this stub lets the default name it.
CREATE OR REPLACE FUNCTION uuid_v7() RETURNS uuid LANGUAGE sql VOLATILE AS $$ SELECT gen_random_uuid() $$;--> statement-breakpoint
ALTER TABLE "contacts" ALTER COLUMN "id" SET DEFAULT uuid_v7();
