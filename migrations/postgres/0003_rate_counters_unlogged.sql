-- The cluster's rate counters (src/http/shared-rate-limit.ts) without WAL: a node's claim is then one
-- statement whose commit does not wait for the disk (with synchronous_commit on, PostgreSQL's default, a
-- logged claim waited for a WAL flush: 290 against 3,878 req/s at one claim per request, scripts/bench/
-- rate-limits.ts). The price is harmless: after a crash of the server, or on a promoted standby (unlogged
-- tables are not replicated), the counts start again at zero, forgiving at most a minute of traffic.
ALTER TABLE "rate_counters" SET UNLOGGED;
