#!/usr/bin/env node
// Decision latency seen by the plugin, spawn vs serve: the committed bundle's `tool.execute.before` on one event,
// with `.cupcake/opencode.json` "mode": "spawn" (a `cupcake eval` per call) and "mode": "serve" (one warm
// `cupcake serve --stdio`), calls alternated between the two plugins so machine load hits both alike.
//
//   node bench/serve.mjs --project DIR [--cupcake PATH] [--samples N] [--command CMD] [--json]
// The project must already have its .cupcake/ (the bench writes only .cupcake/opencode.json there, and removes
// it afterwards). Defaults: 60 samples, cupcake = ../.venv/bin/cupcake, command "ls -la src".
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(here, "..", "..");
const BUNDLE = join(REPO, "cupcake_py", "harness", "opencode", "plugin", "cupcake.js");

function parseArgs(argv) {
  const opts = { samples: 60, cupcake: join(REPO, ".venv", "bin", "cupcake"), project: null, command: "ls -la src", json: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--samples") opts.samples = Number(argv[++i]);
    else if (a === "--cupcake") opts.cupcake = resolve(argv[++i]);
    else if (a === "--project") opts.project = resolve(argv[++i]);
    else if (a === "--command") opts.command = argv[++i];
    else if (a === "--json") opts.json = true;
    else throw new Error(`unknown argument ${a}`);
  }
  if (opts.project === null) throw new Error("--project DIR is required");
  return opts;
}

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};

async function plugin(project, cupcake, mode) {
  const { CupcakePlugin } = await import(`${pathToFileURL(BUNDLE).href}?mode=${mode}`);
  const file = join(project, ".cupcake", "opencode.json");
  writeFileSync(file, JSON.stringify({ cupcakePath: cupcake, mode, showToasts: false, timeoutMs: 60000 }));
  const client = { app: { log: async () => undefined }, tui: { showToast: async () => undefined } };
  const hooks = await CupcakePlugin({ client, directory: project, worktree: project, project: { id: "bench" } }, undefined);
  let n = 0;
  const call = async (command) => {
    const output = { args: { command } };
    const t0 = performance.now();
    await hooks["tool.execute.before"]({ tool: "bash", sessionID: "ses_bench", callID: `c${++n}` }, output);
    return performance.now() - t0;
  };
  return { hooks, call };
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const file = join(opts.project, ".cupcake", "opencode.json");
  const saved = existsSync(file) ? readFileSync(file) : null;
  const spawnP = await plugin(opts.project, opts.cupcake, "spawn");
  const serveP = await plugin(opts.project, opts.cupcake, "serve");
  const samples = { spawn: [], serve: [] };
  try {
    const t0 = performance.now();
    await serveP.call(opts.command); // the server's start-up, reported apart
    const firstServe = performance.now() - t0;
    await spawnP.call(opts.command);
    for (let i = 0; i < 3; i++) await serveP.call(opts.command);
    for (let i = 0; i < opts.samples; i++) {
      const order = i % 2 === 0 ? ["spawn", "serve"] : ["serve", "spawn"];
      for (const mode of order) samples[mode].push(await (mode === "spawn" ? spawnP : serveP).call(opts.command));
    }
    const stat = (xs) => ({ n: xs.length, median: quantile(xs, 0.5), p90: quantile(xs, 0.9), min: Math.min(...xs) });
    const out = { samples: opts.samples, command: opts.command, first_serve_call_ms: firstServe,
                  spawn_ms: stat(samples.spawn), serve_ms: stat(samples.serve) };
    out.speedup = out.spawn_ms.median / out.serve_ms.median;
    if (opts.json) process.stdout.write(`${JSON.stringify(out)}\n`);
    else {
      console.log(`decision latency from node (tool.execute.before), ${opts.samples} calls each, ms`);
      for (const mode of ["spawn", "serve"]) {
        const s = out[`${mode}_ms`];
        console.log(`  ${mode.padEnd(6)} median ${s.median.toFixed(2)}  p90 ${s.p90.toFixed(2)}  min ${s.min.toFixed(2)}`);
      }
      console.log(`  first serve call (server start) ${firstServe.toFixed(0)} ms; serve is ${out.speedup.toFixed(1)}x faster`);
    }
  } finally {
    await serveP.hooks.dispose?.();
    if (saved === null) rmSync(file, { force: true });
    else writeFileSync(file, saved);
  }
}

await main();
