CREATE TABLE "sandbox_providers" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"key" text NOT NULL,
	"display_name" text NOT NULL,
	"provider_type" text NOT NULL,
	"target" text,
	"restricted_egress" jsonb NOT NULL,
	"credential_ciphertext" text,
	"credential_fingerprint" text,
	"credential_version" bigint DEFAULT 0 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "storage_providers" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"key" text NOT NULL,
	"display_name" text NOT NULL,
	"provider_type" text NOT NULL,
	"endpoint" text,
	"region" text NOT NULL,
	"bucket" text NOT NULL,
	"prefix" text,
	"force_path_style" boolean NOT NULL,
	"is_default" boolean NOT NULL,
	"credential_ciphertext" text,
	"credential_fingerprint" text,
	"credential_version" bigint DEFAULT 0 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "sandbox_providers" ADD CONSTRAINT "sandbox_providers_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "storage_providers" ADD CONSTRAINT "storage_providers_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "sandbox_providers_key" ON "sandbox_providers" USING btree ("organization_id","key");--> statement-breakpoint
CREATE INDEX "sandbox_providers_organization_idx" ON "sandbox_providers" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "storage_providers_key" ON "storage_providers" USING btree ("organization_id","key");--> statement-breakpoint
CREATE UNIQUE INDEX "storage_providers_default" ON "storage_providers" USING btree ("organization_id") WHERE "storage_providers"."is_default";--> statement-breakpoint
CREATE INDEX "storage_providers_organization_idx" ON "storage_providers" USING btree ("organization_id","created_at");