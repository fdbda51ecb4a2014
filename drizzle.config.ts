import { defineConfig } from 'drizzle-kit';

// `npm run db:generate -- --name <what_changed>` writes the next migration; never `push`.
export default defineConfig({
  dialect: 'postgresql',
  // The core's tables and each facade module's own (compat/<vendor>/tables.ts).
  schema: ['./db/schema/index.ts', './compat/*/tables.ts'],
  out: './db/migrations',
});
