// .cupcake/opencode.json: defaults, validation by hand (each problem reported once), policyDir, plugin options.
import { afterEach, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { FAKE, removeProjects, startPlugin } from "./support/harness.mjs";

afterEach(removeProjects);

const configWarnings = (p) => p.logs.filter((l) => l.level === "warn" && l.message.startsWith("config: "));

test("invalid values and unknown keys are reported once each and ignored", async () => {
  const p = await startPlugin({ timeoutMs: -5, failMode: "sometimes", askMode: 3, colour: "red", enabled: "yes" });
  const msgs = configWarnings(p).map((l) => l.message);
  assert.equal(msgs.length, 5, msgs.join("\n"));
  assert.ok(msgs.some((m) => /"timeoutMs" must be an integer between 100 and 600000, got -5; using 5000/.test(m)));
  assert.ok(msgs.some((m) => /"failMode" must be one of "closed", "open", got "sometimes"; using "closed"/.test(m)));
  assert.ok(msgs.some((m) => /"askMode" must be one of "deny", "allow", "native", got 3/.test(m)));
  assert.ok(msgs.some((m) => /unknown key "colour"/.test(m)));
  assert.ok(msgs.some((m) => /"enabled" must be true or false/.test(m)));
  assert.equal(p.toasts.filter((t) => t.title === "Cupcake config problems").length, 1);
  // the defaults are in force: fail closed, ask denies
  await assert.rejects(p.before("bash", { command: "fake:ask" }), /Approval required/);
  assert.match((await p.before("bash", { command: "fake:garbage" }).catch((e) => e)).message, /^cupcake: stdout is not JSON/);
  // no further reports after calls
  assert.equal(configWarnings(p).length, 5);
});

test("invalid JSON: reported with the file path, defaults used", async () => {
  const p = await startPlugin("{ not json");
  const [w] = configWarnings(p);
  assert.match(w.message, /\.cupcake\/opencode\.json: invalid JSON \(.*\); using the defaults$/);
  // default cupcakePath "cupcake" is not on PATH in the test env → fail closed with a clear message
  const err = await p.before("bash", { command: "ls" }).catch((e) => e);
  assert.match(err.message, /^cupcake: cannot run "cupcake"/);
});

test("a non-object config is rejected", async () => {
  const p = await startPlugin("[1, 2]");
  assert.match(configWarnings(p)[0].message, /expected a JSON object, got an array/);
});

test("no config file: defaults, no warnings", async () => {
  const p = await startPlugin(undefined);
  assert.equal(configWarnings(p).length, 0);
});

test("enabled false installs no hooks", async () => {
  const p = await startPlugin({ enabled: false });
  assert.deepEqual(Object.keys(p.hooks), []);
  assert.ok(p.logs.some((l) => /disabled/.test(l.message)));
});

test("policyDir is resolved against the project and passed as --policy-dir", async () => {
  const p = await startPlugin({ policyDir: "rules/.cupcake" });
  await p.before("bash", { command: "fake:allow" });
  const { argv } = p.project.events()[0];
  assert.deepEqual(argv, ["eval", "--harness", "opencode", "--policy-dir", join(p.project.dir, "rules/.cupcake")]);
});

test("plugin options (opencode.json tuple) cannot weaken .cupcake/opencode.json", async () => {
  // The agent can write opencode.json; it cannot write .cupcake/opencode.json (a protected state path).
  const p = await startPlugin(
    {},
    { options: { enabled: false, failMode: "open", askMode: "allow", cupcakePath: "/tmp/evil-cupcake", policyDir: "x",
      timeoutMs: 600000, showToasts: false } },
  );
  assert.ok(Object.keys(p.hooks).includes("tool.execute.before"), "enabled: false from options is ignored");
  const msgs = configWarnings(p).map((l) => l.message);
  assert.equal(msgs.length, 7, msgs.join("\n"));
  for (const key of ["enabled", "failMode", "askMode", "cupcakePath", "policyDir", "timeoutMs", "showToasts"]) {
    assert.ok(msgs.some((m) => m.includes(`"${key}"`) && m.includes("may only tighten")), key);
  }
  // still the fake cupcake from the file, still fail closed, ask still denies, no --policy-dir
  await assert.rejects(p.before("bash", { command: "fake:garbage" }), /^Error: cupcake: stdout is not JSON|stdout is not JSON/);
  await assert.rejects(p.before("bash", { command: "fake:ask" }), /Approval required/);
  assert.deepEqual(p.project.events().at(-1).argv, ["eval", "--harness", "opencode"]);
});

test("plugin options may tighten: failMode closed over open, a shorter timeout, equal cupcakePath", async () => {
  const p = await startPlugin({ failMode: "open", askMode: "allow" },
    { options: { failMode: "closed", askMode: "deny", timeoutMs: 2000, cupcakePath: FAKE, logLevel: "error" } });
  assert.equal(configWarnings(p).length, 0, configWarnings(p).map((l) => l.message).join("\n"));
  await assert.rejects(p.before("bash", { command: "fake:garbage" }), /stdout is not JSON/);
  await assert.rejects(p.before("bash", { command: "fake:ask" }), /Approval required/);
});

test(".cupcake/opencode.json may relax (it is protected): failMode open there is honoured", async () => {
  const p = await startPlugin({ failMode: "open" });
  const out = await p.before("bash", { command: "fake:garbage" });
  assert.equal(out.args.command, "fake:garbage");
});

test("logLevel gates the console, not the client log", async () => {
  const quiet = await startPlugin({ logLevel: "error", failMode: "open" });
  await quiet.before("bash", { command: "fake:garbage" });
  assert.equal(quiet.printed.filter((l) => l.startsWith("[cupcake] WARN")).length, 0);
  assert.ok(quiet.logs.some((l) => l.level === "warn"));
  const chatty = await startPlugin({ logLevel: "debug" });
  await chatty.before("bash", { command: "fake:allow" });
  assert.ok(chatty.printed.some((l) => /^\[cupcake\] DEBUG: PreToolUse bash: allow/.test(l)));
});

test('plugin options cannot switch askMode to "native"; the file can', async () => {
  const p = await startPlugin({}, { options: { askMode: "native" } });
  assert.ok(configWarnings(p).some((l) => /"askMode": "native" ignored: options there may only tighten/.test(l.message)));
  assert.equal(p.hooks["shell.env"], undefined);
  const q = await startPlugin({ askMode: "native" });
  assert.equal(configWarnings(q).length, 0);
  assert.equal(typeof q.hooks["shell.env"], "function");
});
