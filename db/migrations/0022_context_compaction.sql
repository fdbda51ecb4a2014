-- Long conversations (docs/decisions/context-compaction.md): compaction steps and their summaries, the thread's count of what the model last read, the context meter on runs and sessions, the model's window on presets and invocations.
CREATE TABLE "context_compactions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"project_id" uuid NOT NULL,
	"thread_id" uuid NOT NULL,
	"session_id" uuid NOT NULL,
	"run_id" uuid NOT NULL,
	"turn_id" text NOT NULL,
	"step_key" text NOT NULL,
	"reason" text NOT NULL,
	"status" text NOT NULL,
	"number" integer,
	"summary" text,
	"rejection" text,
	"through_sequence" integer NOT NULL,
	"messages_covered" integer NOT NULL,
	"tokens_before" integer NOT NULL,
	"tokens_after" integer NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "model_presets" ADD COLUMN "context_window" integer;--> statement-breakpoint
ALTER TABLE "model_invocations" ADD COLUMN "context_window" integer;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "context_last_input_tokens" integer;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "context_window" integer;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "context_compactions" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "context_last_input_tokens" integer;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "context_window" integer;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "context_compactions" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "threads" ADD COLUMN "context_tokens" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "threads" ADD COLUMN "context_through_sequence" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "context_compactions" ADD CONSTRAINT "context_compactions_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "context_compactions" ADD CONSTRAINT "context_compactions_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "context_compactions" ADD CONSTRAINT "context_compactions_thread_id_threads_id_fk" FOREIGN KEY ("thread_id") REFERENCES "public"."threads"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "context_compactions" ADD CONSTRAINT "context_compactions_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "context_compactions_run_step" ON "context_compactions" USING btree ("run_id","step_key");--> statement-breakpoint
CREATE UNIQUE INDEX "context_compactions_thread_number" ON "context_compactions" USING btree ("thread_id","number") WHERE "context_compactions"."number" is not null;