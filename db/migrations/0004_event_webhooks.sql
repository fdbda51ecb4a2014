CREATE TABLE "event_webhooks" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"project_id" uuid NOT NULL,
	"display_name" text NOT NULL,
	"endpoint_url" text NOT NULL,
	"event_kinds" jsonb,
	"include_message_content" boolean NOT NULL,
	"enabled" boolean NOT NULL,
	"status" text NOT NULL,
	"disabled_reason" text,
	"credential_ciphertext" text,
	"credential_fingerprint" text,
	"credential_version" bigint DEFAULT 0 NOT NULL,
	"previous_credential_ciphertext" text,
	"previous_credential_expires_at" timestamp (3) with time zone,
	"delivered_position" bigint NOT NULL,
	"change_sequence" integer DEFAULT 0 NOT NULL,
	"pending_batch_id" uuid,
	"pending_from_position" bigint,
	"pending_through_position" bigint,
	"pending_batch_created_at" timestamp (3) with time zone,
	"consecutive_failures" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp (3) with time zone,
	"last_attempt_at" timestamp (3) with time zone,
	"last_success_at" timestamp (3) with time zone,
	"last_failure_at" timestamp (3) with time zone,
	"last_response_status" integer,
	"last_error_code" text,
	"created_by_principal_id" uuid,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "event_webhooks" ADD CONSTRAINT "event_webhooks_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "event_webhooks" ADD CONSTRAINT "event_webhooks_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "event_webhooks_project_idx" ON "event_webhooks" USING btree ("project_id","created_at");