ALTER TABLE `campaigns` ADD `reach` text DEFAULT 'any' NOT NULL;--> statement-breakpoint
ALTER TABLE `schedules` ADD `reach` text DEFAULT 'any' NOT NULL;