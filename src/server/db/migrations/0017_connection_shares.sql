CREATE TABLE "connection_shares" (
	"key" text NOT NULL,
	"holder" text NOT NULL,
	"slots" integer NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "connection_shares_key_holder_pk" PRIMARY KEY("key","holder")
);
