// Everything that is not a well-formed decision: timeouts (process group killed), bad output, exit statuses,
// spawn failures; fail-closed blocks with a "cupcake: ..." message, fail-open allows with a warning.
import { afterEach, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, existsSync, writeFileSync, chmodSync } from "node:fs";
import { join } from "node:path";
import { isAlive, removeProjects, startPlugin, until } from "./support/harness.mjs";

afterEach(removeProjects);

const cases = [
  { name: "non-JSON stdout", command: "fake:garbage", error: /^cupcake: stdout is not JSON: "this is not json"/ },
  { name: "empty stdout", command: "fake:empty", error: /^cupcake: no output on stdout/ },
  { name: "{} (no decision)", command: "fake:emptyobj", error: /^cupcake: response has no "decision"/ },
  { name: "unknown decision", command: "fake:unknown", error: /^cupcake: unknown decision "maybe"/ },
  { name: "ill-typed field", command: "fake:badfield", error: /^cupcake: response field "context" must be an array of strings/ },
  { name: "exit status 3", command: "fake:exit3", error: /^cupcake: eval exited with status 3: fake: internal failure/ },
  { name: "exit 1 without deny", command: "fake:exit1-allow", error: /^cupcake: eval exited with status 1/ },
  { name: "exit 2 engine error", command: "fake:engine-error", error: /^cupcake: engine error: cannot compile \.cupcake\/policies\/x\.rego:3:7/ },
];

for (const c of cases) {
  test(`${c.name}: blocked in closed mode`, async () => {
    const p = await startPlugin();
    const err = await p.before("bash", { command: c.command }).catch((e) => e);
    assert.ok(err instanceof Error, "must throw");
    assert.match(err.message, c.error);
    assert.match(err.message, /was NOT executed: the policy check failed and cupcake fails closed/);
    assert.equal(p.toasts.at(-1).variant, "error");
  });

  test(`${c.name}: allowed with a warning in open mode`, async () => {
    const p = await startPlugin({ failMode: "open" });
    const args = { command: c.command };
    const out = await p.before("bash", args);
    assert.equal(out.args.command, c.command);
    assert.ok(p.logs.some((l) => l.level === "warn" && c.error.test(l.message) && /failMode "open"/.test(l.message)));
    assert.ok(p.printed.some((line) => line.startsWith("[cupcake] WARN: cupcake: ")), "warning reaches the console");
  });
}

test("exit 1 with a deny (--strict style) is honoured as a deny, not an error", async () => {
  const p = await startPlugin({ failMode: "open" });
  const err = await p.before("bash", { command: "fake:strict-deny" }).catch((e) => e);
  assert.match(err.message, /^Blocked by cupcake policy \[rule s\.r\][\s\S]*strict mode denial/);
});

test("timeout kills cupcake and everything it started, and fails closed", async () => {
  const p = await startPlugin({ timeoutMs: 1500 });
  const pids = join(p.project.dir, "pids");
  process.env.FAKE_CUPCAKE_PIDS = pids;
  const t0 = Date.now();
  const err = await p.before("bash", { command: "fake:sleep" }).catch((e) => e);
  const elapsed = Date.now() - t0;
  delete process.env.FAKE_CUPCAKE_PIDS;
  assert.match(err.message, /^cupcake: ".*eval --harness opencode" timed out after 1500 ms and was killed/);
  assert.ok(elapsed >= 1500 && elapsed < 5000, `took ${elapsed} ms`);
  assert.ok(existsSync(pids));
  const [fake, grandchild, ownSession] = readFileSync(pids, "utf8").split(" ").map(Number);
  try {
    await until(() => !isAlive(fake) && !isAlive(grandchild), 2000);
    // Linux kills the process tree, which includes a child that left cupcake's process group (elsewhere the plugin
    // kills the group only).
    if (process.platform === "linux") await until(() => !isAlive(ownSession), 2000);
  } finally {
    for (const pid of [grandchild, ownSession]) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // gone, as expected
      }
    }
  }
});

test("timeout in open mode allows", async () => {
  const p = await startPlugin({ timeoutMs: 300, failMode: "open" });
  const out = await p.before("bash", { command: "fake:sleep" });
  assert.equal(out.args.command, "fake:sleep");
  assert.ok(p.logs.some((l) => /timed out after 300 ms/.test(l.message)));
});

test("missing cupcake binary: clear message, closed blocks", async () => {
  const p = await startPlugin({ cupcakePath: "cupcake-does-not-exist-xyz" });
  const err = await p.before("bash", { command: "ls" }).catch((e) => e);
  assert.match(err.message, /^cupcake: cannot run "cupcake-does-not-exist-xyz": not found \(install cupcake-py/);
});

test("non-executable cupcakePath: permission denied", async () => {
  const p = await startPlugin({ cupcakePath: "./not-exec.sh" });
  const script = join(p.project.dir, "not-exec.sh");
  writeFileSync(script, "#!/bin/sh\necho '{}'\n");
  chmodSync(script, 0o644);
  const err = await p.before("bash", { command: "ls" }).catch((e) => e);
  assert.match(err.message, /^cupcake: cannot run ".*not-exec\.sh": permission denied/);
});

test("PostToolUse failure: closed appends a notice, open leaves the output alone", async () => {
  const closed = await startPlugin();
  const out = await closed.after("bash", { command: "x" }, { output: "CRASH" });
  assert.match(out.output, /^CRASH\n\n\[cupcake\] cupcake: eval exited with status 3[\s\S]*treat its result with caution/);
  const open = await startPlugin({ failMode: "open" });
  const out2 = await open.after("bash", { command: "x" }, { output: "CRASH" });
  assert.equal(out2.output, "CRASH");
});

test("self-test reports the version once via the client log", async () => {
  const p = await startPlugin();
  await until(() => p.logs.some((l) => /self-test/.test(l.message)));
  const lines = p.logs.filter((l) => /self-test/.test(l.message));
  assert.equal(lines.length, 1);
  assert.equal(lines[0].level, "info");
  assert.match(lines[0].message, /^self-test ok: cupcake-fake 9\.9\.9 \(.*fake-cupcake\.mjs; failMode closed\)$/);
});

test("self-test failure is logged as an error and toasted", async () => {
  process.env.FAKE_CUPCAKE_VERSION_FAIL = "1";
  try {
    const p = await startPlugin();
    await until(() => p.logs.some((l) => /self-test/.test(l.message)));
    const line = p.logs.find((l) => /self-test/.test(l.message));
    assert.equal(line.level, "error");
    assert.match(line.message, /self-test failed: cupcake: ".*--version" exited with status 4: fake: version broken/);
    assert.equal(p.toasts.at(-1).title, "Cupcake is not working");
  } finally {
    delete process.env.FAKE_CUPCAKE_VERSION_FAIL;
  }
});
