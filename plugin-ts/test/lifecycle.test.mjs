// Session lifecycle events reach `cupcake audit session-event` (fire-and-forget), so session history knows
// where sessions start and when they were compacted.
import { afterEach, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { removeProjects, startPlugin, until } from "./support/harness.mjs";

afterEach(removeProjects);

const lifecycle = (p) => {
  const f = `${p.project.log}.lifecycle`;
  return existsSync(f) ? readFileSync(f, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l)) : [];
};

test("session.created is sent with the parent of a subagent's session", async () => {
  const p = await startPlugin();
  await p.hooks.event({ event: { id: "e1", type: "session.created", properties: { info: { id: "ses_child", parentID: "ses_parent" } } } });
  await until(() => lifecycle(p).length === 1);
  const [rec] = lifecycle(p);
  assert.deepEqual(rec.argv, ["audit", "session-event", "--harness", "opencode"]);
  assert.deepEqual(rec.lifecycle, { session_id: "ses_child", event: "created", cwd: p.project.dir, parent_id: "ses_parent" });
});

test("compaction is sent, and the compaction context still works", async () => {
  const p = await startPlugin();
  assert.deepEqual(await p.compacting("ses_1"), []);
  await until(() => lifecycle(p).length === 1);
  assert.deepEqual(lifecycle(p)[0].lifecycle, { session_id: "ses_1", event: "compacted", cwd: p.project.dir });
});

test("other bus events and malformed session events send nothing and never throw", async () => {
  const p = await startPlugin();
  for (const event of [
    { id: "e", type: "message.part.updated", properties: { part: {} } },
    { id: "e", type: "session.idle", properties: { sessionID: "ses_1" } },
    { id: "e", type: "session.created", properties: { info: { id: 42 } } },
    { id: "e", type: "session.created" },
  ]) {
    await p.hooks.event({ event });
  }
  await p.before("bash", { command: "echo hi" });
  await new Promise((r) => setTimeout(r, 300));
  assert.deepEqual(lifecycle(p), []);
  assert.equal(p.project.events().length, 1); // only the tool call went to `cupcake eval`
});
