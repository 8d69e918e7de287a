CREATE INDEX `events_call_idx` ON `events` (`workspace_id`,`call_id`,`created_at`,`id`);--> statement-breakpoint
UPDATE `events` SET `call_id` = json_extract(`body`, '$.data.call_id') WHERE `channel` = 'workspace' AND `call_id` IS NULL AND json_type(`body`, '$.data.call_id') = 'text';
