ALTER TABLE "projects" ADD COLUMN "a2a_enabled" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "mcp_server_enabled" boolean DEFAULT true NOT NULL;