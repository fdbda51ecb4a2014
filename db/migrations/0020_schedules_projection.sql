ALTER TABLE "schedule_firings" ADD COLUMN "pending_turn_id" uuid;--> statement-breakpoint
ALTER TABLE "schedules" ADD COLUMN "revision" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "schedules" ADD COLUMN "temporal_revision" integer;--> statement-breakpoint
CREATE INDEX "schedules_unsynced_idx" ON "schedules" USING btree ("updated_at") WHERE "schedules"."temporal_revision" is distinct from "schedules"."revision";