CREATE TABLE "pending_turns" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"project_id" uuid NOT NULL,
	"session_id" uuid NOT NULL,
	"sequence" bigint GENERATED ALWAYS AS IDENTITY (sequence name "pending_turns_sequence_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"if_busy" text NOT NULL,
	"state" text NOT NULL,
	"message" text NOT NULL,
	"attachments" jsonb NOT NULL,
	"idempotency_key" text,
	"created_by_principal_id" uuid,
	"run_id" uuid,
	"withdrawn_reason" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"settled_at" timestamp (3) with time zone
);
--> statement-breakpoint
DROP INDEX "messages_run_step";--> statement-breakpoint
DROP INDEX "workspace_backups_run_key";--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "forked_from_session_id" uuid;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "forked_from_run_id" uuid;--> statement-breakpoint
ALTER TABLE "pending_turns" ADD CONSTRAINT "pending_turns_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pending_turns" ADD CONSTRAINT "pending_turns_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pending_turns" ADD CONSTRAINT "pending_turns_session_id_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "pending_turns_session_idx" ON "pending_turns" USING btree ("session_id","state","sequence");--> statement-breakpoint
CREATE UNIQUE INDEX "messages_thread_run_step" ON "messages" USING btree ("thread_id","run_id","step_key");--> statement-breakpoint
CREATE UNIQUE INDEX "workspace_backups_workspace_run_key" ON "workspace_backups" USING btree ("workspace_session_id","run_id");