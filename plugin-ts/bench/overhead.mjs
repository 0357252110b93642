#!/usr/bin/env node
// Plugin overhead per tool call: the committed bundle's `tool.execute.before` / `tool.execute.after`, called with a
// fake OpenCode context, against the bare `cupcake eval --harness opencode` process it spawns.
//
// Each sample sends the same event three ways, interleaved (the order rotates so drift on a loaded machine
// favours none): (a) through the hook; (b) to a child spawned plainly by this script (spawn → stdin → stdout →
// exit) = the process time; (c) the same with `detached: true` (a new session / process group).
// Reported (medians over samples, paired differences):
//   overhead = (a) − (b): what the plugin adds over the process time (the acceptance number, ≤ 5 ms);
//   new session = (c) − (b): what spawning cupcake as a session leader would add — the plugin does that only off
//   Linux (on Linux it kills the process tree on timeout instead, see src/runner.ts).
// --json also gives session_median_ms (the new-session cost the plugin actually pays: 0 on Linux) and
// plugin_work_median_ms = overhead − session.
// Engines:
//   - "constant": cupcakePath is a tiny sh script printing one fixed decision (steady, small process time);
//   - "engine": the real `cupcake` in a project made by `cupcake init --harness opencode` (warmed first); its
//     process time is hundreds of ms to seconds and noisy on a loaded machine, so its differences are noisier.
//
//   node bench/overhead.mjs [--samples N] [--engine-samples N] [--cupcake PATH] [--project DIR] [--json]
//   BUN_BE_BUN=1 node_modules/.bin/opencode bench/overhead.mjs …   (the same under OpenCode's embedded Bun)
// Defaults: 200 constant samples, 10 engine samples (0 skips it), cupcake = ../.venv/bin/cupcake, a temp project.
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(here, "..", "..");
const BUNDLE = join(REPO, "cupcake_py", "harness", "opencode", "plugin", "cupcake.js");

function parseArgs(argv) {
  const opts = { samples: 200, engineSamples: 10, cupcake: join(REPO, ".venv", "bin", "cupcake"), project: null, json: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--samples") opts.samples = Number(argv[++i]);
    else if (a === "--engine-samples") opts.engineSamples = Number(argv[++i]);
    else if (a === "--cupcake") opts.cupcake = resolve(argv[++i]);
    else if (a === "--project") opts.project = resolve(argv[++i]);
    else if (a === "--json") opts.json = true;
    else throw new Error(`unknown argument ${a}`);
  }
  return opts;
}

/** Spawn `command args`, write `stdin`, resolve when it exits; rejects on a non-zero exit. */
function bare(command, args, cwd, stdin, detached = false) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { cwd, detached, stdio: ["pipe", "pipe", "pipe"] });
    const out = [];
    const err = [];
    child.stdout.on("data", (c) => out.push(c));
    child.stderr.on("data", (c) => err.push(c));
    child.on("error", reject);
    child.on("close", (code) => {
      const stdout = Buffer.concat(out).toString("utf8");
      if (code === 0) resolvePromise(stdout);
      else reject(new Error(`${command} exited ${code}: ${stdout}${Buffer.concat(err).toString("utf8").slice(-2000)}`));
    });
    child.stdin.on("error", () => {});
    child.stdin.end(stdin);
  });
}

/**
 * Configure the plugin the way a user does: `<project>/.cupcake/opencode.json` (the only place that may set
 * cupcakePath or loosen timeoutMs; opencode.json plugin options may only tighten it). A file already there (a
 * --project the user passed) is restored by `restore()`.
 */
function writePluginConfig(directory, config) {
  const file = join(directory, ".cupcake", "opencode.json");
  const saved = existsSync(file) ? readFileSync(file) : null;
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(config));
  return () => (saved === null ? rmSync(file, { force: true }) : writeFileSync(file, saved));
}

async function startPlugin(directory) {
  const { CupcakePlugin } = await import(pathToFileURL(BUNDLE).href);
  const logs = [];
  const client = { app: { log: async ({ body }) => logs.push(body) }, tui: { showToast: async () => {} } };
  const hooks = await CupcakePlugin({ client, directory, worktree: directory, project: { id: "bench" } }, undefined);
  const problems = logs.filter((l) => /^config: /.test(l.message));
  if (problems.length > 0) throw new Error(`plugin config problems: ${problems.map((l) => l.message).join("; ")}`);
  const t0 = Date.now();
  while (!logs.some((l) => /self-test (ok|failed)/.test(l.message))) {
    if (Date.now() - t0 > 120_000) throw new Error("plugin self-test did not finish");
    await new Promise((r) => setTimeout(r, 10));
  }
  const failed = logs.find((l) => /self-test failed/.test(l.message));
  if (failed) throw new Error(failed.message);
  return hooks;
}

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * (s.length - 1) + 0.5))];
};

/** Interleave hook, plain and detached runs of the same event; returns medians of times and paired differences. */
async function measure(name, n, cupcake, directory, call) {
  const hookMs = [];
  const plainMs = [];
  const detachedMs = [];
  let seq = 0;
  const timed = async (into, fn) => {
    const t = performance.now();
    await fn();
    into.push(performance.now() - t);
  };
  for (let i = 0; i < n; i++) {
    const { hook, event } = call(`call_${++seq}`);
    const stdin = `${JSON.stringify(event)}\n`;
    const args = ["eval", "--harness", "opencode"];
    const runs = [
      () => timed(hookMs, hook),
      () => timed(plainMs, () => bare(cupcake, args, directory, stdin, false)),
      () => timed(detachedMs, () => bare(cupcake, args, directory, stdin, true)),
    ];
    for (let k = 0; k < 3; k++) await runs[(i + k) % 3]();
  }
  const diff = (xs, ys) => xs.map((x, i) => x - ys[i]);
  const overhead = quantile(diff(hookMs, plainMs), 0.5);
  const newSession = quantile(diff(detachedMs, plainMs), 0.5);
  const session = process.platform === "linux" ? 0 : newSession;
  return {
    name,
    samples: n,
    process_median_ms: quantile(plainMs, 0.5),
    hook_median_ms: quantile(hookMs, 0.5),
    overhead_median_ms: overhead,
    overhead_p90_ms: quantile(diff(hookMs, plainMs), 0.9),
    new_session_median_ms: newSession,
    // overhead = session + plugin work: the session part is what the plugin pays for spawning cupcake as a session
    // leader, which it does only off Linux (runner.ts); on Linux it is 0 and all of the overhead is plugin work.
    session_median_ms: session,
    plugin_work_median_ms: overhead - session,
  };
}

function scenarios(directory) {
  const big = "x".repeat(256 * 1024);
  return [
    {
      name: "PreToolUse bash",
      call: (hooks, callID) => {
        const args = { command: "ls -la src", workdir: directory };
        const event = { hook_event_name: "PreToolUse", session_id: "ses_bench", cwd: directory, tool: "bash", args, call_id: callID };
        return { event, hook: () => hooks["tool.execute.before"]({ tool: "bash", sessionID: "ses_bench", callID }, { args: { ...args } }) };
      },
    },
    {
      name: "PostToolUse bash, 256 KiB output",
      call: (hooks, callID) => {
        const args = { command: "cat big.log" };
        const result = { title: "cat big.log", output: big, metadata: { exit: 0 }, success: true };
        const event = { hook_event_name: "PostToolUse", session_id: "ses_bench", cwd: directory, tool: "bash", args, call_id: callID, result };
        const output = { title: result.title, output: big, metadata: { exit: 0 } };
        return { event, hook: () => hooks["tool.execute.after"]({ tool: "bash", sessionID: "ses_bench", callID, args }, output) };
      },
    },
  ];
}

async function run(label, n, cupcake, directory) {
  const restore = writePluginConfig(directory, { cupcakePath: cupcake, timeoutMs: 120_000, showToasts: false });
  try {
    const hooks = await startPlugin(directory);
    const out = [];
    for (const s of scenarios(directory)) {
      out.push({ engine: label, ...(await measure(s.name, n, cupcake, directory, (id) => s.call(hooks, id))) });
    }
    return out;
  } finally {
    restore();
  }
}

function initProject(cupcake) {
  const dir = mkdtempSync(join(tmpdir(), "cupcake-bench-"));
  const init = spawnSync(cupcake, ["init", "--harness", "opencode"], { cwd: dir, encoding: "utf8", timeout: 120_000 });
  if (init.status !== 0) throw new Error(`cupcake init failed: ${init.stdout}${init.stderr}`);
  return dir;
}

const opts = parseArgs(process.argv.slice(2));
const results = [];
const cleanup = [];
try {
  const constDir = mkdtempSync(join(tmpdir(), "cupcake-bench-const-"));
  cleanup.push(constDir);
  const responder = join(constDir, "cupcake-constant");
  writeFileSync(responder, "#!/bin/sh\n[ \"$1\" = --version ] && { echo cupcake-constant; exit 0; }\ncat >/dev/null\necho '{\"decision\":\"allow\"}'\n");
  chmodSync(responder, 0o755);
  results.push(...(await run("constant", opts.samples, responder, constDir)));
  if (opts.engineSamples > 0) {
    if (!existsSync(opts.cupcake)) throw new Error(`${opts.cupcake} not found (make venv, or pass --cupcake)`);
    let project = opts.project;
    if (project === null) {
      project = initProject(opts.cupcake);
      cleanup.push(project);
    }
    // Warm the policy bundle cache: the first eval in a new project compiles it.
    const warm = { hook_event_name: "PreToolUse", session_id: "ses_warm", cwd: project, tool: "bash", args: { command: "ls" } };
    await bare(opts.cupcake, ["eval", "--harness", "opencode"], project, JSON.stringify(warm));
    results.push(...(await run("engine", opts.engineSamples, opts.cupcake, project)));
  }
} finally {
  for (const d of cleanup) rmSync(d, { recursive: true, force: true });
}

const runtime = typeof globalThis.Bun === "object" ? `bun ${globalThis.Bun.version}` : `node ${process.version}`;
if (opts.json) {
  console.log(JSON.stringify({ runtime, results }, null, 2));
} else {
  const f = (x) => x.toFixed(2).padStart(8);
  console.log(`runtime: ${runtime}; ${process.platform}; medians in ms; overhead = hook − process`);
  console.log("engine    scenario                          samples  process     hook overhead      p90 new-session");
  for (const r of results) {
    console.log(
      `${r.engine.padEnd(9)} ${r.name.padEnd(33)} ${String(r.samples).padStart(7)} ${f(r.process_median_ms)} ${f(r.hook_median_ms)} ` +
        `${f(r.overhead_median_ms)} ${f(r.overhead_p90_ms)} ${f(r.new_session_median_ms)}`,
    );
  }
}
