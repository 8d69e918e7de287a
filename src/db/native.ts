// The two native pieces, imported statically so `bun build --compile` embeds them.
// Parley's supported platform is Linux x64 (glibc); both imports name that build explicitly.
import Database from "better-sqlite3/linux-x64";
import sqliteVecPath from "sqlite-vec-linux-x64/vec0.so" with { type: "file" };

export { Database, sqliteVecPath };
