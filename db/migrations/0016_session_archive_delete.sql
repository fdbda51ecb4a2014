ALTER TABLE "sessions" ADD COLUMN "archived_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "deleted_at" timestamp (3) with time zone;