// cupcake OpenCode plugin 0.1.0: generated from plugin-ts/src by `make plugin`; do not edit.
// Install as .opencode/plugin/cupcake.js; configure in .cupcake/opencode.json.

// src/config.ts
import { readFileSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
var DEFAULT_CONFIG = Object.freeze({
  enabled: true,
  cupcakePath: "cupcake",
  policyDir: void 0,
  timeoutMs: 5e3,
  failMode: "closed",
  askMode: "deny",
  logLevel: "warn",
  showToasts: true,
  mode: "spawn"
});
var CONFIG_FILE = join(".cupcake", "opencode.json");
var oneOf = (...allowed) => (v) => typeof v === "string" && allowed.includes(v) ? null : `one of ${allowed.map((a) => JSON.stringify(a)).join(", ")}`;
var isBool = (v) => typeof v === "boolean" ? null : "true or false";
var isText = (v) => typeof v === "string" && v.trim() !== "" ? null : "a non-empty string";
var isTimeout = (v) => typeof v === "number" && Number.isInteger(v) && v >= 100 && v <= 6e5 ? null : "an integer between 100 and 600000";
var FIELDS = {
  enabled: isBool,
  cupcakePath: isText,
  policyDir: isText,
  timeoutMs: isTimeout,
  failMode: oneOf("closed", "open"),
  askMode: oneOf("deny", "allow", "native"),
  logLevel: oneOf("debug", "info", "warn", "error"),
  showToasts: isBool,
  mode: oneOf("spawn", "serve")
};
var TIGHTENS = {
  enabled: (v) => v === true,
  cupcakePath: (v, c) => v === c,
  policyDir: (v, c) => v === c,
  timeoutMs: (v, c) => v <= c,
  failMode: (v) => v === "closed",
  askMode: (v) => v === "deny",
  logLevel: () => true,
  showToasts: (v) => v === true,
  mode: () => true
  // spawn and serve run the same engine on the same policies and both fail closed
};
var OPTIONS_ORIGIN = "plugin options in opencode.json";
function applyLayer(target, layer, origin, problems, tightenOnly = false) {
  if (layer === void 0 || layer === null) return;
  if (typeof layer !== "object" || Array.isArray(layer)) {
    problems.push(`${origin}: expected a JSON object, got ${Array.isArray(layer) ? "an array" : typeof layer}`);
    return;
  }
  for (const [key, value] of Object.entries(layer)) {
    if (key === "$schema") continue;
    if (!Object.hasOwn(FIELDS, key)) {
      problems.push(`${origin}: unknown key "${key}" (known: ${Object.keys(FIELDS).join(", ")})`);
      continue;
    }
    const field = key;
    const expected = FIELDS[field](value);
    if (expected !== null) {
      problems.push(`${origin}: "${key}" must be ${expected}, got ${JSON.stringify(value)}; using ${JSON.stringify(target[field])}`);
      continue;
    }
    if (tightenOnly && !TIGHTENS[field](value, target[field])) {
      problems.push(
        `${origin}: "${key}": ${JSON.stringify(value)} ignored: options there may only tighten ${CONFIG_FILE} (in force: ${JSON.stringify(target[field])}; change it in ${CONFIG_FILE})`
      );
      continue;
    }
    target[field] = value;
  }
}
function readConfigFile(path, problems) {
  let text2;
  try {
    text2 = readFileSync(path, "utf8");
  } catch (err) {
    const code = err.code;
    if (code !== "ENOENT") problems.push(`${path}: cannot read (${code ?? String(err)})`);
    return void 0;
  }
  try {
    return JSON.parse(text2);
  } catch (err) {
    problems.push(`${path}: invalid JSON (${err.message}); using the defaults`);
    return void 0;
  }
}
function resolveAgainst(directory, value, isCommand) {
  if (isAbsolute(value)) return value;
  if (isCommand && !value.includes("/") && !value.includes("\\")) return value;
  return resolve(directory, value);
}
function loadConfig(directory, options) {
  const problems = [];
  const config = { ...DEFAULT_CONFIG };
  const file = join(directory, CONFIG_FILE);
  applyLayer(config, readConfigFile(file, problems), file, problems);
  config.cupcakePath = resolveAgainst(directory, config.cupcakePath, true);
  if (config.policyDir !== void 0) config.policyDir = resolveAgainst(directory, config.policyDir, false);
  const resolved = resolveOptionPaths(directory, options);
  applyLayer(config, resolved, OPTIONS_ORIGIN, problems, true);
  return { config, problems };
}
function resolveOptionPaths(directory, options) {
  if (options === null || typeof options !== "object" || Array.isArray(options)) return options;
  const out = { ...options };
  if (typeof out.cupcakePath === "string" && out.cupcakePath.trim() !== "") {
    out.cupcakePath = resolveAgainst(directory, out.cupcakePath, true);
  }
  if (typeof out.policyDir === "string" && out.policyDir.trim() !== "") {
    out.policyDir = resolveAgainst(directory, out.policyDir, false);
  }
  return out;
}

// src/context.ts
var MAX_ITEMS = 32;
var MAX_ITEM_CHARS = 4e3;
var SessionContext = class {
  bySession = /* @__PURE__ */ new Map();
  add(sessionID, items) {
    const list = this.bySession.get(sessionID) ?? [];
    for (const raw of items) {
      const item = raw.trim().slice(0, MAX_ITEM_CHARS);
      if (item === "") continue;
      const at = list.indexOf(item);
      if (at >= 0) list.splice(at, 1);
      list.push(item);
    }
    while (list.length > MAX_ITEMS) list.shift();
    if (list.length > 0) this.bySession.set(sessionID, list);
  }
  get(sessionID) {
    if (sessionID === void 0) return [];
    return this.bySession.get(sessionID) ?? [];
  }
};

// src/protocol.ts
var CupcakeError = class extends Error {
  constructor(detail) {
    super(`cupcake: ${detail}`);
    this.name = "CupcakeError";
  }
};
var KINDS = /* @__PURE__ */ new Set(["allow", "ask", "deny", "block"]);
var isStringArray = (v) => Array.isArray(v) && v.every((x) => typeof x === "string");
var isPlainObject = (v) => typeof v === "object" && v !== null && !Array.isArray(v);
function clip(text2, max = 200) {
  const flat = text2.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}
function parseDecision(stdout) {
  const text2 = stdout.trim();
  if (text2 === "") throw new CupcakeError("no output on stdout (expected one JSON decision line)");
  let value;
  try {
    value = JSON.parse(text2);
  } catch {
    throw new CupcakeError(`stdout is not JSON: ${JSON.stringify(clip(text2))}`);
  }
  if (!isPlainObject(value)) throw new CupcakeError(`expected a JSON object on stdout, got ${clip(text2)}`);
  const { decision, reason, context, updated_args, rule_ids } = value;
  if (decision === void 0) throw new CupcakeError(`response has no "decision": ${clip(text2)}`);
  if (typeof decision !== "string" || !KINDS.has(decision)) {
    throw new CupcakeError(`unknown decision ${JSON.stringify(decision)} (expected allow, ask, deny or block)`);
  }
  const bad = (field, expected) => {
    throw new CupcakeError(`response field "${field}" must be ${expected}: ${clip(text2)}`);
  };
  if (reason !== void 0 && typeof reason !== "string") bad("reason", "a string");
  if (context !== void 0 && !isStringArray(context)) bad("context", "an array of strings");
  if (updated_args !== void 0 && !isPlainObject(updated_args)) bad("updated_args", "an object");
  if (rule_ids !== void 0 && !isStringArray(rule_ids)) bad("rule_ids", "an array of strings");
  const out = { decision };
  if (reason !== void 0) out.reason = reason;
  if (context !== void 0) out.context = context;
  if (updated_args !== void 0) out.updated_args = updated_args;
  if (rule_ids !== void 0) out.rule_ids = rule_ids;
  return out;
}

// src/messages.ts
var KEY_ARGS = ["command", "filePath", "path", "pattern", "url", "description", "name", "query", "patchText"];
function describeCall(tool, args) {
  for (const key of KEY_ARGS) {
    const value = args[key];
    if (typeof value === "string" && value !== "") return `${tool} call (${key}: ${JSON.stringify(clip(value, 160))})`;
  }
  return `${tool} call`;
}
function ruleText(d) {
  const ids = d.rule_ids ?? [];
  if (ids.length === 0) return "";
  return ids.length === 1 ? ` [rule ${ids[0]}]` : ` [rules ${ids.join(", ")}]`;
}
function reasonText(d) {
  const reason = d.reason?.trim();
  return reason ? reason : "(the policy gave no reason)";
}
function denyMessage(tool, args, d) {
  return [
    `Blocked by cupcake policy${ruleText(d)}: this ${describeCall(tool, args)} was NOT executed.`,
    `Reason: ${reasonText(d)}`,
    "What to do instead: do not retry this call or work around the policy with an equivalent one. Choose an approach that satisfies the reason above, or explain to the user what you need and why."
  ].join("\n");
}
function askMessage(tool, args, d, notNative) {
  const rules = d.rule_ids ?? [];
  const disable = rules.length > 0 ? `disable rule ${rules.join(", ")}` : "disable the rule that asked";
  const why = notNative === void 0 ? "OpenCode plugins cannot show an approval prompt themselves, so cupcake blocked the call." : `OpenCode's approval prompt cannot be used for this call (${notNative}), so cupcake blocked it.`;
  return [
    `Approval required by cupcake policy${ruleText(d)}: this ${describeCall(tool, args)} was NOT executed.`,
    `Reason: ${reasonText(d)}`,
    `${why} Tell the user what you wanted to do and why, and let them decide. To approve it, the user can add an exception for this call to the allow-list in the project's cupcake policy configuration (.cupcake/), or ${disable} and re-run the request; in ${CONFIG_FILE}, "askMode": "native" sends such calls to OpenCode's own approval prompt (for tools whose OpenCode permission is "ask") and "askMode": "allow" lets them all run.`
  ].join("\n");
}
function unmatchedMessage(tool, args, why) {
  return [
    `Blocked by cupcake: this ${describeCall(tool, args)} was NOT executed: ${why}.`,
    "Something changed the call after cupcake checked it (another OpenCode plugin?), so cupcake fails closed. Tell the user; do not retry the call until it is explained."
  ].join("\n");
}
function failClosedMessage(tool, args, error) {
  return [
    `${error}`,
    `The ${describeCall(tool, args)} was NOT executed: the policy check failed and cupcake fails closed.`,
    `What to do: tell the user that the cupcake setup needs fixing (see ${CONFIG_FILE}: cupcakePath, policyDir, timeoutMs); do not retry the same call until it is fixed.`
  ].join("\n");
}
function postFeedback(tool, d) {
  const verb = d.decision === "ask" ? "flagged for review" : "objected to";
  return `

[cupcake] Policy feedback${ruleText(d)}: the policy ${verb} the result of this ${tool} call. Reason: ${reasonText(d)}
The call already ran; take this into account before continuing.`;
}
function postFailure(tool, error) {
  return `

[cupcake] ${error}
The post-run policy check of this ${tool} call failed; treat its result with caution.`;
}
function contextBlock(items) {
  return ["Cupcake policy context (from the project's policies; follow it):", ...items.map((c) => `- ${c}`)].join("\n");
}
function postContext(items) {
  return `

[cupcake] ${contextBlock(items)}`;
}

// src/runner.ts
import { spawn } from "node:child_process";
import { readdirSync, readFileSync as readFileSync2 } from "node:fs";
var MAX_STDOUT = 4 * 1024 * 1024;
var MAX_STDERR = 16 * 1024;
var TREE_KILL = process.platform === "linux";
function send(pid, sig) {
  try {
    process.kill(pid, sig);
  } catch {
  }
}
function childrenByParent() {
  const map = /* @__PURE__ */ new Map();
  let names;
  try {
    names = readdirSync("/proc");
  } catch {
    return map;
  }
  for (const name of names) {
    if (name.charCodeAt(0) < 48 || name.charCodeAt(0) > 57) continue;
    let stat;
    try {
      stat = readFileSync2(`/proc/${name}/stat`, "utf8");
    } catch {
      continue;
    }
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    const kids = map.get(ppid);
    if (kids === void 0) map.set(ppid, [Number(name)]);
    else kids.push(Number(name));
  }
  return map;
}
function killTree(root) {
  const found = /* @__PURE__ */ new Set([root]);
  send(root, "SIGSTOP");
  for (let round = 0; round < 32; round++) {
    const byParent = childrenByParent();
    let grew = false;
    for (const pid of [...found]) {
      for (const child of byParent.get(pid) ?? []) {
        if (found.has(child)) continue;
        found.add(child);
        send(child, "SIGSTOP");
        grew = true;
      }
    }
    if (!grew) break;
  }
  for (const pid of found) send(pid, "SIGKILL");
}
function killAll(child) {
  const pid = child.pid;
  if (pid === void 0) return;
  if (TREE_KILL) {
    if (child.exitCode === null && child.signalCode === null) killTree(pid);
    return;
  }
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    send(pid, "SIGKILL");
  }
}
function spawnFailure(command, err) {
  if (err.code === "ENOENT") {
    return new CupcakeError(
      `cannot run "${command}": not found (install cupcake-py so "cupcake" is on PATH, or set "cupcakePath" in .cupcake/opencode.json)`
    );
  }
  if (err.code === "EACCES") return new CupcakeError(`cannot run "${command}": permission denied (is it executable?)`);
  return new CupcakeError(`cannot run "${command}": ${err.message}`);
}
function runProcess(spec) {
  return new Promise((resolvePromise, reject) => {
    let settled = false;
    const finish = (fn) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
    };
    let child;
    try {
      child = spawn(spec.command, spec.args, { cwd: spec.cwd, detached: !TREE_KILL, stdio: ["pipe", "pipe", "pipe"] });
    } catch (err2) {
      reject(spawnFailure(spec.command, err2));
      return;
    }
    const timer = setTimeout(() => {
      killAll(child);
      finish(() => reject(new CupcakeError(`"${spec.command} ${spec.args.join(" ")}" timed out after ${spec.timeoutMs} ms and was killed`)));
    }, spec.timeoutMs);
    const out = [];
    const err = [];
    let outBytes = 0;
    let errBytes = 0;
    child.stdout?.on("data", (chunk) => {
      outBytes += chunk.length;
      if (outBytes > MAX_STDOUT) {
        killAll(child);
        finish(() => reject(new CupcakeError(`stdout exceeded ${MAX_STDOUT} bytes; process killed`)));
        return;
      }
      out.push(chunk);
    });
    child.stderr?.on("data", (chunk) => {
      if (errBytes < MAX_STDERR) err.push(chunk);
      errBytes += chunk.length;
    });
    child.on("error", (e) => finish(() => reject(spawnFailure(spec.command, e))));
    child.on(
      "close",
      (code, signal) => finish(
        () => resolvePromise({
          code,
          signal,
          stdout: Buffer.concat(out).toString("utf8"),
          stderr: Buffer.concat(err).toString("utf8")
        })
      )
    );
    child.stdin?.on("error", () => {
    });
    child.stdin?.end(spec.stdin);
  });
}
function describeFailure(res) {
  const status = res.signal !== null ? `was killed by ${res.signal}` : `exited with status ${res.code}`;
  const stderr = clip(res.stderr, 400);
  return stderr === "" ? status : `${status}: ${stderr}`;
}
function interpretResult(res) {
  if (res.code === 0) return parseDecision(res.stdout);
  if (res.code === 1) {
    let decision;
    try {
      decision = parseDecision(res.stdout);
    } catch {
      decision = void 0;
    }
    if (decision !== void 0 && (decision.decision === "deny" || decision.decision === "block")) return decision;
  }
  if (res.code === 2) {
    let reason;
    try {
      reason = parseDecision(res.stdout).reason;
    } catch {
      reason = void 0;
    }
    if (reason !== void 0 && reason.trim() !== "") {
      throw new CupcakeError(`engine error: ${reason.replace(/^cupcake:\s*/, "")}`);
    }
  }
  throw new CupcakeError(`eval ${describeFailure(res)}`);
}
function evalArgs(config) {
  const args = ["eval", "--harness", "opencode"];
  if (config.policyDir !== void 0) args.push("--policy-dir", config.policyDir);
  return args;
}
async function evaluate(config, directory, event) {
  const res = await runProcess({
    command: config.cupcakePath,
    args: evalArgs(config),
    cwd: directory,
    stdin: `${JSON.stringify(event)}
`,
    timeoutMs: config.timeoutMs
  });
  return interpretResult(res);
}
async function selfTest(config, directory) {
  const res = await runProcess({
    command: config.cupcakePath,
    args: ["--version"],
    cwd: directory,
    stdin: "",
    timeoutMs: config.timeoutMs
  });
  if (res.code !== 0) throw new CupcakeError(`"${config.cupcakePath} --version" ${describeFailure(res)}`);
  const line = res.stdout.trim().split("\n")[0] ?? "";
  if (line === "") throw new CupcakeError(`"${config.cupcakePath} --version" printed nothing`);
  return line;
}

// src/lifecycle.ts
var LIFECYCLE_TIMEOUT_MS = 1e4;
var str = (v) => typeof v === "string" && v !== "" ? v : void 0;
function lifecycleFromBus(event, directory) {
  if (event.type !== "session.created") return void 0;
  const props = event.properties ?? {};
  const id = str(props.info?.id) ?? str(props.sessionID);
  if (id === void 0) return void 0;
  const out = { session_id: id, event: "created", cwd: directory };
  const parent = str(props.info?.parentID);
  if (parent !== void 0) out.parent_id = parent;
  return out;
}
function sendLifecycle(config, directory, ev, reporter) {
  runProcess({
    command: config.cupcakePath,
    args: ["audit", "session-event", "--harness", "opencode"],
    cwd: directory,
    stdin: `${JSON.stringify(ev)}
`,
    timeoutMs: Math.min(config.timeoutMs, LIFECYCLE_TIMEOUT_MS)
  }).then(
    (res) => {
      if (res.code !== 0) reporter.log("debug", `session ${ev.event} not recorded: exit ${res.code} ${res.stderr.trim()}`);
    },
    (err) => reporter.log("debug", `session ${ev.event} not recorded: ${err.message}`)
  );
}

// src/hooks.ts
var isArgs = (v) => typeof v === "object" && v !== null && !Array.isArray(v);
function applyArgsInPlace(target, updated) {
  Object.assign(target, updated);
}
var errorText = (err) => err instanceof CupcakeError ? err.message : `cupcake: plugin error: ${err instanceof Error ? err.message : String(err)}`;
function createHooks(deps, run = evaluate) {
  const { config, directory, reporter, context, native } = deps;
  const sessions = /* @__PURE__ */ new Map();
  const makeEvent = (name, input, args) => {
    const seen = sessions.get(input.sessionID);
    const event = {
      hook_event_name: name,
      session_id: input.sessionID || "unknown",
      cwd: directory,
      tool: input.tool,
      args
    };
    if (seen?.agent) event.agent = seen.agent;
    if (seen?.messageID) event.message_id = seen.messageID;
    if (input.callID) event.call_id = input.callID;
    return event;
  };
  const rememberContext = (sessionID, d) => {
    if (d.context && d.context.length > 0) context.add(sessionID, d.context);
  };
  const remember = (sessionID, agent, messageID) => {
    const known = sessions.get(sessionID) ?? {};
    sessions.set(sessionID, { agent: agent || known.agent, messageID: messageID || known.messageID });
  };
  return {
    "chat.message": async (input) => remember(input.sessionID, input.agent, input.messageID),
    "chat.params": async (input) => remember(input.sessionID, input.agent, input.message?.id),
    "tool.execute.before": async (input, output) => {
      const args = isArgs(output.args) ? output.args : {};
      let d;
      let seen = args;
      try {
        seen = JSON.parse(JSON.stringify(args));
        d = await run(config, directory, makeEvent("PreToolUse", input, seen));
      } catch (err) {
        const msg = errorText(err);
        if (config.failMode === "open") {
          reporter.log("warn", `${msg} — allowing the ${describeCall(input.tool, args)} (failMode "open")`);
          reporter.toast("warning", "Cupcake check failed (allowed)", msg);
          return;
        }
        reporter.log("error", `${msg} — blocking the ${describeCall(input.tool, args)} (failMode "closed")`);
        reporter.toast("error", "Cupcake check failed (blocked)", msg);
        throw new Error(failClosedMessage(input.tool, args, msg));
      }
      reporter.log("debug", `PreToolUse ${input.tool}: ${d.decision}${d.rule_ids ? ` ${d.rule_ids.join(",")}` : ""}`);
      const rewrite = (dec) => {
        if (dec.updated_args === void 0) return;
        if (isArgs(output.args)) {
          applyArgsInPlace(output.args, dec.updated_args);
          reporter.log("info", `rewrote the ${input.tool} call's args: ${JSON.stringify(dec.updated_args)}`);
        } else {
          reporter.log("warn", `cannot rewrite the ${input.tool} call's args: OpenCode passed no args object`);
        }
      };
      const decided = { ...seen, ...d.updated_args };
      const asMade = seen;
      switch (d.decision) {
        case "allow":
          rewrite(d);
          native?.track(input.callID, input.tool, "allow", decided, (why) => unmatchedMessage(input.tool, asMade, why));
          rememberContext(input.sessionID, d);
          return;
        case "ask":
          if (config.askMode !== "deny") rewrite(d);
          if (config.askMode === "allow") {
            reporter.log("warn", `approval requested (${d.reason ?? "no reason"}) — allowed by askMode "allow"`);
            reporter.toast("warning", "Cupcake: approval requested (allowed)", d.reason ?? describeCall(input.tool, asMade));
            rememberContext(input.sessionID, d);
            return;
          }
          if (native !== void 0) {
            const notNative = native.unroutable(input.tool);
            if (notNative === void 0) {
              native.track(input.callID, input.tool, "ask", decided, (why) => askMessage(input.tool, asMade, d, why));
              reporter.log("info", `approval requested (${d.reason ?? "no reason"}) — left to OpenCode's prompt`);
              reporter.toast("warning", "Cupcake: approve or reject in OpenCode's prompt", d.reason ?? describeCall(input.tool, asMade));
              return;
            }
            reporter.log("info", `askMode "native" cannot use OpenCode's prompt: ${notNative}`);
            reporter.toast("warning", "Cupcake: approval required", d.reason ?? describeCall(input.tool, asMade));
            throw new Error(askMessage(input.tool, asMade, d, notNative));
          }
          reporter.toast("warning", "Cupcake: approval required", d.reason ?? describeCall(input.tool, asMade));
          throw new Error(askMessage(input.tool, asMade, d));
        case "deny":
        case "block":
          reporter.toast("error", "Cupcake blocked a tool call", d.reason ?? describeCall(input.tool, args));
          throw new Error(denyMessage(input.tool, args, d));
      }
    },
    "tool.execute.after": async (input, output) => {
      native?.finish(input.callID);
      const args = isArgs(input.args) ? input.args : {};
      const event = makeEvent("PostToolUse", input, args);
      event.result = { title: output.title, output: output.output, metadata: output.metadata, success: true };
      const append = (text2) => {
        output.output = `${typeof output.output === "string" ? output.output : String(output.output ?? "")}${text2}`;
      };
      let d;
      try {
        d = await run(config, directory, event);
      } catch (err) {
        const msg = errorText(err);
        if (config.failMode === "open") {
          reporter.log("warn", `${msg} — post-run check of ${input.tool} skipped (failMode "open")`);
          return;
        }
        reporter.log("error", `${msg} — post-run check of ${input.tool} failed`);
        reporter.toast("error", "Cupcake post-run check failed", msg);
        append(postFailure(input.tool, msg));
        return;
      }
      reporter.log("debug", `PostToolUse ${input.tool}: ${d.decision}`);
      if (d.decision === "allow") {
        if (d.context && d.context.length > 0) {
          append(postContext(d.context));
          rememberContext(input.sessionID, d);
        }
        return;
      }
      reporter.toast("warning", "Cupcake policy feedback", d.reason ?? input.tool);
      append(postFeedback(input.tool, d));
    },
    "experimental.chat.system.transform": async (input, output) => {
      const items = context.get(input.sessionID);
      if (items.length > 0) output.system.push(contextBlock(items));
    },
    event: async ({ event }) => {
      const lc = lifecycleFromBus(event, directory);
      if (lc !== void 0) sendLifecycle(config, directory, lc, reporter);
      await native?.onEvent(event);
    },
    ...native === void 0 ? {} : {
      config: async (merged) => native.configure(merged),
      // After OpenCode's permission request, before the shell starts: the last point a routed bash call can
      // be stopped when OpenCode did not ask (src/native.ts).
      "shell.env": async (input, output) => {
        const blocked = native.gate(input.callID ?? "");
        if (blocked !== void 0) {
          reporter.toast("error", "Cupcake blocked a tool call", "OpenCode did not ask for a call that needs approval");
          throw new Error(blocked);
        }
        if (process.env.OPENCODE_SERVER_PASSWORD !== void 0) output.env.OPENCODE_SERVER_PASSWORD = "";
      }
    },
    "experimental.session.compacting": async (input, output) => {
      sendLifecycle(config, directory, { session_id: input.sessionID, event: "compacted", cwd: directory }, reporter);
      const items = context.get(input.sessionID);
      if (items.length > 0) output.context.push(contextBlock(items));
    }
  };
}

// src/native.ts
import { isAbsolute as isAbsolute2, join as join2, relative, resolve as resolve2 } from "node:path";
var ASKING_TOOLS = Object.freeze({
  bash: "bash",
  edit: "edit",
  write: "edit",
  read: "read"
});
var MAX_TRACKED = 512;
var text = (v) => typeof v === "string" ? v : void 0;
var filePath = (args) => text(args.filePath);
var SUBJECTS = Object.freeze({
  bash: {
    call: (args) => text(args.command),
    request: (req) => isRecord(req.metadata) ? text(req.metadata.command) : void 0
  },
  edit: {
    call: (args, at) => {
      const path = filePath(args);
      return path === void 0 ? void 0 : isAbsolute2(path) ? path : join2(at.directory, path);
    },
    request: (req) => isRecord(req.metadata) ? text(req.metadata.filepath) : void 0
  },
  read: {
    call: (args, at) => {
      const path = filePath(args);
      return path === void 0 ? void 0 : relative(at.worktree, isAbsolute2(path) ? path : resolve2(at.directory, path));
    },
    request: (req) => Array.isArray(req.patterns) && req.patterns.length === 1 ? text(req.patterns[0]) : void 0
  }
});
var isRecord = (v) => typeof v === "object" && v !== null && !Array.isArray(v);
function asksAlways(value) {
  if (value === "ask") return true;
  if (!isRecord(value)) return false;
  const actions = Object.values(value);
  return Object.hasOwn(value, "*") && actions.length > 0 && actions.every((a) => a === "ask");
}
function asBlock(permission) {
  if (typeof permission === "string") return { "*": permission };
  return isRecord(permission) ? permission : {};
}
function askedKeys(config) {
  const root = isRecord(config) ? config : {};
  const top = asBlock(root.permission);
  const agents = isRecord(root.agent) ? Object.values(root.agent) : [];
  const keys = /* @__PURE__ */ new Set();
  for (const key of new Set(Object.values(ASKING_TOOLS))) {
    const value = Object.hasOwn(top, key) ? top[key] : top["*"];
    if (!asksAlways(value)) continue;
    const overridden = agents.some((agent) => {
      const block = asBlock(isRecord(agent) ? agent.permission : void 0);
      return [key, "*"].some((k) => Object.hasOwn(block, k) && !asksAlways(block[k]));
    });
    if (!overridden) keys.add(key);
  }
  return keys;
}
function isRunCommand(argv) {
  return argv.slice(2).includes("run");
}
function replyWith(client) {
  return async (sessionID, requestID, response) => {
    const fn = isRecord(client) ? client.postSessionIdPermissionsPermissionId : void 0;
    if (typeof fn !== "function") return false;
    const res = await fn.call(client, { path: { id: sessionID, permissionID: requestID }, body: { response } });
    return isRecord(res) && res.error === void 0 && (!isRecord(res.response) || res.response.ok !== false);
  };
}
var NativeAsk = class {
  // tools native routing was turned off for
  constructor(reply, reporter, interactive, place) {
    this.reply = reply;
    this.reporter = reporter;
    this.interactive = interactive;
    this.place = place;
  }
  reply;
  reporter;
  interactive;
  place;
  keys = /* @__PURE__ */ new Set();
  calls = /* @__PURE__ */ new Map();
  // by callID
  requests = /* @__PURE__ */ new Map();
  // OpenCode requestID → callID
  alwaysGiven = /* @__PURE__ */ new Set();
  // permissions the user answered "Allow always" for
  awaitingUser = /* @__PURE__ */ new Map();
  // requestID → sessionID: asked calls not answered yet
  off = /* @__PURE__ */ new Set();
  /** Read OpenCode's merged config (the `config` hook). */
  configure(config) {
    this.keys = askedKeys(config);
    if (!this.interactive) {
      this.reporter.log("info", `askMode "native" is off in opencode run: asks are blocked`);
    } else if (this.keys.size === 0) {
      const how = `set "permission": {"bash": "ask", "edit": "ask", "read": "ask"} (any of them) in opencode.json`;
      this.reporter.log("warn", `askMode "native": OpenCode asks before none of ${Object.keys(ASKING_TOOLS).join(", ")}, so every ask is blocked; ${how}`);
      this.reporter.toast("warning", "Cupcake: askMode native has no effect", `OpenCode's permissions never ask; ${how}`);
    } else {
      this.reporter.log("info", `askMode "native": OpenCode's prompt is used for ${[...this.keys].sort().join(", ")}`);
    }
  }
  /** Why an `ask` for this tool cannot go to OpenCode's prompt, or undefined when it can. */
  unroutable(tool) {
    if (!this.interactive) return "opencode run rejects every approval request by itself";
    const permission = ASKING_TOOLS[tool];
    if (permission === void 0) return `OpenCode's ${tool} tool does not ask for permission on every call`;
    if (this.off.has(tool)) return `an earlier ${tool} call needed approval but ran without OpenCode asking`;
    if (permission !== "bash" && this.alwaysGiven.has(permission)) {
      return `after an "Allow always" for ${permission}, OpenCode approves such calls without asking until it restarts`;
    }
    if (!this.keys.has(permission)) {
      return `OpenCode asks before ${tool} calls only with "permission": {"${permission}": "ask"} in opencode.json (for every agent)`;
    }
    return void 0;
  }
  /** Track a call the policies allowed or asked about (tool.execute.before, `args` as cupcake left them), for
   *  OpenCode's coming request. `blocked` gives the message that stops the call when it may not run. */
  track(callID, tool, want, args, blocked) {
    const permission = ASKING_TOOLS[tool];
    if (!this.interactive || permission === void 0 || !this.keys.has(permission) || callID === "") return;
    const subject = SUBJECTS[permission]?.call(args, this.place);
    const known = this.calls.get(callID);
    if (known !== void 0) {
      if (want === "ask" || known.want === "allow") known.blocked = blocked;
      known.want = known.want === "ask" || want === "ask" ? "ask" : "allow";
      known.subjects.add(subject);
      known.approved = false;
      known.shared = true;
      return;
    }
    this.calls.set(callID, { tool, permission, want, subjects: /* @__PURE__ */ new Set([subject]), approved: false, mismatched: false, blocked, shared: false });
    while (this.calls.size > MAX_TRACKED) {
      const oldest = this.calls.keys().next().value;
      this.calls.delete(oldest);
    }
  }
  /** OpenCode's bus events: answer requests for allowed calls, note the user's answers to the others. */
  async onEvent(event) {
    if (!isRecord(event) || !isRecord(event.properties)) return;
    const p = event.properties;
    const idle = event.type === "session.idle" || event.type === "session.status" && isRecord(p.status) && p.status.type === "idle";
    if (idle && typeof p.sessionID === "string") {
      for (const [requestID, sessionID] of this.awaitingUser) if (sessionID === p.sessionID) this.awaitingUser.delete(requestID);
      return;
    }
    if (event.type === "permission.asked") {
      const callID = isRecord(p.tool) && typeof p.tool.callID === "string" ? p.tool.callID : void 0;
      const call = callID === void 0 ? void 0 : this.calls.get(callID);
      if (call === void 0 || p.permission !== call.permission || typeof p.id !== "string") return;
      const about = SUBJECTS[call.permission]?.request(p);
      if (about === void 0 || !call.subjects.has(about)) {
        await this.refuse(call, callID, p.id, p.sessionID, about);
        return;
      }
      this.requests.set(p.id, callID);
      while (this.requests.size > MAX_TRACKED) this.requests.delete(this.requests.keys().next().value);
      if (call.want === "ask") {
        if (typeof p.sessionID === "string") this.awaitingUser.set(p.id, p.sessionID);
        return;
      }
      if (typeof p.sessionID !== "string") return;
      if (this.awaitingUser.size > 0) {
        this.reporter.log("info", `OpenCode's request ${p.id} for an allowed ${call.tool} call is left to the user: another request is waiting for the user's answer`);
        return;
      }
      let answered = false;
      const t0 = Date.now();
      try {
        answered = await this.reply(p.sessionID, p.id, "once");
        if (answered) this.reporter.log("debug", `answered OpenCode's request ${p.id} for the allowed ${call.tool} call in ${Date.now() - t0} ms`);
      } catch (err) {
        this.reporter.log("warn", `could not answer OpenCode's request ${p.id}: ${err instanceof Error ? err.message : String(err)}`);
      }
      if (!answered) this.reporter.log("warn", `OpenCode's request ${p.id} for an allowed ${call.tool} call is left to the user`);
      return;
    }
    if (event.type === "permission.replied" && typeof p.requestID === "string") {
      const callID = this.requests.get(p.requestID);
      this.requests.delete(p.requestID);
      this.awaitingUser.delete(p.requestID);
      const call = callID === void 0 ? void 0 : this.calls.get(callID);
      if (call === void 0 || call.mismatched) return;
      if (p.reply === "once" || p.reply === "always") call.approved = true;
      if (p.reply === "always" && call.want === "ask") {
        this.alwaysGiven.add(call.permission);
        this.reporter.log("warn", `"Allow always" was given for a ${call.tool} call a policy asks about: until OpenCode restarts it approves matching ${call.permission} calls without asking, so cupcake blocks the ${call.permission} calls it would have asked about`);
      }
    }
  }
  /** A request about something cupcake did not decide: rejected (fail closed), never approved by the plugin, and
   *  a bash call is also stopped in shell.env should the rejection not get through. */
  async refuse(call, callID, requestID, sessionID, about) {
    call.mismatched = true;
    call.approved = false;
    const seen = about === void 0 ? "nothing cupcake can compare" : JSON.stringify(about.slice(0, 300));
    this.reporter.log("error", `OpenCode's request ${requestID} for ${call.tool} call ${callID} is about ${seen}, not what cupcake decided (${[...call.subjects].map((s) => JSON.stringify(s?.slice(0, 300))).join(" or ")}): rejecting it`);
    this.reporter.toast("error", "Cupcake rejected a permission request", `OpenCode asked about a different ${call.tool} call than cupcake checked`);
    let rejected = false;
    try {
      rejected = typeof sessionID === "string" && await this.reply(sessionID, requestID, "reject");
    } catch (err) {
      this.reporter.log("warn", `could not reject OpenCode's request ${requestID}: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (!rejected) this.reporter.log("warn", `OpenCode's request ${requestID} could not be rejected: it waits for the user; a bash call is stopped before its shell starts`);
  }
  /** shell.env (after OpenCode's request, before the shell starts): the message blocking a routed bash call
   *  that was not approved or whose request was about another command, or undefined when it may run. */
  gate(callID) {
    const call = this.calls.get(callID);
    if (call?.mismatched === true) {
      return call.blocked("OpenCode asked for permission to run a different command than the one cupcake checked");
    }
    if (call === void 0 || call.want !== "ask" || call.approved) return void 0;
    if (!call.shared) this.calls.delete(callID);
    return call.blocked(
      this.alwaysGiven.has(call.permission) ? `OpenCode did not ask: an earlier "Allow always" covers this call, and the policy asks about each one` : "OpenCode did not ask: it never asks about a command without command words"
    );
  }
  /** tool.execute.after: a routed call that ran unapproved turns routing off for its tool. */
  finish(callID) {
    const call = this.calls.get(callID);
    if (call !== void 0 && !call.shared) this.calls.delete(callID);
    if (call === void 0 || call.want !== "ask" && !call.mismatched || call.approved) return;
    this.off.add(call.tool);
    if (call.mismatched) {
      this.reporter.log("error", `${call.tool} call ${callID} ran although OpenCode's request for it was about something else than cupcake checked (the rejection did not get through); from now on ${call.tool} calls a policy asks about are blocked instead`);
      this.reporter.toast("error", "Cupcake: a call ran without approval", `${call.tool} call ${callID} ran on a request cupcake rejected`);
      return;
    }
    const why = this.alwaysGiven.has(call.permission) ? ` (an earlier "Allow always" covered it)` : "";
    this.reporter.log("error", `${call.tool} call ${callID} needed approval but ran without OpenCode asking${why}; from now on ${call.tool} calls a policy asks about are blocked instead`);
    this.reporter.toast("error", "Cupcake: a call ran without approval", `OpenCode did not ask for ${call.tool} call ${callID}${why}`);
  }
};

// src/reporter.ts
var ORDER = { debug: 0, info: 1, warn: 2, error: 3 };
var SERVICE = "cupcake";
function method(client, group, name) {
  if (typeof client !== "object" || client === null) return void 0;
  const owner = client[group];
  if (typeof owner !== "object" || owner === null) return void 0;
  const fn = owner[name];
  return typeof fn === "function" ? fn.bind(owner) : void 0;
}
function swallow(value) {
  if (value instanceof Promise) value.catch(() => void 0);
}
var Reporter = class {
  constructor(client, level, toasts) {
    this.client = client;
    this.level = level;
    this.toasts = toasts;
  }
  client;
  level;
  toasts;
  once = /* @__PURE__ */ new Set();
  configure(level, toasts) {
    this.level = level;
    this.toasts = toasts;
  }
  /**
   * Messages at or above the configured level go to the console (stderr) as `[cupcake] LEVEL: msg`.
   * Every message also goes to OpenCode's own log via the client when it is available.
   */
  log(level, message, extra) {
    const log = method(this.client, "app", "log");
    if (log !== void 0) {
      try {
        swallow(log({ body: { service: SERVICE, level, message, ...extra ? { extra } : {} } }));
      } catch {
      }
    }
    if (ORDER[level] >= ORDER[this.level]) console.error(`[cupcake] ${level.toUpperCase()}: ${message}`);
  }
  /** Log a message only the first time this key is seen. */
  logOnce(key, level, message) {
    if (this.once.has(key)) return;
    this.once.add(key);
    this.log(level, message);
  }
  toast(variant, title, message) {
    if (!this.toasts) return;
    const show = method(this.client, "tui", "showToast");
    if (show === void 0) return;
    try {
      swallow(show({ body: { title, message: message.slice(0, 500), variant, duration: 5e3 } }));
    } catch {
    }
  }
};

// src/server.ts
import { spawn as spawn2 } from "node:child_process";
var MAX_LINE = 4 * 1024 * 1024;
var ServerFailure = class extends Error {
};
function serveArgs(config) {
  const args = ["serve", "--stdio", "--timeout", String(Math.max(0.1, (config.timeoutMs - 250) / 1e3))];
  if (config.policyDir !== void 0) args.push("--policy-dir", config.policyDir);
  return args;
}
var ServeClient = class {
  constructor(config, directory, notify = () => void 0) {
    this.config = config;
    this.directory = directory;
    this.notify = notify;
  }
  config;
  directory;
  notify;
  child;
  pending = /* @__PURE__ */ new Map();
  nextId = 1;
  buffered = "";
  /** Servers started so far (1 = no restart yet). */
  starts = 0;
  /** The decision of the server; rejects with ServerFailure when the server could not give one. */
  ask(event) {
    const child = this.child ?? this.start();
    const id = this.nextId++;
    return new Promise((resolve3, reject) => {
      const timer = setTimeout(
        () => this.fail(`cupcake serve did not answer within ${this.config.timeoutMs} ms; restarting it`),
        this.config.timeoutMs
      );
      this.pending.set(id, { resolve: resolve3, reject, timer });
      const line = `${JSON.stringify({ id, harness: "opencode", event })}
`;
      child.stdin?.write(line, (err) => {
        if (err) this.fail(`cannot write to cupcake serve: ${err.message}`);
      });
    });
  }
  /** Stop the server (pending calls fall back to spawns). */
  close() {
    this.fail("the plugin is shutting down", false);
  }
  get pid() {
    return this.child?.pid;
  }
  start() {
    this.starts++;
    this.buffered = "";
    const child = spawn2(this.config.cupcakePath, serveArgs(this.config), {
      cwd: this.directory,
      detached: !TREE_KILL,
      stdio: ["pipe", "pipe", "pipe"]
    });
    this.child = child;
    child.unref();
    let stderr = "";
    child.stdout?.setEncoding("utf8");
    child.stdout?.on("data", (chunk) => {
      if (this.child === child) this.receive(chunk);
    });
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (chunk) => {
      if (stderr.length < 4096) stderr += chunk;
    });
    const gone = (why) => {
      if (this.child === child) this.fail(`cupcake serve ${why}${stderr.trim() ? `: ${clip(stderr, 300)}` : ""}`);
    };
    child.on("error", (e) => gone(`could not run: ${e.message}`));
    child.on("exit", (code, signal) => gone(signal !== null ? `was killed by ${signal}` : `exited with status ${code}`));
    child.stdin?.on("error", () => gone("closed its input"));
    for (const stream of [child.stdin, child.stdout, child.stderr]) {
      stream?.unref?.();
    }
    return child;
  }
  receive(chunk) {
    this.buffered += chunk;
    if (this.buffered.length > MAX_LINE && !this.buffered.includes("\n")) {
      this.fail(`cupcake serve printed a line longer than ${MAX_LINE} bytes`);
      return;
    }
    let nl;
    while ((nl = this.buffered.indexOf("\n")) >= 0) {
      const line = this.buffered.slice(0, nl);
      this.buffered = this.buffered.slice(nl + 1);
      if (line.trim() !== "") this.answer(line);
      if (this.child === void 0) return;
    }
  }
  answer(line) {
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      this.fail(`cupcake serve printed a line that is not JSON: ${JSON.stringify(clip(line))}`);
      return;
    }
    const { id, exit_code: code, response } = msg ?? {};
    const waiting = typeof id === "number" ? this.pending.get(id) : void 0;
    if (waiting === void 0 || typeof code !== "number") {
      this.fail(`cupcake serve answered an unknown request: ${clip(line)}`);
      return;
    }
    this.pending.delete(id);
    clearTimeout(waiting.timer);
    try {
      waiting.resolve(interpretResult({ code, signal: null, stdout: JSON.stringify(response), stderr: "" }));
    } catch (err) {
      waiting.reject(err);
    }
  }
  /** Kill the server and everything it started; every call in flight gets a ServerFailure. */
  fail(why, notify = true) {
    const child = this.child;
    this.child = void 0;
    if (child !== void 0) {
      killAll(child);
      child.stdin?.destroy();
      if (notify) this.notify(why);
    }
    const waiting = [...this.pending.values()];
    this.pending.clear();
    for (const p of waiting) {
      clearTimeout(p.timer);
      p.reject(new ServerFailure(why));
    }
  }
};
function serveEvaluator(client, spawnEval = evaluate) {
  return async (config, directory, event) => {
    try {
      return await client.ask(event);
    } catch (err) {
      if (!(err instanceof ServerFailure)) throw err instanceof CupcakeError ? err : new CupcakeError(String(err));
      return spawnEval(config, directory, event);
    }
  };
}

// src/index.ts
var CupcakePlugin = async ({ client, directory, worktree }, options) => {
  const { config, problems } = loadConfig(directory, options);
  const reporter = new Reporter(client, config.logLevel, config.showToasts);
  for (const problem of problems) reporter.log("warn", `config: ${problem}`);
  if (problems.length > 0) {
    reporter.toast("warning", "Cupcake config problems", `${problems.length} problem(s) in ${CONFIG_FILE}; see the log`);
  }
  if (!config.enabled) {
    reporter.log("info", `disabled ("enabled": false in ${CONFIG_FILE}); tool calls are NOT checked`);
    return {};
  }
  selfTest(config, directory).then(
    (version) => reporter.log("info", `self-test ok: ${version} (${config.cupcakePath}; failMode ${config.failMode})`),
    (err) => {
      reporter.log("error", `self-test failed: ${err.message}`);
      reporter.toast("error", "Cupcake is not working", err.message);
    }
  );
  const native = config.askMode === "native" ? new NativeAsk(replyWith(client), reporter, !isRunCommand(process.argv), { directory, worktree: worktree || directory }) : void 0;
  const deps = { config, directory, reporter, context: new SessionContext(), native };
  if (config.mode === "spawn") return createHooks(deps);
  const server = new ServeClient(config, directory, (why) => reporter.log("warn", `${why} (the calls in flight are spawned)`));
  return { ...createHooks(deps, serveEvaluator(server)), dispose: async () => server.close() };
};
export {
  CupcakePlugin
};
