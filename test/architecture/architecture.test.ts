// Dependencies run one way (../shared/STYLE.md): no import cycles, type-only imports included, and no
// file imports a layer above its own. Read from the source, so it runs in the default suite and CI.
import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cycles, importGraph } from "./import-graph.ts";
import { LAYERS, layerOf } from "./layers.ts";

const graph = importGraph(join(import.meta.dir, "../../src"));

describe("src/ imports", () => {
  test("are read: every file is found and every relative import resolves", () => {
    expect(graph.size).toBeGreaterThan(200);
    const unresolved = [...graph].flatMap(([file, targets]) =>
      targets.filter((target) => !graph.has(target) && !/(node_modules|package\.json)/.test(target)).map((target) => `${file} -> ${target}`),
    );
    expect(unresolved).toEqual([]);
  });

  test("form no cycle", () => {
    expect(cycles(graph)).toEqual([]);
  });

  test("never reach a layer above their own", () => {
    const upward: string[] = [];
    for (const [file, targets] of graph) {
      for (const target of targets.filter((t) => graph.has(t))) {
        if (layerOf(target) > layerOf(file)) upward.push(`${file} (${LAYERS[layerOf(file)][0]}) -> ${target} (${LAYERS[layerOf(target)][0]})`);
      }
    }
    expect(upward).toEqual([]);
  });

  test("the client libraries import only themselves (they are published alone)", () => {
    const outside = [...graph].filter(([file]) => file.startsWith("sdk/")).flatMap(([file, targets]) => targets.filter((t) => !t.startsWith("sdk/")).map((t) => `${file} -> ${t}`));
    expect(outside).toEqual([]);
  });

  test("the dashboard imports only itself and the TypeScript client library (it talks to the API as any user would)", () => {
    const outside = [...graph].filter(([file]) => file.startsWith("dashboard/")).flatMap(([file, targets]) => targets.filter((t) => !t.startsWith("dashboard/") && !t.startsWith("sdk/ts/")).map((t) => `${file} -> ${t}`));
    expect(graph.has("dashboard/main.tsx")).toBe(true);
    expect(outside).toEqual([]);
  });
});

/**
 * A feature reaches another feature's schemas (models.ts) freely, its services only through what the
 * composition root hands it (its ports, installed by src/server.ts). The direct uses that predated the
 * rule are all gone; the list stays empty (a new one fails).
 */
const CROSS_FEATURE_DEBT: string[] = [];

describe("features", () => {
  test("reach other features' services only through the composition root (no new direct use)", () => {
    const feature = (file: string) => /^modules\/([^/]+)\/(.*)$/.exec(file);
    const direct = new Set<string>();
    for (const [file, targets] of graph) {
      for (const target of targets) {
        const from = feature(file);
        const to = feature(target);
        if (from && to && from[1] !== to[1] && to[2] !== "models.ts") direct.add(`${from[1]} -> ${to[1]}/${to[2]}`);
      }
    }
    expect([...direct].sort()).toEqual([...CROSS_FEATURE_DEBT].sort());
  });
});

describe("the checks themselves", () => {
  test("find a cycle through a type-only import and a self-import", () => {
    const found = cycles(new Map([["a.ts", ["b.ts"]], ["b.ts", ["c.ts"]], ["c.ts", ["a.ts"]], ["d.ts", ["d.ts"]], ["e.ts", []]]));
    expect(found).toEqual([["a.ts", "b.ts", "c.ts"], ["d.ts"]]);
  });

  test("read import type, export from, side-effect and dynamic imports as edges, and skip comments", () => {
    const root = mkdtempSync(join(tmpdir(), "parley-graph-"));
    try {
      mkdirSync(join(root, "sub"));
      const files: Record<string, string> = {
        "a.ts": `import type { B } from "./sub/b.ts";\nexport * from "./c.ts";\nimport "./d.ts";\nconst e = () => import("./e.ts");\n// import { x } from "./f.ts";\n`,
        "sub/b.ts": `export {\n  type B,\n} from "../c.ts";`,
        "c.ts": "", "d.ts": "", "e.ts": "", "f.ts": "",
      };
      for (const [name, text] of Object.entries(files)) writeFileSync(join(root, name), text);
      const read = importGraph(root);
      expect(read.get("a.ts")!.sort()).toEqual(["c.ts", "d.ts", "e.ts", "sub/b.ts"]);
      expect(read.get("sub/b.ts")).toEqual(["c.ts"]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
