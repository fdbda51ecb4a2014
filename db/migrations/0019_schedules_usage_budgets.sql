CREATE TABLE "usage_daily" (
	"organization_id" uuid NOT NULL,
	"project_id" uuid NOT NULL,
	"day" date NOT NULL,
	"agent_id" uuid NOT NULL,
	"preset" text NOT NULL,
	"api_key_id" uuid,
	"runs" integer DEFAULT 0 NOT NULL,
	"invocations" integer DEFAULT 0 NOT NULL,
	"input_tokens" bigint DEFAULT 0 NOT NULL,
	"output_tokens" bigint DEFAULT 0 NOT NULL,
	"cache_read_tokens" bigint DEFAULT 0 NOT NULL,
	"cache_write_tokens" bigint DEFAULT 0 NOT NULL,
	"cost_nanos" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "usage_daily_key" UNIQUE NULLS NOT DISTINCT("project_id","day","agent_id","preset","api_key_id")
);
--> statement-breakpoint
CREATE TABLE "schedule_firings" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"project_id" uuid NOT NULL,
	"schedule_id" uuid NOT NULL,
	"firing_key" text NOT NULL,
	"scheduled_at" timestamp (3) with time zone NOT NULL,
	"fired_at" timestamp (3) with time zone NOT NULL,
	"outcome" text NOT NULL,
	"session_id" uuid,
	"run_id" uuid,
	"error_code" text,
	"error_explanation" text
);
--> statement-breakpoint
CREATE TABLE "schedules" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"project_id" uuid NOT NULL,
	"name" text,
	"agent_id" uuid NOT NULL,
	"agent_version_id" uuid,
	"cron" text,
	"interval_seconds" integer,
	"time_zone" text NOT NULL,
	"message" text NOT NULL,
	"files" jsonb NOT NULL,
	"overlap" text NOT NULL,
	"catchup_window_seconds" integer NOT NULL,
	"target" text NOT NULL,
	"session_id" uuid,
	"if_busy" text,
	"paused" boolean DEFAULT false NOT NULL,
	"created_by_principal_id" uuid NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp (3) with time zone
);
--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "budget_monthly_max_cost_nanos" bigint;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "budget_monthly_max_tokens" bigint;--> statement-breakpoint
ALTER TABLE "model_presets" ADD COLUMN "prices" jsonb;--> statement-breakpoint
ALTER TABLE "model_invocations" ADD COLUMN "agent_id" uuid;--> statement-breakpoint
ALTER TABLE "model_invocations" ADD COLUMN "preset" text;--> statement-breakpoint
ALTER TABLE "model_invocations" ADD COLUMN "api_key_id" uuid;--> statement-breakpoint
ALTER TABLE "model_invocations" ADD COLUMN "cost_nanos" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "model_calls" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "input_tokens" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "output_tokens" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "cache_read_tokens" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "cache_write_tokens" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "cost_nanos" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "cost_nanos" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "budget_max_cost_nanos" bigint;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "budget_max_tokens" bigint;--> statement-breakpoint
ALTER TABLE "usage_daily" ADD CONSTRAINT "usage_daily_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "usage_daily" ADD CONSTRAINT "usage_daily_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "schedule_firings" ADD CONSTRAINT "schedule_firings_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "schedule_firings" ADD CONSTRAINT "schedule_firings_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "schedule_firings" ADD CONSTRAINT "schedule_firings_schedule_id_schedules_id_fk" FOREIGN KEY ("schedule_id") REFERENCES "public"."schedules"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "schedules" ADD CONSTRAINT "schedules_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "schedules" ADD CONSTRAINT "schedules_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "schedule_firings_key" ON "schedule_firings" USING btree ("schedule_id","firing_key");--> statement-breakpoint
CREATE INDEX "schedule_firings_schedule_idx" ON "schedule_firings" USING btree ("schedule_id","scheduled_at");--> statement-breakpoint
CREATE INDEX "schedules_project_created_idx" ON "schedules" USING btree ("project_id","created_at") WHERE "schedules"."deleted_at" is null;