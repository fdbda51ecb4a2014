CREATE TABLE "identities" (
	"organization_id" uuid NOT NULL,
	"subject" text NOT NULL,
	"kind" text NOT NULL,
	"email" text,
	"display_name" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"last_sign_in_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "identities_organization_id_subject_pk" PRIMARY KEY("organization_id","subject")
);
--> statement-breakpoint
CREATE TABLE "installation" (
	"singleton" boolean PRIMARY KEY DEFAULT true NOT NULL,
	"organization_id" uuid NOT NULL,
	"default_project_id" uuid,
	"owner_claimed_by_subject" text,
	"owner_claimed_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "installation_singleton" CHECK ("installation"."singleton")
);
--> statement-breakpoint
CREATE TABLE "login_states" (
	"state_hash" text PRIMARY KEY NOT NULL,
	"code_verifier_ciphertext" text NOT NULL,
	"nonce" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"consumed_at" timestamp (3) with time zone
);
--> statement-breakpoint
ALTER TABLE "browser_sessions" ADD COLUMN "refresh_token_hash" text;--> statement-breakpoint
ALTER TABLE "browser_sessions" ADD COLUMN "refresh_expires_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "browser_sessions" ADD COLUMN "provider_tokens_ciphertext" text;--> statement-breakpoint
ALTER TABLE "identities" ADD CONSTRAINT "identities_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "installation" ADD CONSTRAINT "installation_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "installation" ADD CONSTRAINT "installation_default_project_id_projects_id_fk" FOREIGN KEY ("default_project_id") REFERENCES "public"."projects"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "identities_organization_email_idx" ON "identities" USING btree ("organization_id","email");--> statement-breakpoint
CREATE UNIQUE INDEX "browser_sessions_refresh_token_hash_key" ON "browser_sessions" USING btree ("refresh_token_hash");