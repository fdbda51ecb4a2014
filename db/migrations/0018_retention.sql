CREATE TABLE "retention_object_deletions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"project_id" uuid NOT NULL,
	"storage_provider_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"object_key" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "session_retention_minutes" integer;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "event_retention_minutes" integer;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "events_purged_through_position" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "retention_object_deletions" ADD CONSTRAINT "retention_object_deletions_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "retention_object_deletions" ADD CONSTRAINT "retention_object_deletions_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "retention_object_deletions" ADD CONSTRAINT "retention_object_deletions_storage_provider_id_storage_providers_id_fk" FOREIGN KEY ("storage_provider_id") REFERENCES "public"."storage_providers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "retention_object_deletions_created_idx" ON "retention_object_deletions" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "runs_thread_idx" ON "runs" USING btree ("thread_id");--> statement-breakpoint
CREATE INDEX "sessions_parent_idx" ON "sessions" USING btree ("parent_session_id") WHERE "sessions"."parent_session_id" is not null;--> statement-breakpoint
CREATE INDEX "sessions_thread_idx" ON "sessions" USING btree ("thread_id");--> statement-breakpoint
CREATE INDEX "sessions_deleted_idx" ON "sessions" USING btree ("deleted_at") WHERE "sessions"."deleted_at" is not null and "sessions"."parent_session_id" is null;--> statement-breakpoint
CREATE INDEX "approvals_run_idx" ON "approvals" USING btree ("run_id");--> statement-breakpoint
CREATE INDEX "attachments_object_key_idx" ON "attachments" USING btree ("project_id","object_key");--> statement-breakpoint
CREATE INDEX "harness_operation_calls_run_idx" ON "harness_operation_calls" USING btree ("run_id");--> statement-breakpoint
CREATE INDEX "harness_operation_calls_thread_idx" ON "harness_operation_calls" USING btree ("thread_id");--> statement-breakpoint
CREATE INDEX "delegation_calls_delegation_idx" ON "delegation_calls" USING btree ("delegation_id");--> statement-breakpoint
CREATE INDEX "delegation_calls_child_run_idx" ON "delegation_calls" USING btree ("child_run_id");--> statement-breakpoint
CREATE INDEX "delegations_child_session_idx" ON "delegations" USING btree ("child_session_id");