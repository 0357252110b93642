#!/usr/bin/env node
// FAKE cupcake for the plugin's unit tests: a stand-in for `cupcake eval --harness opencode` whose answer is
// chosen by the event. For bash calls the command selects the behaviour ("fake:<behaviour>"); PostToolUse
// events are judged on the tool output. Every event received is appended to $FAKE_CUPCAKE_LOG (JSON lines).
import { appendFileSync, writeFileSync } from "node:fs";
import { spawn } from "node:child_process";

const argv = process.argv.slice(2);
if (argv[0] === "--version") {
  if (process.env.FAKE_CUPCAKE_VERSION_FAIL) {
    process.stderr.write("fake: version broken\n");
    process.exit(4);
  }
  process.stdout.write("cupcake-fake 9.9.9\n");
  process.exit(0);
}
if (argv[0] === "audit" && argv[1] === "session-event") {
  // Session lifecycle (src/lifecycle.ts): logged next to the eval log, as <log>.lifecycle.
  const parts = [];
  for await (const chunk of process.stdin) parts.push(chunk);
  if (process.env.FAKE_CUPCAKE_LOG) {
    const lifecycle = JSON.parse(Buffer.concat(parts).toString("utf8"));
    appendFileSync(`${process.env.FAKE_CUPCAKE_LOG}.lifecycle`, `${JSON.stringify({ argv, lifecycle })}\n`);
  }
  process.stdout.write('{"recorded":true}\n');
  process.exit(0);
}
if (argv[0] === "serve") {
  await import("./fake-serve.mjs");
} else if (argv[0] !== "eval" || argv[1] !== "--harness" || argv[2] !== "opencode") {
  process.stderr.write(`fake: unexpected argv ${JSON.stringify(argv)}\n`);
  process.exit(64);
} else {
  await evalOnce();
}

async function evalOnce() {
const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const raw = Buffer.concat(chunks).toString("utf8");
const event = JSON.parse(raw);
if (process.env.FAKE_CUPCAKE_LOG) {
  appendFileSync(process.env.FAKE_CUPCAKE_LOG, `${JSON.stringify({ argv, cwd: process.cwd(), event })}\n`);
}

const say = (obj) => process.stdout.write(`${JSON.stringify(obj)}\n`);

if (event.hook_event_name === "PostToolUse") {
  const out = String(event.result?.output ?? "");
  if (out.includes("SECRET")) say({ decision: "block", reason: "tool output contains a secret", rule_ids: ["post.secrets"] });
  else if (out.includes("REVIEW")) say({ decision: "ask", reason: "output needs review" });
  else if (out.includes("HINT")) say({ decision: "allow", context: ["post-run hint: keep outputs short"] });
  else if (out.includes("CRASH")) process.exit(3);
  else say({ decision: "allow" });
  process.exit(0);
}

const command = typeof event.args?.command === "string" ? event.args.command : "";
const behaviour = command.startsWith("fake:") ? command.slice(5).split(" ")[0] : event.tool === "edit" ? "edit" : "allow";

switch (behaviour) {
  case "allow":
    say({ decision: "allow" });
    break;
  case "deny":
    say({ decision: "deny", reason: "destructive command", rule_ids: ["opencode.no_rm_rf"] });
    break;
  case "block":
    say({ decision: "block", reason: "session halted by policy", rule_ids: ["a.one", "b.two"] });
    break;
  case "ask":
    say({ decision: "ask", reason: "force push needs approval", rule_ids: ["git.force_push"] });
    break;
  case "edit": {
    const path = String(event.args?.filePath ?? "");
    if (path.includes(".env")) say({ decision: "deny", reason: `${path} is protected`, rule_ids: ["protected_paths"] });
    else if (path.includes("approval")) say({ decision: "ask", reason: `${path} needs approval`, rule_ids: ["files.ask"] });
    else say({ decision: "allow" });
    break;
  }
  case "rewrite":
    say({ decision: "allow", updated_args: { command: "echo rewritten", timeout: 1000 } });
    break;
  case "allow-sandboxed":
    say({ decision: "allow", updated_args: { command: `bwrap --args 3 -- /bin/bash -c '${command}' 3< /state/p.args` } });
    break;
  case "ask-sandboxed-native":
    say({ decision: "ask", reason: "needs approval", rule_ids: ["e.ask"],
      updated_args: { command: `bwrap --args 3 -- /bin/bash -c '${command}' 3< /state/p.args` } });
    break;
  case "ask-sandboxed":
    say({ decision: "ask", reason: "needs approval", updated_args: { command: "bwrap -- sandboxed" } });
    break;
  case "context":
    say({ decision: "allow", context: ["Use pnpm, not npm.", "Never touch prod."] });
    break;
  case "sleep": {
    // Leaves two grandchildren: one in its process group, one in a session of its own (as cupcake's shell
    // signals are), so the test can check that a timeout kills everything cupcake started.
    const grandchild = spawn("sleep", ["60"], { stdio: "ignore" });
    const ownSession = spawn("sleep", ["60"], { stdio: "ignore", detached: true });
    if (process.env.FAKE_CUPCAKE_PIDS) {
      writeFileSync(process.env.FAKE_CUPCAKE_PIDS, `${process.pid} ${grandchild.pid} ${ownSession.pid}`);
    }
    setTimeout(() => say({ decision: "allow" }), 60_000);
    break;
  }
  case "garbage":
    process.stdout.write("this is not json\n");
    break;
  case "empty":
    break;
  case "emptyobj":
    say({});
    break;
  case "unknown":
    say({ decision: "maybe" });
    break;
  case "badfield":
    say({ decision: "allow", context: "not-a-list" });
    break;
  case "exit3":
    process.stderr.write("fake: internal failure\n");
    process.exit(3);
    break;
  case "engine-error":
    say({ decision: "deny", reason: "cupcake: cannot compile .cupcake/policies/x.rego:3:7: unexpected token" });
    process.exit(2);
    break;
  case "strict-deny":
    say({ decision: "deny", reason: "strict mode denial", rule_ids: ["s.r"] });
    process.exit(1);
    break;
  case "exit1-allow":
    say({ decision: "allow" });
    process.exit(1);
    break;
  // Serve-mode failures (fake-serve.mjs): what the one-shot spawn that replaces the failed server answers.
  case "crash":
  case "hang":
  case "garbage-line":
    say({ decision: "deny", reason: `answered by a spawn after "${behaviour}"`, rule_ids: ["fallback"] });
    break;
  case "crash-both":
    process.exit(3);
    break;
  default:
    process.stderr.write(`fake: unknown behaviour ${behaviour}\n`);
    process.exit(65);
}
}
