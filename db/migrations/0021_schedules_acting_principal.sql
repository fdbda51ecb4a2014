-- Who each firing acts as (docs/decisions/schedule-acting-principal.md): until now, always the creator.
ALTER TABLE "schedules" ADD COLUMN "acting_principal_id" uuid;--> statement-breakpoint
UPDATE "schedules" SET "acting_principal_id" = "created_by_principal_id";--> statement-breakpoint
ALTER TABLE "schedules" ALTER COLUMN "acting_principal_id" SET NOT NULL;
