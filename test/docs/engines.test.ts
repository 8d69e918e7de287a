// README: on the Node that `engines` names, a fresh install prints no EBADENGINE warning. npm warns
// for any package in the lock file whose own `engines.node` the running Node does not satisfy.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");
const json = (file: string) => JSON.parse(readFileSync(join(ROOT, file), "utf8"));

describe("supported Node", () => {
  test("the oldest Node that package.json allows satisfies every engines.node of the lock file", () => {
    const floor = /^>=\s*(\d+(?:\.\d+){0,2})$/.exec(json("package.json").engines.node)?.[1];
    expect(floor).toBeDefined();
    const version = floor!.split(".").concat(["0", "0"]).slice(0, 3).join(".");
    const packages = json("package-lock.json").packages as Record<string, { engines?: { node?: string } | string[] }>;
    const refused = Object.entries(packages)
      .map(([path, entry]) => [path || "(root)", Array.isArray(entry.engines) ? undefined : entry.engines?.node] as const)
      .filter(([, range]) => range !== undefined && !Bun.semver.satisfies(version, range))
      .map(([path, range]) => `${path} wants node ${range}`);
    expect(refused).toEqual([]);
  });

  test("the README names the same floor", () => {
    const floor = json("package.json").engines.node.replace(">=", "");
    expect(readFileSync(join(ROOT, "README.md"), "utf8")).toContain(`Node.js (${floor} or newer, as \`engines\` says)`);
  });
});

// npm 11 skips a dependency's install script unless `allowScripts` names it, and lists every skipped one
// after each install: each must have been decided, so a new dependency with a script is a conscious choice.
describe("install scripts", () => {
  test("every package of the lock file with an install script has an allowScripts decision", () => {
    const decided = json("package.json").allowScripts as Record<string, boolean>;
    const packages = json("package-lock.json").packages as Record<string, { hasInstallScript?: boolean }>;
    const undecided = Object.entries(packages)
      .filter(([, entry]) => entry.hasInstallScript)
      .map(([path]) => path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length))
      .filter((name) => !(name in decided));
    expect(undecided).toEqual([]);
  });
});
