-- Recordings are stored relative to the data dir, so a copy restored elsewhere reads (and erases)
-- its own files. Absolute paths of the usual layout <data dir>/recordings/<ws>/<call>.wav become
-- recordings/<ws>/<call>.wav; any other absolute path is not this instance's file and is dropped.
UPDATE `calls` SET `recording_path` = 'recordings/' || `workspace_id` || '/' || `id` || '.wav'
WHERE `recording_path` LIKE '%/recordings/' || `workspace_id` || '/' || `id` || '.wav';
--> statement-breakpoint
UPDATE `calls` SET `recording_path` = NULL WHERE `recording_path` LIKE '/%';
