ALTER TABLE "product_events" ADD COLUMN "session_id" uuid;--> statement-breakpoint
UPDATE "product_events" SET "session_id" = ("public_payload"->>'sessionId')::uuid WHERE "public_payload"->>'sessionId' ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';--> statement-breakpoint
UPDATE "product_events" AS "e" SET "session_id" = "t"."session_id" FROM "tool_calls" AS "t" WHERE "e"."session_id" IS NULL AND "e"."aggregate_type" = 'approval' AND "t"."id"::text = "e"."public_payload"->>'toolCallId';--> statement-breakpoint
UPDATE "product_events" SET "session_id" = ("public_payload"->>'coordinatorSessionId')::uuid WHERE "session_id" IS NULL AND "public_payload"->>'coordinatorSessionId' ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';--> statement-breakpoint
UPDATE "product_events" AS "e" SET "session_id" = "r"."session_id" FROM "runs" AS "r" WHERE "e"."session_id" IS NULL AND "r"."id"::text = coalesce("e"."public_payload"->>'runId', "e"."public_payload"->>'coordinatorRunId');--> statement-breakpoint
ALTER TABLE "approvals" ADD COLUMN "session_id" uuid;--> statement-breakpoint
UPDATE "approvals" AS "a" SET "session_id" = "t"."session_id" FROM "tool_calls" AS "t" WHERE "t"."id" = "a"."tool_call_id";--> statement-breakpoint
ALTER TABLE "approvals" ALTER COLUMN "session_id" SET NOT NULL;--> statement-breakpoint
CREATE INDEX "product_events_session_position_idx" ON "product_events" USING btree ("project_id","session_id","project_position") WHERE "product_events"."session_id" is not null;
