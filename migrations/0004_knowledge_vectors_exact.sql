ALTER TABLE `knowledge_bases` ADD `chunk_count` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `knowledge_bases` ADD `index_version` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `knowledge_chunks` ADD `embedding` blob;