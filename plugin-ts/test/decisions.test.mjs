// PreToolUse / PostToolUse decisions against the fake cupcake: every decision kind, arg rewrite in place,
// the event sent on stdin, the messages the model reads.
import { afterEach, test } from "node:test";
import assert from "node:assert/strict";
import { removeProjects, startPlugin } from "./support/harness.mjs";

afterEach(removeProjects);

test("allow lets the call through untouched and sends the contract event", async () => {
  const p = await startPlugin();
  const args = { command: "fake:allow", workdir: "/tmp" };
  const out = await p.before("bash", args, "ses_A");
  assert.equal(out.args, args);
  assert.deepEqual(args, { command: "fake:allow", workdir: "/tmp" });
  const [{ argv, cwd, event }] = p.project.events();
  assert.deepEqual(argv, ["eval", "--harness", "opencode"]);
  assert.equal(cwd, p.project.dir);
  assert.deepEqual(event, {
    hook_event_name: "PreToolUse",
    session_id: "ses_A",
    cwd: p.project.dir,
    tool: "bash",
    args: { command: "fake:allow", workdir: "/tmp" },
    call_id: "call_1",
  });
  assert.equal(p.toasts.length, 0);
});

test("agent and message id from chat.message are forwarded", async () => {
  const p = await startPlugin();
  await p.hooks["chat.message"]({ sessionID: "ses_B", agent: "build", messageID: "msg_1" }, { message: {}, parts: [] });
  await p.before("bash", { command: "fake:allow" }, "ses_B");
  const { event } = p.project.events()[0];
  assert.equal(event.agent, "build");
  assert.equal(event.message_id, "msg_1");
});

test("chat.params fills in the agent when chat.message carried none", async () => {
  const p = await startPlugin();
  await p.hooks["chat.message"]({ sessionID: "ses_C" }, { message: {}, parts: [] });
  await p.hooks["chat.params"]({ sessionID: "ses_C", agent: "plan", message: { id: "msg_9" } }, {});
  await p.before("bash", { command: "fake:allow" }, "ses_C");
  const { event } = p.project.events()[0];
  assert.equal(event.agent, "plan");
  assert.equal(event.message_id, "msg_9");
});

const blocking = [
  {
    name: "deny",
    command: "fake:deny rm -rf /",
    expect: [/^Blocked by cupcake policy \[rule opencode\.no_rm_rf\]/, /bash call \(command: "fake:deny rm -rf \/"\) was NOT executed/, /Reason: destructive command/, /What to do instead:/],
    toast: "error",
  },
  {
    name: "block",
    command: "fake:block",
    expect: [/\[rules a\.one, b\.two\]/, /Reason: session halted by policy/],
    toast: "error",
  },
  {
    name: "ask (askMode deny, the default)",
    command: "fake:ask",
    expect: [/^Approval required by cupcake policy \[rule git\.force_push\]/, /Reason: force push needs approval/, /allow-list/, /disable rule git\.force_push and re-run/, /"askMode": "allow"/],
    toast: "warning",
  },
];

for (const c of blocking) {
  test(`${c.name} throws a message the model can act on`, async () => {
    const p = await startPlugin();
    await assert.rejects(p.before("bash", { command: c.command }), (err) => {
      assert.ok(err instanceof Error);
      for (const re of c.expect) assert.match(err.message, re);
      return true;
    });
    assert.equal(p.toasts.length, 1);
    assert.equal(p.toasts[0].variant, c.toast);
  });
}

test("ask with askMode allow lets the call run and warns", async () => {
  const p = await startPlugin({ askMode: "allow" });
  const out = await p.before("bash", { command: "fake:ask" });
  assert.equal(out.args.command, "fake:ask");
  assert.ok(p.logs.some((l) => l.level === "warn" && /askMode "allow"/.test(l.message)));
  assert.equal(p.toasts[0].variant, "warning");
});

test("updated_args patch the args object IN PLACE: named keys replaced or added, the others kept", async () => {
  const p = await startPlugin();
  const args = { command: "fake:rewrite", workdir: "/somewhere", timeout: 5 };
  const out = await p.before("bash", args);
  assert.equal(out.args, args, "same object: OpenCode keeps its own reference");
  assert.deepEqual(args, { command: "echo rewritten", workdir: "/somewhere", timeout: 1000 });
});

test("an ask carrying the sandboxed command: approving it (askMode allow) runs the sandboxed command", async () => {
  const p = await startPlugin({ askMode: "allow" });
  const args = { command: "fake:ask-sandboxed", workdir: "/w" };
  const out = await p.before("bash", args);
  assert.equal(out.args, args);
  assert.deepEqual(args, { command: "bwrap -- sandboxed", workdir: "/w" });
  const denied = await startPlugin();
  const kept = { command: "fake:ask-sandboxed" };
  await assert.rejects(denied.before("bash", kept), /Approval required/);
  assert.deepEqual(kept, { command: "fake:ask-sandboxed" }, "askMode deny: nothing runs, nothing is rewritten");
});

test("protected edit is denied, other edits allowed", async () => {
  const p = await startPlugin();
  await assert.rejects(p.before("edit", { filePath: "/p/.env", oldString: "a", newString: "b" }), /\.env is protected[\s\S]*|protected_paths/);
  await p.before("edit", { filePath: "/p/src/a.ts", oldString: "a", newString: "b" });
});

test("PostToolUse block/ask feedback is appended to the output the model sees", async () => {
  const p = await startPlugin();
  const blocked = await p.after("bash", { command: "cat x" }, { output: "key=SECRET" });
  assert.match(blocked.output, /^key=SECRET\n\n\[cupcake\] Policy feedback \[rule post\.secrets\]: the policy objected to/);
  assert.match(blocked.output, /Reason: tool output contains a secret/);
  const asked = await p.after("bash", { command: "cat y" }, { output: "REVIEW me" });
  assert.match(asked.output, /flagged for review[\s\S]*Reason: output needs review/);
  const plain = await p.after("bash", { command: "ls" }, { output: "a\nb\n" });
  assert.equal(plain.output, "a\nb\n");
  const posts = p.project.events().map((e) => e.event);
  assert.equal(posts[0].hook_event_name, "PostToolUse");
  assert.deepEqual(posts[0].args, { command: "cat x" });
  assert.deepEqual(posts[0].result, { title: "t", output: "key=SECRET", metadata: { exit: 0 }, success: true });
});

test("PostToolUse allow context is appended and remembered for the session", async () => {
  const p = await startPlugin();
  const out = await p.after("bash", { command: "x" }, { output: "HINT" }, "ses_P");
  assert.match(out.output, /^HINT\n\n\[cupcake\] Cupcake policy context[^\n]*\n- post-run hint: keep outputs short$/);
  assert.match((await p.system("ses_P")).at(-1), /post-run hint/);
});

test("toasts are skipped when the client has no TUI API, and with showToasts false", async () => {
  const bare = await startPlugin({}, { withApis: false });
  await assert.rejects(bare.before("bash", { command: "fake:deny" }), /Blocked by cupcake policy/);
  const quiet = await startPlugin({ showToasts: false });
  await assert.rejects(quiet.before("bash", { command: "fake:deny" }), /Blocked/);
  assert.equal(quiet.toasts.length, 0);
});

test("the plugin throws a plain Error, never leaks a rejected non-Error", async () => {
  const p = await startPlugin();
  const err = await p.before("bash", { command: "fake:deny" }).catch((e) => e);
  assert.equal(Object.getPrototypeOf(err), Error.prototype);
});
