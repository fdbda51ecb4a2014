-- Memory stores in sessions (docs/decisions/memory-stores.md): the stores a session attached, as they were at attachment; a retried memory write (by its source, e.g. a tool call) finds its version.
ALTER TABLE "sessions" ADD COLUMN "memory_stores" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "memory_versions" ADD COLUMN "source_key" text;--> statement-breakpoint
CREATE UNIQUE INDEX "memory_versions_source_key" ON "memory_versions" USING btree ("store_id","source_key");