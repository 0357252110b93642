// Test harness: loads the COMMITTED bundle (npm test first checks it equals a fresh build), gives it a temp
// project with .cupcake/opencode.json, a fake OpenCode client that records logs and toasts, and the fake cupcake.
// Every test file that makes projects registers `afterEach(removeProjects)`, so no test leaves its temp dir behind.
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
export const BUNDLE = join(here, "..", "..", "..", "cupcake_py", "harness", "opencode", "plugin", "cupcake.js");
export const FAKE = join(here, "fake-cupcake.mjs");

export async function loadBundle() {
  return import(pathToFileURL(BUNDLE).href);
}

export function fakeClient({ withApis = true, replyStatus = 200 } = {}) {
  const logs = [];
  const toasts = [];
  const replies = []; // answers to OpenCode permission requests (askMode "native")
  if (!withApis) return { client: {}, logs, toasts, replies };
  const client = {
    app: { log: async ({ body }) => logs.push(body) },
    tui: { showToast: async ({ body }) => toasts.push(body) },
    postSessionIdPermissionsPermissionId: async ({ path, body }) => {
      replies.push({ sessionID: path.id, requestID: path.permissionID, response: body.response });
      return replyStatus === 200
        ? { data: true, response: { ok: true, status: 200 } }
        : { error: { name: "NotFound" }, response: { ok: false, status: replyStatus } };
    },
  };
  return { client, logs, toasts, replies };
}

const projects = new Set();

/** Remove every temp project made so far (run after each test, passed or failed: `afterEach(removeProjects)`). */
export function removeProjects() {
  for (const dir of projects) rmSync(dir, { recursive: true, force: true });
  projects.clear();
}

/** A temp project, removed by `removeProjects`; `config` (object or raw string) becomes .cupcake/opencode.json. */
export function makeProject(config) {
  const dir = mkdtempSync(join(tmpdir(), "cupcake-plugin-test-"));
  projects.add(dir);
  if (config !== undefined) {
    mkdirSync(join(dir, ".cupcake"), { recursive: true });
    const text = typeof config === "string" ? config : JSON.stringify({ cupcakePath: FAKE, ...config });
    writeFileSync(join(dir, ".cupcake", "opencode.json"), text);
  }
  const log = join(dir, "fake-events.jsonl");
  return {
    dir,
    log,
    events: () => (existsSync(log) ? readFileSync(log, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l)) : []),
  };
}

/** Start the plugin in a fresh project; returns its hooks plus helpers that call them the way OpenCode does. */
export async function startPlugin(config = {}, { options, withApis = true, replyStatus = 200 } = {}) {
  const { CupcakePlugin } = await loadBundle();
  const project = makeProject(config);
  process.env.FAKE_CUPCAKE_LOG = project.log;
  const { client, logs, toasts, replies } = fakeClient({ withApis, replyStatus });
  // Silence the console fallback while keeping what it printed.
  const printed = [];
  const original = console.error;
  console.error = (...a) => printed.push(a.join(" "));
  let hooks;
  try {
    hooks = await CupcakePlugin({ client, directory: project.dir, worktree: project.dir, project: { id: "test" } }, options);
  } finally {
    console.error = original;
  }
  let call = 0;
  const before = async (tool, args, sessionID = "ses_test") => {
    const output = { args };
    const saved = console.error;
    console.error = (...a) => printed.push(a.join(" "));
    try {
      await hooks["tool.execute.before"]({ tool, sessionID, callID: `call_${++call}` }, output);
    } finally {
      console.error = saved;
    }
    return output;
  };
  const after = async (tool, args, result, sessionID = "ses_test") => {
    const output = { title: "t", metadata: { exit: 0 }, ...result };
    const saved = console.error;
    console.error = (...a) => printed.push(a.join(" "));
    try {
      await hooks["tool.execute.after"]({ tool, sessionID, callID: `call_${++call}`, args }, output);
    } finally {
      console.error = saved;
    }
    return output;
  };
  const system = async (sessionID) => {
    const output = { system: ["base prompt"] };
    await hooks["experimental.chat.system.transform"]({ sessionID, model: {} }, output);
    return output.system;
  };
  const compacting = async (sessionID) => {
    const output = { context: [] };
    await hooks["experimental.session.compacting"]({ sessionID }, output);
    return output.context;
  };
  const lastCall = () => `call_${call}`;
  return { hooks, project, logs, toasts, replies, printed, before, after, system, compacting, lastCall };
}

/** Wait until `pred()` holds (for background work such as the self-test). */
export async function until(pred, ms = 5000) {
  const t0 = Date.now();
  while (!pred()) {
    if (Date.now() - t0 > ms) throw new Error("condition not reached in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** True while `pid` runs; a killed process waiting to be reaped (zombie, state Z in /proc) counts as dead. */
export function isAlive(pid) {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0] !== "Z";
  } catch {
    return true;
  }
}
