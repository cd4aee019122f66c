-- Quotas (docs/fairness.md): an organization's upload bytes are summed at each upload, and the
-- cron purges uploads no message attached once they are older than CHAT_UNATTACHED_UPLOAD_TTL_HOURS.
CREATE INDEX "chat_files_organization_id_idx" ON "chat_files" USING btree ("organization_id");--> statement-breakpoint
CREATE INDEX "chat_files_unattached_created_at_idx" ON "chat_files" USING btree ("created_at") WHERE "chat_id" IS NULL;
