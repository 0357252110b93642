// Serve mode ("mode": "serve"): one fake `cupcake serve --stdio` answers many calls; pipelined calls are matched by
// id; a crashed, hung or garbled server is killed and restarted while the calls in flight fall back to a one-shot
// spawn (and fail closed when that fails too); the server's own fail-closed answers are final.
import { afterEach, test } from "node:test";
import assert from "node:assert/strict";
import { isAlive, removeProjects, startPlugin, until } from "./support/harness.mjs";

const plugins = [];
afterEach(async () => {
  for (const p of plugins.splice(0)) await p.hooks.dispose?.();
  removeProjects();
});

async function served(config = {}) {
  const p = await startPlugin({ mode: "serve", ...config });
  plugins.push(p);
  return p;
}

const serverEntries = (p) => p.project.events().filter((e) => e.argv[0] === "serve");
const spawnEntries = (p) => p.project.events().filter((e) => e.argv[0] === "eval");
const failure = (promise) => promise.then(() => assert.fail("must throw"), (e) => e);

test("one server answers every call; the request carries the id, the harness and the event", async () => {
  const p = await served({ policyDir: "sub" });
  for (let i = 0; i < 5; i++) await p.before("bash", { command: "ls" });
  const err = await failure(p.before("bash", { command: "fake:deny" }));
  assert.match(err.message, /served deny/);
  const entries = serverEntries(p);
  assert.equal(entries.length, 6);
  assert.equal(new Set(entries.map((e) => e.pid)).size, 1, "one server process");
  assert.deepEqual(entries.map((e) => e.request.id), [1, 2, 3, 4, 5, 6]);
  const { argv, cwd, request } = entries[0];
  assert.deepEqual(argv.slice(0, 2), ["serve", "--stdio"]);
  assert.equal(argv[argv.indexOf("--policy-dir") + 1], `${p.project.dir}/sub`);
  assert.equal(cwd, p.project.dir);
  assert.equal(request.harness, "opencode");
  assert.equal(request.event.tool, "bash");
  assert.equal(request.event.cwd, p.project.dir);
  assert.equal(spawnEntries(p).length, 0, "no spawn in serve mode while the server is healthy");
});

test("pipelined calls are matched by id even when answered out of order", async () => {
  const p = await served();
  const held1 = failure(p.before("bash", { command: "fake:hold" }));
  const held2 = failure(p.before("bash", { command: "fake:hold" }));
  await until(() => serverEntries(p).length === 2);
  const released = await p.before("bash", { command: "fake:release" });
  assert.equal(released.args.command, "fake:release");
  const [e1, e2] = await Promise.all([held1, held2]);
  assert.match(e1.message, /held 1/);
  assert.match(e2.message, /held 2/);
});

for (const behaviour of ["crash", "hang", "garbage-line"]) {
  test(`server ${behaviour}: the call in flight is spawned, the server is replaced`, async () => {
    const p = await served({ timeoutMs: 1000 });
    await p.before("bash", { command: "ls" });
    const first = serverEntries(p)[0].pid;
    const t0 = Date.now();
    const err = await failure(p.before("bash", { command: `fake:${behaviour}` }));
    assert.match(err.message, new RegExp(`answered by a spawn after "${behaviour}"`));
    if (behaviour === "hang") assert.ok(Date.now() - t0 >= 1000, "waited for the deadline");
    assert.equal(spawnEntries(p).length, 1);
    await until(() => !isAlive(first));
    assert.ok(p.logs.some((l) => l.level === "warn" && /cupcake serve/.test(l.message)), "the restart is logged");
    await p.before("bash", { command: "ls" });
    const pids = new Set(serverEntries(p).map((e) => e.pid));
    assert.equal(pids.size, 2, "a new server answered the next call");
  });
}

test("server and spawn both fail: the call fails closed", async () => {
  const p = await served();
  const err = await failure(p.before("bash", { command: "fake:crash-both" }));
  assert.match(err.message, /^cupcake: eval exited with status 3/);
  assert.match(err.message, /was NOT executed/);
});

test("server and spawn both fail in open mode: allowed with a warning", async () => {
  const p = await served({ failMode: "open" });
  const out = await p.before("bash", { command: "fake:crash-both" });
  assert.equal(out.args.command, "fake:crash-both");
  assert.ok(p.logs.some((l) => l.level === "warn" && /failMode "open"/.test(l.message)));
});

test("the server's own fail-closed answer (exit_code 2) is final: no spawn", async () => {
  const p = await served();
  const err = await failure(p.before("bash", { command: "fake:engine-error" }));
  assert.match(err.message, /^cupcake: engine error: policy evaluation failed: deadline/);
  assert.equal(spawnEntries(p).length, 0);
});

test("dispose stops the server; spawn stays the default mode", async () => {
  const p = await served();
  await p.before("bash", { command: "ls" });
  const pid = serverEntries(p)[0].pid;
  await p.hooks.dispose();
  await until(() => !isAlive(pid));
  const spawned = await startPlugin({});
  await spawned.before("bash", { command: "ls" });
  assert.equal(spawnEntries(spawned).length, 1);
  assert.equal(serverEntries(spawned).length, 0);
  assert.equal(spawned.hooks.dispose, undefined);
});

test("an unknown mode is reported and spawn is used", async () => {
  const p = await startPlugin({ mode: "daemon" });
  assert.ok(p.logs.some((l) => /"mode" must be one of "spawn", "serve"/.test(l.message)));
  await p.before("bash", { command: "ls" });
  assert.equal(spawnEntries(p).length, 1);
});
