// Allow-context injected into the system prompt of its own session, and re-injected on compaction.
import { afterEach, test } from "node:test";
import assert from "node:assert/strict";
import { removeProjects, startPlugin } from "./support/harness.mjs";

afterEach(removeProjects);

test("context from an allow decision is injected for that session only", async () => {
  const p = await startPlugin();
  assert.deepEqual(await p.system("ses_1"), ["base prompt"]);
  await p.before("bash", { command: "fake:context" }, "ses_1");
  const sys = await p.system("ses_1");
  assert.equal(sys.length, 2);
  assert.equal(sys[0], "base prompt");
  assert.equal(sys[1], "Cupcake policy context (from the project's policies; follow it):\n- Use pnpm, not npm.\n- Never touch prod.");
  assert.deepEqual(await p.system("ses_other"), ["base prompt"]);
  assert.deepEqual(await p.system(undefined), ["base prompt"]);
});

test("repeated context is not duplicated", async () => {
  const p = await startPlugin();
  await p.before("bash", { command: "fake:context" }, "ses_1");
  await p.before("bash", { command: "fake:context" }, "ses_1");
  const block = (await p.system("ses_1"))[1];
  assert.equal(block.match(/Use pnpm/g).length, 1);
});

test("compaction carries the context so it survives", async () => {
  const p = await startPlugin();
  assert.deepEqual(await p.compacting("ses_1"), []);
  await p.before("bash", { command: "fake:context" }, "ses_1");
  const ctx = await p.compacting("ses_1");
  assert.equal(ctx.length, 1);
  assert.match(ctx[0], /Use pnpm, not npm\.\n- Never touch prod\./);
  // and the system prompt still has it after compaction
  assert.match((await p.system("ses_1"))[1], /Never touch prod/);
});

test("context from a denied call is not kept", async () => {
  const p = await startPlugin();
  await assert.rejects(p.before("bash", { command: "fake:deny" }, "ses_1"));
  assert.deepEqual(await p.system("ses_1"), ["base prompt"]);
});
