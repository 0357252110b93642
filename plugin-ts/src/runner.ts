// Spawning cupcake: a hard timeout that kills cupcake and everything it started, bounded output capture.
import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import type { PluginConfig } from "./config.js";
import { clip, CupcakeError, parseDecision, type Decision, type HookEvent } from "./protocol.js";

const MAX_STDOUT = 4 * 1024 * 1024;
const MAX_STDERR = 16 * 1024;

/**
 * How a timed-out cupcake is killed. On Linux: cupcake is spawned like any child and its whole process TREE is
 * killed (found through /proc), which also reaches helpers that left its process group (cupcake's shell signals
 * run in their own sessions). Elsewhere: cupcake is spawned as a new session / process-group leader and the
 * group is killed. The tree kill also keeps every call cheap: a new session costs 2-10 ms per spawn on a busy
 * Linux box (measured by bench/overhead.mjs), which is more than the rest of the plugin's work.
 */
export const TREE_KILL = process.platform === "linux";

export interface ProcessResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunSpec {
  command: string;
  args: string[];
  cwd: string;
  stdin: string;
  timeoutMs: number;
}

function send(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

/** ppid → pids of its children, from /proc/<pid>/stat ("pid (comm) state ppid …"; comm may hold spaces). */
function childrenByParent(): Map<number, number[]> {
  const map = new Map<number, number[]>();
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return map;
  }
  for (const name of names) {
    if (name.charCodeAt(0) < 48 || name.charCodeAt(0) > 57) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, "utf8");
    } catch {
      continue; // exited meanwhile
    }
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    const kids = map.get(ppid);
    if (kids === undefined) map.set(ppid, [Number(name)]);
    else kids.push(Number(name));
  }
  return map;
}

/** SIGKILL `root` and all its descendants. Each one found is stopped first so none forks past the walk; the walk
 * repeats until it finds nothing new. */
function killTree(root: number): void {
  const found = new Set<number>([root]);
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

export function killAll(child: ChildProcess): void {
  const pid = child.pid;
  if (pid === undefined) return;
  if (TREE_KILL) {
    // Once cupcake has exited (and been reaped) its pid may be reused and its children belong to init: nothing of
    // its tree can be reached any more.
    if (child.exitCode === null && child.signalCode === null) killTree(pid);
    return;
  }
  try {
    process.kill(-pid, "SIGKILL"); // negative pid = the whole process group (detached: true made the child its leader)
  } catch {
    send(pid, "SIGKILL");
  }
}

function spawnFailure(command: string, err: NodeJS.ErrnoException): CupcakeError {
  if (err.code === "ENOENT") {
    return new CupcakeError(
      `cannot run "${command}": not found (install cupcake-py so "cupcake" is on PATH, or set "cupcakePath" in .cupcake/opencode.json)`,
    );
  }
  if (err.code === "EACCES") return new CupcakeError(`cannot run "${command}": permission denied (is it executable?)`);
  return new CupcakeError(`cannot run "${command}": ${err.message}`);
}

/** Run one process to completion. Rejects with CupcakeError on spawn failure, timeout or oversized output. */
export function runProcess(spec: RunSpec): Promise<ProcessResult> {
  return new Promise((resolvePromise, reject) => {
    let settled = false;
    const finish = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
    };
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(spec.command, spec.args, { cwd: spec.cwd, detached: !TREE_KILL, stdio: ["pipe", "pipe", "pipe"] });
    } catch (err) {
      reject(spawnFailure(spec.command, err as NodeJS.ErrnoException));
      return;
    }
    const timer = setTimeout(() => {
      killAll(child);
      finish(() => reject(new CupcakeError(`"${spec.command} ${spec.args.join(" ")}" timed out after ${spec.timeoutMs} ms and was killed`)));
    }, spec.timeoutMs);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outBytes = 0;
    let errBytes = 0;
    child.stdout?.on("data", (chunk: Buffer) => {
      outBytes += chunk.length;
      if (outBytes > MAX_STDOUT) {
        killAll(child);
        finish(() => reject(new CupcakeError(`stdout exceeded ${MAX_STDOUT} bytes; process killed`)));
        return;
      }
      out.push(chunk);
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      if (errBytes < MAX_STDERR) err.push(chunk);
      errBytes += chunk.length;
    });
    child.on("error", (e: NodeJS.ErrnoException) => finish(() => reject(spawnFailure(spec.command, e))));
    child.on("close", (code, signal) =>
      finish(() =>
        resolvePromise({
          code,
          signal,
          stdout: Buffer.concat(out).toString("utf8"),
          stderr: Buffer.concat(err).toString("utf8"),
        }),
      ),
    );
    child.stdin?.on("error", () => {
      // The child may exit without reading stdin (EPIPE); its exit status tells what happened.
    });
    child.stdin?.end(spec.stdin);
  });
}

function describeFailure(res: ProcessResult): string {
  const status = res.signal !== null ? `was killed by ${res.signal}` : `exited with status ${res.code}`;
  const stderr = clip(res.stderr, 400);
  return stderr === "" ? status : `${status}: ${stderr}`;
}

/**
 * Exit-status contract: 0 = decision printed; 1 = deny/block under --strict (decision printed);
 * 2 = fail-closed engine error (stdout carries a deny whose reason starts with "cupcake: ").
 */
export function interpretResult(res: ProcessResult): Decision {
  if (res.code === 0) return parseDecision(res.stdout);
  if (res.code === 1) {
    let decision: Decision | undefined;
    try {
      decision = parseDecision(res.stdout);
    } catch {
      decision = undefined;
    }
    if (decision !== undefined && (decision.decision === "deny" || decision.decision === "block")) return decision;
  }
  if (res.code === 2) {
    let reason: string | undefined;
    try {
      reason = parseDecision(res.stdout).reason;
    } catch {
      reason = undefined;
    }
    if (reason !== undefined && reason.trim() !== "") {
      throw new CupcakeError(`engine error: ${reason.replace(/^cupcake:\s*/, "")}`);
    }
  }
  throw new CupcakeError(`eval ${describeFailure(res)}`);
}

export function evalArgs(config: PluginConfig): string[] {
  const args = ["eval", "--harness", "opencode"];
  if (config.policyDir !== undefined) args.push("--policy-dir", config.policyDir);
  return args;
}

export async function evaluate(config: PluginConfig, directory: string, event: HookEvent): Promise<Decision> {
  const res = await runProcess({
    command: config.cupcakePath,
    args: evalArgs(config),
    cwd: directory,
    stdin: `${JSON.stringify(event)}\n`,
    timeoutMs: config.timeoutMs,
  });
  return interpretResult(res);
}

/** `<cupcakePath> --version` → the version line; throws CupcakeError when the setup is broken. */
export async function selfTest(config: PluginConfig, directory: string): Promise<string> {
  const res = await runProcess({
    command: config.cupcakePath,
    args: ["--version"],
    cwd: directory,
    stdin: "",
    timeoutMs: config.timeoutMs,
  });
  if (res.code !== 0) throw new CupcakeError(`"${config.cupcakePath} --version" ${describeFailure(res)}`);
  const line = res.stdout.trim().split("\n")[0] ?? "";
  if (line === "") throw new CupcakeError(`"${config.cupcakePath} --version" printed nothing`);
  return line;
}
