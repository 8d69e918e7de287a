// parley backup / parley restore: one archive (tar) holding what an instance needs to come back on
// another box or directory: the database (a consistent online copy), the recordings, and with
// --include-key the instance key that decrypts stored credentials; a manifest lists every file's
// SHA-256 and every table's row count, and restore checks both.
import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join, normalize, resolve, sep } from "node:path";
import { ConfigError } from "../config/config.ts";
import type { Parley } from "../server.ts";
import { Database } from "../db/native.ts";
import { VERSION } from "../core/version.ts";
import { recordingFile } from "../modules/calls/recording.ts";
import { readTar, TarWriter } from "./tar.ts";

const MANIFEST = "manifest.json";
const DATABASE = "parley.db";
const KEY = "instance.key";

export interface BackupManifest {
  format: "parley-backup/1";
  version: string;
  created_at: string;
  includes_key: boolean;
  files: { path: string; size: number; sha256: string }[];
  /** Rows per table of the database copy (virtual tables' content is counted through their shadow tables). */
  tables: Record<string, number>;
}

type Progress = (line: string) => void;

function sha256File(path: string): string {
  const hash = createHash("sha256");
  hash.update(readFileSync(path));
  return hash.digest("hex");
}

/** Row counts of every ordinary table (virtual ones need their extension; their shadow tables are counted). */
export function tableCounts(db: InstanceType<typeof Database>): Record<string, number> {
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND sql NOT LIKE 'CREATE VIRTUAL%' ORDER BY name").all() as { name: string }[];
  return Object.fromEntries(tables.map(({ name }) => [name, (db.prepare(`SELECT count(*) AS n FROM "${name.replace(/"/g, '""')}"`).get() as { n: number }).n]));
}

export async function writeBackup(ctx: Parley, out: string, options: { includeKey: boolean; progress: Progress }): Promise<BackupManifest> {
  const { progress } = options;
  const root = ctx.config.dataDir;
  const work = mkdtempSync(join(tmpdir(), "parley-backup-"));
  try {
    const copy = join(work, DATABASE);
    await ctx.sqlite.backup(copy, {
      progress({ totalPages, remainingPages }) {
        progress(`backup: database ${Math.floor(((totalPages - remainingPages) / Math.max(totalPages, 1)) * 100)}% of ${totalPages} pages`);
        return 256; // pages per step: small steps let the live server keep writing between them
      },
    });
    // One self-contained file (no -wal/-shm), checked before it goes into the archive.
    const db = new Database(copy);
    db.pragma("journal_mode = DELETE");
    const check = db.pragma("integrity_check", { simple: true });
    const tables = tableCounts(db);
    const recordings = (db.prepare("SELECT recording_path AS path FROM calls WHERE recording_path IS NOT NULL").all() as { path: string }[]).map((row) => row.path);
    db.close();
    if (check !== "ok") throw new ConfigError(`the database copy failed its integrity check: ${check}`);

    // The recordings the database copy names: each was closed before its call's row named it, so none
    // is still being written (a live call's WAV is not, and need not be, in the backup).
    const entries: { path: string; source: string }[] = [{ path: DATABASE, source: copy }];
    for (const stored of recordings) {
      for (const path of [stored, stored.replace(/\.wav$/, ".mp3")]) {
        // Where the files are: --files-dir when the instance keeps them there (files/file-store.ts).
        const source = recordingFile(ctx.config.filesDir || root, path);
        if (source && existsSync(source)) entries.push({ path, source });
      }
    }
    if (options.includeKey) entries.push({ path: KEY, source: join(root, KEY) });
    const files = entries.map(({ path, source }, i) => {
      if (i % 200 === 0 && i) progress(`backup: checksummed ${i} of ${entries.length} files`);
      return { path, size: statSync(source).size, sha256: sha256File(source) };
    });
    const manifest: BackupManifest = { format: "parley-backup/1", version: VERSION, created_at: new Date().toISOString(), includes_key: options.includeKey, files, tables };

    const tar = new TarWriter(out);
    try {
      tar.add(MANIFEST, new TextEncoder().encode(JSON.stringify(manifest, null, 2)));
      entries.forEach(({ path, source }, i) => {
        tar.addFile(path, source, files[i].size);
        if (i % 200 === 0 && i) progress(`backup: archived ${i} of ${entries.length} files`);
      });
    } finally {
      tar.close();
    }
    return manifest;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** A name from the archive as a path inside `root`, or an error for anything that would leave it. */
function inside(root: string, name: string): string {
  const path = resolve(root, normalize(name));
  if (isAbsolute(name) || !path.startsWith(resolve(root) + sep)) throw new ConfigError(`the archive names a path outside the data dir: ${name}`);
  return path;
}

export function restoreBackup(archive: string, target: string, progress: Progress): BackupManifest {
  if (!existsSync(archive)) throw new ConfigError(`no archive at ${archive}`);
  if (existsSync(target) && readdirSync(target).length > 0) throw new ConfigError(`${target} is not empty: restore into a new or empty directory`);
  mkdirSync(target, { recursive: true, mode: 0o700 });
  let manifest: BackupManifest | null = null;
  const seen = new Set<string>();
  try {
    for (const entry of readTar(archive)) {
      if (!manifest) {
        if (entry.name !== MANIFEST) throw new ConfigError(`${archive} is not a Parley backup (no manifest first)`);
        manifest = JSON.parse(new TextDecoder().decode(entry.data)) as BackupManifest;
        if (manifest.format !== "parley-backup/1") throw new ConfigError(`unknown backup format ${manifest.format}`);
        continue;
      }
      const listed = manifest.files.find((file) => file.path === entry.name);
      if (!listed) throw new ConfigError(`the archive holds ${entry.name}, which its manifest does not list`);
      const sha256 = createHash("sha256").update(entry.data).digest("hex");
      if (sha256 !== listed.sha256) throw new ConfigError(`${entry.name} is damaged: its checksum does not match the manifest`);
      const path = inside(target, entry.name);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, entry.data, { mode: 0o600 });
      seen.add(entry.name);
      if (seen.size % 200 === 0) progress(`restore: ${seen.size} of ${manifest.files.length} files`);
    }
    if (!manifest) throw new ConfigError(`${archive} is empty`);
    const missing = manifest.files.filter((file) => !seen.has(file.path));
    if (missing.length) throw new ConfigError(`the archive lacks ${missing.length} file(s) its manifest lists, e.g. ${missing[0].path}`);
    const db = new Database(join(target, DATABASE));
    const counts = tableCounts(db);
    db.close();
    const differing = Object.keys({ ...manifest.tables, ...counts }).filter((table) => manifest!.tables[table] !== counts[table]);
    if (differing.length) throw new ConfigError(`restored rows differ from the manifest in ${differing.join(", ")}`);
    chmodSync(join(target, DATABASE), 0o600);
    return manifest;
  } catch (error) {
    rmSync(target, { recursive: true, force: true });
    throw error;
  }
}
