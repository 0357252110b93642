// Serve mode against the REAL `cupcake serve --stdio` (the repo's .venv/bin/cupcake; skipped when it is missing):
// the same decisions as spawn mode, and a server killed from outside (a crash) is replaced while the call in
// flight is answered by a spawn.
import { afterEach, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { isAlive, removeProjects, startPlugin, until } from "./support/harness.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const CUPCAKE = resolve(here, "..", "..", ".venv", "bin", "cupcake");
const skip = existsSync(CUPCAKE) ? false : `no ${CUPCAKE} (make venv)`;

const POLICY = `# METADATA
# custom:
#   routing:
#     required_events: ["PreToolUse"]
#     required_tools: ["Bash"]
package cupcake.policies.nodetest

import rego.v1

deny contains {"rule_id": "NO-RM", "reason": "no rm here"} if startswith(input.tool_input.command, "rm ")
`;

const plugins = [];
afterEach(async () => {
  for (const p of plugins.splice(0)) await p.hooks.dispose?.();
  removeProjects();
});

async function real(mode) {
  const p = await startPlugin({ cupcakePath: CUPCAKE, mode, timeoutMs: 60000 });
  plugins.push(p);
  const dir = join(p.project.dir, ".cupcake", "policies", "opencode");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "nodetest.rego"), POLICY);
  process.env.XDG_CACHE_HOME ??= join(p.project.dir, "cache");
  return p;
}

/** pid of the `cupcake serve` child of this node process (Linux /proc). */
function servePid() {
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0");
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === process.pid && cmd.includes("serve") && cmd.includes("--stdio")) return Number(name);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}
test("real server: same decisions as spawn; a killed server is replaced", { skip, timeout: 180000 }, async () => {
  const spawnP = await real("spawn");
  const serveP = await real("serve");
  for (const p of [spawnP, serveP]) {
    const out = await p.before("bash", { command: "ls -la" });
    assert.equal(out.args.command, "ls -la");
    const err = await p.before("bash", { command: "rm -rf x" }).then(() => assert.fail("must throw"), (e) => e);
    assert.match(err.message, /no rm here/);
  }
  const pid = servePid();
  assert.ok(pid !== undefined, "a cupcake serve child runs");
  process.kill(pid, "SIGKILL");
  await until(() => !isAlive(pid));
  const err = await serveP.before("bash", { command: "rm -rf y" }).then(() => assert.fail("must throw"), (e) => e);
  assert.match(err.message, /no rm here/, "the call after the crash is still decided (spawn fallback or a new server)");
  await serveP.before("bash", { command: "echo fine" });
  const next = servePid();
  assert.ok(next !== undefined && next !== pid, "a new server answers");
});
