DROP INDEX `ledger_ref_idx`;--> statement-breakpoint
CREATE INDEX `ledger_call_charges_idx` ON `ledger_entries` (`ref_id`,`category`,`amount`,`quantity`);