// Before any test file: on a PostgreSQL run, the test process's server starts here (initdb and start take
// seconds on a loaded machine, longer than a test hook may).
import { sharedPostgres } from "./helpers/postgres.ts";

if (process.env.PARLEY_TEST_DATABASE === "postgres") sharedPostgres();
