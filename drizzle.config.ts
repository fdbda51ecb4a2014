import { defineConfig } from 'drizzle-kit';

// `npm run db:generate -- --name <what_changed>` writes the next migration; never `push`.
export default defineConfig({
  dialect: 'postgresql',
  schema: './db/schema/index.ts',
  out: './db/migrations',
});
