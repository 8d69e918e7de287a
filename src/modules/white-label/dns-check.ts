// Looking up a domain's verification TXT record, through the operator's DNS servers or the system's.
import { Resolver } from "node:dns/promises";

export type TxtLookup =
  | { found: "records"; values: string[] }
  | { found: "nothing" }
  | { found: "error"; code: string };

/** Codes meaning the name or its TXT records do not exist (an answer, not a failure). */
const ABSENT = new Set(["ENOTFOUND", "ENODATA", "NOTFOUND", "NODATA"]);

/** The TXT values at `name` (each record's strings joined, as RFC 7208 reads them). */
export async function lookupTxt(servers: readonly string[], name: string): Promise<TxtLookup> {
  const resolver = new Resolver({ timeout: 2000, tries: 2 });
  if (servers.length) resolver.setServers([...servers]);
  try {
    const records = await resolver.resolveTxt(name);
    return records.length ? { found: "records", values: records.map((chunks) => chunks.join("")) } : { found: "nothing" };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "EFAIL";
    return ABSENT.has(code) ? { found: "nothing" } : { found: "error", code };
  }
}
