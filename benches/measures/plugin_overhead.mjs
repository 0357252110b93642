// Plugin overhead, driven by benches/measures/plugin.py:
//   node plugin_overhead.mjs BUNDLE CUPCAKE PROJECT ROUNDS COMMAND
// Loads the built OpenCode plugin (BUNDLE) with a fake OpenCode context (as plugin-ts/test does),
// then alternates, ROUNDS times: (a) OpenCode calling the plugin's tool.execute.before hook for a bash
// call, which spawns the real `cupcake eval --harness opencode`; (b) the same event piped by this process
// straight to a spawned `cupcake eval --harness opencode` the same way (detached, piped stdio).
// Prints one JSON line: {"hook_ms": [...], "direct_ms": [...], "decision": ...}.
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [bundle, cupcake, project, roundsText, command] = process.argv.slice(2);
const rounds = Number(roundsText);

mkdirSync(join(project, ".cupcake"), { recursive: true });
writeFileSync(join(project, ".cupcake", "opencode.json"), JSON.stringify({ cupcakePath: cupcake, timeoutMs: 120000, showToasts: false }));

const mod = await import(pathToFileURL(bundle).href);
const plugin = Object.values(mod).find((v) => typeof v === "function");
const client = { app: { log: async () => {} }, tui: { showToast: async () => {} } };
const hooks = await plugin({ client, directory: project, worktree: project, project: { id: "bench" } });

function direct(event) {
  return new Promise((resolve, reject) => {
    const child = spawn(cupcake, ["eval", "--harness", "opencode"], { cwd: project, detached: true, stdio: ["pipe", "pipe", "pipe"] });
    const out = [];
    child.stdout.on("data", (c) => out.push(c));
    child.stderr.resume();
    child.on("error", reject);
    child.on("close", (code) => {
      const text = Buffer.concat(out).toString("utf8");
      if (code !== 0) reject(new Error(`cupcake exited ${code}: ${text}`));
      else resolve(JSON.parse(text));
    });
    child.stdin.end(JSON.stringify(event));
  });
}

let call = 0;
async function viaHook() {
  const args = { command, workdir: project };
  await hooks["tool.execute.before"]({ tool: "bash", sessionID: "ses_bench", callID: `call_${++call}` }, { args });
}
async function viaDirect() {
  const event = { hook_event_name: "PreToolUse", session_id: "ses_bench", cwd: project, tool: "bash", args: { command, workdir: project }, call_id: `call_${++call}` };
  return direct(event);
}

const decision = await viaDirect(); // warm-up both paths (and let the plugin's load-time self-test finish)
await viaHook();
await new Promise((r) => setTimeout(r, 200));
const hook = [];
const straight = [];
for (let i = 0; i < rounds; i++) {
  const pair = i % 2 === 0 ? [["hook", viaHook], ["direct", viaDirect]] : [["direct", viaDirect], ["hook", viaHook]];
  for (const [name, fn] of pair) {
    const t0 = process.hrtime.bigint();
    await fn();
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    (name === "hook" ? hook : straight).push(ms);
  }
}
process.stdout.write(`${JSON.stringify({ hook_ms: hook, direct_ms: straight, decision })}\n`);
