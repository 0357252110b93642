// The shipped bundle: exactly one export (OpenCode rejects a plugin module with any other export),
// self-contained ESM that only imports node builtins, and the plugin shape OpenCode expects.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { BUNDLE, loadBundle } from "./support/harness.mjs";

test("the bundle has a single export, the plugin function", async () => {
  const mod = await loadBundle();
  assert.deepEqual(Object.keys(mod), ["CupcakePlugin"]);
  assert.equal(typeof mod.CupcakePlugin, "function");
  const text = readFileSync(BUNDLE, "utf8");
  assert.equal(text.match(/^export\s/gm).length, 1);
  assert.match(text, /^export \{\n\s+CupcakePlugin\n\};\n$/m);
});

test("the bundle imports only node builtins", () => {
  const text = readFileSync(BUNDLE, "utf8");
  const specifiers = [...text.matchAll(/^import .* from "([^"]+)";$/gm)].map((m) => m[1]);
  assert.ok(specifiers.length > 0);
  for (const s of specifiers) assert.match(s, /^node:/, `unexpected import ${s}`);
  assert.doesNotMatch(text, /\brequire\(/);
});

test("the plugin returns the hooks OpenCode fires", async () => {
  const { CupcakePlugin } = await loadBundle();
  const hooks = await CupcakePlugin({ client: {}, directory: "/nonexistent-cupcake-dir", worktree: "/" });
  assert.deepEqual(Object.keys(hooks).sort(), [
    "chat.message",
    "chat.params",
    "event",
    "experimental.chat.system.transform",
    "experimental.session.compacting",
    "tool.execute.after",
    "tool.execute.before",
  ]);
  for (const fn of Object.values(hooks)) assert.equal(typeof fn, "function");
});
