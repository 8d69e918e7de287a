// Another node's job runner, reduced to its claims: a process of its own on the same PostgreSQL
// database that claims jobs of one type in batches and finishes each, until none is left to claim.
// Run as `bun claim-worker.ts <url> <type> <holder>`; it says "ready" once connected, starts on a
// line "go" on stdin (so that every worker starts at once), and prints the ids it ran as JSON.
import { openPostgresDatabase } from "../../src/db/connection.ts";
import { claimJobs, completeJob, nextDueAt } from "../../src/jobs/leases.ts";

const [url, type, holder] = process.argv.slice(2);
const { sqlite, db } = openPostgresDatabase(url);
process.stdout.write("ready\n");

const reader = Bun.stdin.stream().getReader();
for (let input = ""; !input.includes("go\n"); ) {
  const { done, value } = await reader.read();
  if (done) process.exit(1);
  input += new TextDecoder().decode(value);
}

const ran: string[] = [];
for (;;) {
  const claimed = claimJobs(db, type, 10, holder, Date.now(), 60_000);
  // Nothing claimed but something due: the other workers hold those rows for a moment.
  if (claimed.length === 0 && nextDueAt(db, [type]) === null) break;
  for (const job of claimed) {
    ran.push(job.id);
    completeJob(db, job.id, holder, Date.now());
  }
}
process.stdout.write(`${JSON.stringify(ran)}\n`);
sqlite.close();
process.exit(0); // stdin stays open
