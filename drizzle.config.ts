import { defineConfig } from 'drizzle-kit';

/** drizzle-kit: `npm run db:generate` writes SQL migrations for src/server/db/schema.ts. */
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/server/db/schema.ts',
  out: './src/server/db/migrations',
});
