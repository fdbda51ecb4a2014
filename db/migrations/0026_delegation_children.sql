DROP INDEX "delegations_coordinator_key";--> statement-breakpoint
CREATE INDEX "delegations_coordinator_key" ON "delegations" USING btree ("coordinator_session_id","delegate_key");