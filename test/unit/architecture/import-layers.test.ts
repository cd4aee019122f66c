/**
 * The tree's folders import only downward and no file imports itself back through others
 * (scripts/lib/import-layers.ts; `npm run lint` runs the same check).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkImports, describeProblems } from "../../../scripts/lib/import-layers";

const scratch = mkdtempSync(join(tmpdir(), "chatd-layers-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(scratch, "t-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe("import layers", () => {
  it("hold for this repository: no import climbs a layer, every file has one, no cycle", () => {
    const check = checkImports(process.cwd());
    expect(describeProblems(check)).toEqual([]);
    expect(check.files).toBeGreaterThan(200);
  });

  it("catch an import that climbs from a lower folder to a higher one", () => {
    const root = tree({
      "src/chatstate/states.ts": `import { ChatStore } from "../chats/store";\nexport const x = ChatStore;\n`,
      "src/chats/store.ts": `import type { S } from "../chatstate/states";\nexport class ChatStore {}\n`,
    });
    expect(checkImports(root, ["src"]).climbs).toEqual([{ from: "src/chatstate/states.ts", to: "src/chats/store.ts" }]);
  });

  it("catch a cycle inside one folder, type-only imports included, and a file in no folder of the list", () => {
    const root = tree({
      "src/chats/a.ts": `import type { B } from "./b";\nexport type A = B;\n`,
      "src/chats/b.ts": `export { a } from "./c";\nexport type B = 1;\n`,
      "src/chats/c.ts": `import type { A } from "./a";\nexport const a: A | undefined = undefined;\n`,
      "src/nowhere/d.ts": `export const d = 1;\n`,
    });
    const check = checkImports(root, ["src"]);
    expect(check.cycles).toEqual([["src/chats/a.ts", "src/chats/b.ts", "src/chats/c.ts"]]);
    expect(check.unplaced).toEqual(["src/nowhere/d.ts"]);
    expect(check.climbs).toEqual([]);
  });

  it("catch a cycle in a folder outside the layering (client, web, scripts), whose files need no layer", () => {
    const root = tree({
      "src/chats/a.ts": `export const a = 1;\n`,
      "client/src/client.ts": `import { Stream } from "./stream";\nexport class Client { s = Stream; }\n`,
      "client/src/stream.ts": `import type { Client } from "./client";\nexport class Stream { c?: Client; }\n`,
    });
    const check = checkImports(root, ["src"], ["client/src"]);
    expect(check.cycles).toEqual([["client/src/client.ts", "client/src/stream.ts"]]);
    expect(check.unplaced).toEqual([]);
  });
});
