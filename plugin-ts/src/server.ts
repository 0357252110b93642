// Serve mode ("mode": "serve" in .cupcake/opencode.json): one long-lived `cupcake serve --stdio` answers every
// tool call over JSON lines, so a decision costs no process start. Requests are pipelined (written without waiting;
// answers are matched by id). A server that crashes, prints something unreadable or misses a call's deadline is
// killed with everything it started; every call in flight then falls back to a one-shot `cupcake eval` spawn
// (fail closed if that fails too), and the next call starts a new server.
import { spawn, type ChildProcess } from "node:child_process";
import type { PluginConfig } from "./config.js";
import { clip, CupcakeError, type Decision, type HookEvent } from "./protocol.js";
import { evaluate, interpretResult, killAll, TREE_KILL } from "./runner.js";

export type Evaluate = (config: PluginConfig, directory: string, event: HookEvent) => Promise<Decision>;
export type Notify = (message: string) => void;

const MAX_LINE = 4 * 1024 * 1024;

interface Pending {
  resolve: (d: Decision) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
}

/** Why the server could not answer a call (the caller falls back to a spawn). */
export class ServerFailure extends Error {}

export function serveArgs(config: PluginConfig): string[] {
  const args = ["serve", "--stdio", "--timeout", String(Math.max(0.1, (config.timeoutMs - 250) / 1000))];
  if (config.policyDir !== undefined) args.push("--policy-dir", config.policyDir);
  return args;
}

/** One `cupcake serve --stdio` process and the calls waiting for it. */
export class ServeClient {
  private child: ChildProcess | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private buffered = "";
  /** Servers started so far (1 = no restart yet). */
  starts = 0;

  constructor(
    private readonly config: PluginConfig,
    private readonly directory: string,
    private readonly notify: Notify = () => undefined,
  ) {}

  /** The decision of the server; rejects with ServerFailure when the server could not give one. */
  ask(event: HookEvent): Promise<Decision> {
    const child = this.child ?? this.start();
    const id = this.nextId++;
    return new Promise<Decision>((resolve, reject) => {
      const timer = setTimeout(
        () => this.fail(`cupcake serve did not answer within ${this.config.timeoutMs} ms; restarting it`),
        this.config.timeoutMs,
      );
      this.pending.set(id, { resolve, reject, timer });
      const line = `${JSON.stringify({ id, harness: "opencode", event })}\n`;
      child.stdin?.write(line, (err) => {
        if (err) this.fail(`cannot write to cupcake serve: ${err.message}`);
      });
    });
  }

  /** Stop the server (pending calls fall back to spawns). */
  close(): void {
    this.fail("the plugin is shutting down", false);
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  private start(): ChildProcess {
    this.starts++;
    this.buffered = "";
    const child = spawn(this.config.cupcakePath, serveArgs(this.config), {
      cwd: this.directory,
      detached: !TREE_KILL,
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.child = child;
    child.unref(); // a server never keeps OpenCode (or a test run) alive; EOF on its stdin ends it
    let stderr = "";
    child.stdout?.setEncoding("utf8");
    child.stdout?.on("data", (chunk: string) => {
      if (this.child === child) this.receive(chunk);
    });
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (chunk: string) => {
      if (stderr.length < 4096) stderr += chunk;
    });
    const gone = (why: string): void => {
      if (this.child === child) this.fail(`cupcake serve ${why}${stderr.trim() ? `: ${clip(stderr, 300)}` : ""}`);
    };
    child.on("error", (e) => gone(`could not run: ${e.message}`));
    child.on("exit", (code, signal) => gone(signal !== null ? `was killed by ${signal}` : `exited with status ${code}`));
    child.stdin?.on("error", () => gone("closed its input"));
    for (const stream of [child.stdin, child.stdout, child.stderr]) {
      (stream as unknown as { unref?: () => void } | null)?.unref?.();
    }
    return child;
  }

  private receive(chunk: string): void {
    this.buffered += chunk;
    if (this.buffered.length > MAX_LINE && !this.buffered.includes("\n")) {
      this.fail(`cupcake serve printed a line longer than ${MAX_LINE} bytes`);
      return;
    }
    let nl: number;
    while ((nl = this.buffered.indexOf("\n")) >= 0) {
      const line = this.buffered.slice(0, nl);
      this.buffered = this.buffered.slice(nl + 1);
      if (line.trim() !== "") this.answer(line);
      if (this.child === undefined) return;
    }
  }

  private answer(line: string): void {
    let msg: unknown;
    try {
      msg = JSON.parse(line);
    } catch {
      this.fail(`cupcake serve printed a line that is not JSON: ${JSON.stringify(clip(line))}`);
      return;
    }
    const { id, exit_code: code, response } = (msg ?? {}) as { id?: unknown; exit_code?: unknown; response?: unknown };
    const waiting = typeof id === "number" ? this.pending.get(id) : undefined;
    if (waiting === undefined || typeof code !== "number") {
      this.fail(`cupcake serve answered an unknown request: ${clip(line)}`);
      return;
    }
    this.pending.delete(id as number);
    clearTimeout(waiting.timer);
    try {
      waiting.resolve(interpretResult({ code, signal: null, stdout: JSON.stringify(response), stderr: "" }));
    } catch (err) {
      waiting.reject(err as Error); // a well-formed fail-closed answer (engine error, bad decision): no fallback
    }
  }

  /** Kill the server and everything it started; every call in flight gets a ServerFailure. */
  private fail(why: string, notify = true): void {
    const child = this.child;
    this.child = undefined;
    if (child !== undefined) {
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
}

/**
 * The hooks' evaluate function in serve mode: the server's decision, or, when the server failed, a one-shot spawn
 * of `cupcake eval` for that call (its own failure is the CupcakeError that fails closed).
 */
export function serveEvaluator(client: ServeClient, spawnEval: Evaluate = evaluate): Evaluate {
  return async (config, directory, event) => {
    try {
      return await client.ask(event);
    } catch (err) {
      if (!(err instanceof ServerFailure)) throw err instanceof CupcakeError ? err : new CupcakeError(String(err));
      return spawnEval(config, directory, event);
    }
  };
}
