CREATE TABLE "mcp_credential_policies" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"key" text NOT NULL,
	"latest_version" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "mcp_credential_policy_versions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"policy_id" uuid NOT NULL,
	"version" integer NOT NULL,
	"display_name" text NOT NULL,
	"credential_id" uuid NOT NULL,
	"exact_origin" text NOT NULL,
	"path_prefix" text NOT NULL,
	"timeout_ms" integer NOT NULL,
	"maximum_response_bytes" integer NOT NULL,
	"created_by_principal_id" uuid,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "mcp_credentials" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"key" text NOT NULL,
	"display_name" text NOT NULL,
	"kind" text NOT NULL,
	"header_name" text,
	"credential_ciphertext" text,
	"credential_fingerprint" text,
	"credential_version" bigint DEFAULT 0 NOT NULL,
	"revoked_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "mcp_server_versions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"server_id" uuid NOT NULL,
	"version" integer NOT NULL,
	"tools" jsonb NOT NULL,
	"tools_hash" text NOT NULL,
	"discovered_at" timestamp (3) with time zone,
	"created_by_principal_id" uuid,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "mcp_servers" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"key" text NOT NULL,
	"display_name" text NOT NULL,
	"endpoint_url" text NOT NULL,
	"transport" text NOT NULL,
	"latest_version" integer DEFAULT 1 NOT NULL,
	"created_by_principal_id" uuid,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "mcp_toolset_versions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"project_id" uuid NOT NULL,
	"toolset_id" uuid NOT NULL,
	"version" integer NOT NULL,
	"display_name" text NOT NULL,
	"server_version_id" uuid NOT NULL,
	"tools" jsonb NOT NULL,
	"created_by_principal_id" uuid,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "mcp_toolsets" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"project_id" uuid NOT NULL,
	"key" text NOT NULL,
	"latest_version" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "tool_calls" ADD COLUMN "execution" jsonb;--> statement-breakpoint
ALTER TABLE "mcp_credential_policies" ADD CONSTRAINT "mcp_credential_policies_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mcp_credential_policy_versions" ADD CONSTRAINT "mcp_credential_policy_versions_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mcp_credential_policy_versions" ADD CONSTRAINT "mcp_credential_policy_versions_policy_id_mcp_credential_policies_id_fk" FOREIGN KEY ("policy_id") REFERENCES "public"."mcp_credential_policies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mcp_credential_policy_versions" ADD CONSTRAINT "mcp_credential_policy_versions_credential_id_mcp_credentials_id_fk" FOREIGN KEY ("credential_id") REFERENCES "public"."mcp_credentials"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mcp_credentials" ADD CONSTRAINT "mcp_credentials_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mcp_server_versions" ADD CONSTRAINT "mcp_server_versions_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mcp_server_versions" ADD CONSTRAINT "mcp_server_versions_server_id_mcp_servers_id_fk" FOREIGN KEY ("server_id") REFERENCES "public"."mcp_servers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mcp_servers" ADD CONSTRAINT "mcp_servers_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mcp_toolset_versions" ADD CONSTRAINT "mcp_toolset_versions_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mcp_toolset_versions" ADD CONSTRAINT "mcp_toolset_versions_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mcp_toolset_versions" ADD CONSTRAINT "mcp_toolset_versions_toolset_id_mcp_toolsets_id_fk" FOREIGN KEY ("toolset_id") REFERENCES "public"."mcp_toolsets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mcp_toolset_versions" ADD CONSTRAINT "mcp_toolset_versions_server_version_id_mcp_server_versions_id_fk" FOREIGN KEY ("server_version_id") REFERENCES "public"."mcp_server_versions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mcp_toolsets" ADD CONSTRAINT "mcp_toolsets_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mcp_toolsets" ADD CONSTRAINT "mcp_toolsets_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "mcp_credential_policies_key" ON "mcp_credential_policies" USING btree ("organization_id","key");--> statement-breakpoint
CREATE UNIQUE INDEX "mcp_credential_policy_versions_version" ON "mcp_credential_policy_versions" USING btree ("policy_id","version");--> statement-breakpoint
CREATE INDEX "mcp_credential_policy_versions_organization_idx" ON "mcp_credential_policy_versions" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "mcp_credentials_key" ON "mcp_credentials" USING btree ("organization_id","key");--> statement-breakpoint
CREATE INDEX "mcp_credentials_organization_idx" ON "mcp_credentials" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "mcp_server_versions_version" ON "mcp_server_versions" USING btree ("server_id","version");--> statement-breakpoint
CREATE UNIQUE INDEX "mcp_servers_key" ON "mcp_servers" USING btree ("organization_id","key");--> statement-breakpoint
CREATE INDEX "mcp_servers_organization_idx" ON "mcp_servers" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "mcp_toolset_versions_version" ON "mcp_toolset_versions" USING btree ("toolset_id","version");--> statement-breakpoint
CREATE UNIQUE INDEX "mcp_toolsets_key" ON "mcp_toolsets" USING btree ("project_id","key");--> statement-breakpoint
CREATE INDEX "mcp_toolsets_project_idx" ON "mcp_toolsets" USING btree ("project_id","created_at");