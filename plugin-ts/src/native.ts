// askMode "native": OpenCode asks, cupcake answers.
//
// A plugin cannot make OpenCode show a prompt (docs/serve.md, "Ask and OpenCode's approval flow"), but OpenCode
// asks by itself before every call of a tool whose permission is "ask" in opencode.json, and the plugin sees
// that request (`permission.asked`, tied to the tool call by its callID) and may answer it. So for those tools:
//   - a call the policies allow: the plugin answers OpenCode's request "once" itself;
//   - a call the policies deny: blocked in tool.execute.before, OpenCode never asks;
//   - a call the policies ask about: the plugin leaves OpenCode's prompt to the user.
// Only calls OpenCode is sure to ask about are routed; every other `ask` is blocked as in askMode "deny":
//   - tools in ASKING_TOOLS only (built-in tools whose every call asks under an `ask` rule), and only when
//     the config makes their permission a plain "ask" for every agent (`askedKeys`);
//   - not in `opencode run`, which rejects every request by itself (unless --auto approves every one);
//   - bash skips its request for a command without command words (`x=1`), and an "Allow always" answer makes
//     OpenCode approve matching calls silently for the rest of the process. So the shell.env hook (which
//     runs after the request and before the shell starts) blocks a routed bash call that was not approved
//     (`gate`). The other tools have no such hook: after an "Allow always" for their permission their asks
//     are blocked up front, and a routed call that still ran unapproved turns routing off for its tool.
// A request is answered, or left to the user, only when it is about exactly what cupcake decided: the call id
// is tracked AND the request's subject (`SUBJECTS`: bash's command as cupcake left it, i.e. the sandbox
// launcher when the kernel floor rewrote the call; the file of an edit, write or read) equals the one of the
// args cupcake decided on. A mismatch (say, a plugin loaded after cupcake's changed the args) fails closed:
// the plugin rejects the request, and a bash call is also stopped in shell.env.
// With the floor, OpenCode's request for a bash call carries the launcher (`bwrap --args 3 -- /bin/bash -c
// '<command>' 3< …`), while its prompt draws the tool part's input, published before tool.execute.before ran:
// the user sees the command the model asked for, and the toast gives the policy's reason.
import { isAbsolute, join, relative, resolve } from "node:path";
import type { Reporter } from "./reporter.js";

/** Built-in tool → the permission its calls ask under (each verified against the pinned OpenCode by the e2e). */
export const ASKING_TOOLS: Readonly<Record<string, string>> = Object.freeze({
  bash: "bash",
  edit: "edit",
  write: "edit",
  read: "read",
});

/** How many calls are tracked at once; the oldest are forgotten first (a call that never finishes). */
const MAX_TRACKED = 512;

type Want = "allow" | "ask";

type Args = Record<string, unknown>;

/** Where OpenCode resolves file paths: the instance directory and the git worktree ("/" outside git). */
export interface Place {
  directory: string;
  worktree: string;
}

const text = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const filePath = (args: Args): string | undefined => text(args.filePath);

/** Per permission: the subject of a decided call (from its args) and of OpenCode's request for it, computed
 *  as the pinned OpenCode does (bash: `metadata.command` is the command it runs; edit and write:
 *  `metadata.filepath` is the file joined to the directory; read: the one pattern, relative to the worktree).
 *  undefined = unknown, which never matches. */
export const SUBJECTS: Readonly<Record<string, { call: (args: Args, at: Place) => string | undefined; request: (req: Args) => string | undefined }>> =
  Object.freeze({
    bash: {
      call: (args) => text(args.command),
      request: (req) => (isRecord(req.metadata) ? text(req.metadata.command) : undefined),
    },
    edit: {
      call: (args, at) => {
        const path = filePath(args);
        return path === undefined ? undefined : isAbsolute(path) ? path : join(at.directory, path);
      },
      request: (req) => (isRecord(req.metadata) ? text(req.metadata.filepath) : undefined),
    },
    read: {
      call: (args, at) => {
        const path = filePath(args);
        return path === undefined ? undefined : relative(at.worktree, isAbsolute(path) ? path : resolve(at.directory, path));
      },
      request: (req) => (Array.isArray(req.patterns) && req.patterns.length === 1 ? text(req.patterns[0]) : undefined),
    },
  });

interface Tracked {
  tool: string;
  permission: string;
  want: Want;
  /** What OpenCode's request for this call must be about (more than one only for a reused call id). */
  subjects: Set<string | undefined>;
  approved: boolean;
  /** OpenCode asked about something else than cupcake decided: the call is never approved by the plugin. */
  mismatched: boolean;
  /** The message that blocks the call, given why it may not run (not approved, or asked about something else). */
  blocked: (why: string) => string;
  /** The model chose this callID for more than one call: kept (strictest want) until evicted. */
  shared: boolean;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Whether a permission value from opencode.json asks for every pattern: "ask", or only "ask" rules including "*". */
function asksAlways(value: unknown): boolean {
  if (value === "ask") return true;
  if (!isRecord(value)) return false;
  const actions = Object.values(value);
  return Object.hasOwn(value, "*") && actions.length > 0 && actions.every((a) => a === "ask");
}

/** A permission block as {key: value}; the string form ("ask") stands for every key. */
function asBlock(permission: unknown): Record<string, unknown> {
  if (typeof permission === "string") return { "*": permission };
  return isRecord(permission) ? permission : {};
}

/**
 * The permissions OpenCode's merged config makes ask on every call, for every agent: the top-level rule for the
 * key (or for "*" when the key has none) asks always, and no agent sets the key or "*" to anything else.
 */
export function askedKeys(config: unknown): Set<string> {
  const root = isRecord(config) ? config : {};
  const top = asBlock(root.permission);
  const agents = isRecord(root.agent) ? Object.values(root.agent) : [];
  const keys = new Set<string>();
  for (const key of new Set(Object.values(ASKING_TOOLS))) {
    const value = Object.hasOwn(top, key) ? top[key] : top["*"];
    if (!asksAlways(value)) continue;
    const overridden = agents.some((agent) => {
      const block = asBlock(isRecord(agent) ? agent.permission : undefined);
      return [key, "*"].some((k) => Object.hasOwn(block, k) && !asksAlways(block[k]));
    });
    if (!overridden) keys.add(key);
  }
  return keys;
}

/** `opencode run`: non-interactive, every permission request is rejected (or, with --auto, approved) by OpenCode. */
export function isRunCommand(argv: readonly string[]): boolean {
  return argv.slice(2).includes("run");
}

/** Answers one OpenCode permission request ("once" or "reject"); resolves false when it could not be answered. */
export type Reply = (sessionID: string, requestID: string, response: "once" | "reject") => Promise<boolean>;

/** `client.postSessionIdPermissionsPermissionId` (the reply route OpenCode's own web client uses), looked up defensively. */
export function replyWith(client: unknown): Reply {
  return async (sessionID, requestID, response) => {
    const fn = isRecord(client) ? client.postSessionIdPermissionsPermissionId : undefined;
    if (typeof fn !== "function") return false;
    const res: unknown = await fn.call(client, { path: { id: sessionID, permissionID: requestID }, body: { response } });
    return isRecord(res) && res.error === undefined && (!isRecord(res.response) || res.response.ok !== false);
  };
}

export class NativeAsk {
  private keys = new Set<string>();
  private readonly calls = new Map<string, Tracked>(); // by callID
  private readonly requests = new Map<string, string>(); // OpenCode requestID → callID
  private readonly alwaysGiven = new Set<string>(); // permissions the user answered "Allow always" for
  private readonly awaitingUser = new Map<string, string>(); // requestID → sessionID: asked calls not answered yet
  private readonly off = new Set<string>(); // tools native routing was turned off for

  constructor(
    private readonly reply: Reply,
    private readonly reporter: Reporter,
    readonly interactive: boolean,
    private readonly place: Place,
  ) {}

  /** Read OpenCode's merged config (the `config` hook). */
  configure(config: unknown): void {
    this.keys = askedKeys(config);
    if (!this.interactive) {
      this.reporter.log("info", `askMode "native" is off in opencode run: asks are blocked`);
    } else if (this.keys.size === 0) {
      const how = `set "permission": {"bash": "ask", "edit": "ask", "read": "ask"} (any of them) in opencode.json`;
      this.reporter.log("warn", `askMode "native": OpenCode asks before none of ${Object.keys(ASKING_TOOLS).join(", ")}, ` +
        `so every ask is blocked; ${how}`);
      this.reporter.toast("warning", "Cupcake: askMode native has no effect", `OpenCode's permissions never ask; ${how}`);
    } else {
      this.reporter.log("info", `askMode "native": OpenCode's prompt is used for ${[...this.keys].sort().join(", ")}`);
    }
  }

  /** Why an `ask` for this tool cannot go to OpenCode's prompt, or undefined when it can. */
  unroutable(tool: string): string | undefined {
    if (!this.interactive) return "opencode run rejects every approval request by itself";
    const permission = ASKING_TOOLS[tool];
    if (permission === undefined) return `OpenCode's ${tool} tool does not ask for permission on every call`;
    if (this.off.has(tool)) return `an earlier ${tool} call needed approval but ran without OpenCode asking`;
    if (permission !== "bash" && this.alwaysGiven.has(permission)) {
      return `after an "Allow always" for ${permission}, OpenCode approves such calls without asking until it restarts`;
    }
    if (!this.keys.has(permission)) {
      return `OpenCode asks before ${tool} calls only with "permission": {"${permission}": "ask"} in opencode.json (for every agent)`;
    }
    return undefined;
  }

  /** Track a call the policies allowed or asked about (tool.execute.before, `args` as cupcake left them), for
   *  OpenCode's coming request. `blocked` gives the message that stops the call when it may not run. */
  track(callID: string, tool: string, want: Want, args: Args, blocked: (why: string) => string): void {
    const permission = ASKING_TOOLS[tool];
    if (!this.interactive || permission === undefined || !this.keys.has(permission) || callID === "") return;
    const subject = SUBJECTS[permission]?.call(args, this.place);
    const known = this.calls.get(callID);
    if (known !== undefined) {
      // Call ids come from the model. A reused one must never loosen anything: the entry asks if either call
      // asks, needs a new approval, and stays (gate and finish do not drop it) so no call can find it gone.
      if (want === "ask" || known.want === "allow") known.blocked = blocked;
      known.want = known.want === "ask" || want === "ask" ? "ask" : "allow";
      known.subjects.add(subject);
      known.approved = false;
      known.shared = true;
      return;
    }
    this.calls.set(callID, { tool, permission, want, subjects: new Set([subject]), approved: false, mismatched: false, blocked, shared: false });
    while (this.calls.size > MAX_TRACKED) {
      const oldest = this.calls.keys().next().value as string;
      this.calls.delete(oldest);
    }
  }

  /** OpenCode's bus events: answer requests for allowed calls, note the user's answers to the others. */
  async onEvent(event: unknown): Promise<void> {
    if (!isRecord(event) || !isRecord(event.properties)) return;
    const p = event.properties;
    const idle = event.type === "session.idle" || (event.type === "session.status" && isRecord(p.status) && p.status.type === "idle");
    if (idle && typeof p.sessionID === "string") {
      // Nothing of an idle session waits for an answer any more (an aborted call's request may never be replied).
      for (const [requestID, sessionID] of this.awaitingUser) if (sessionID === p.sessionID) this.awaitingUser.delete(requestID);
      return;
    }
    if (event.type === "permission.asked") {
      const callID = isRecord(p.tool) && typeof p.tool.callID === "string" ? p.tool.callID : undefined;
      const call = callID === undefined ? undefined : this.calls.get(callID);
      // Requests for another permission (external_directory, doom_loop) stay the user's.
      if (call === undefined || p.permission !== call.permission || typeof p.id !== "string") return;
      const about = SUBJECTS[call.permission]?.request(p);
      if (about === undefined || !call.subjects.has(about)) {
        await this.refuse(call, callID as string, p.id, p.sessionID, about);
        return;
      }
      this.requests.set(p.id, callID as string);
      while (this.requests.size > MAX_TRACKED) this.requests.delete(this.requests.keys().next().value as string);
      if (call.want === "ask") {
        if (typeof p.sessionID === "string") this.awaitingUser.set(p.id, p.sessionID);
        return;
      }
      if (typeof p.sessionID !== "string") return;
      if (this.awaitingUser.size > 0) {
        // While the user has a prompt open, every other request is theirs too: an allowed call (say, one that
        // answers OpenCode's API itself) must not be approved unseen next to the one waiting for them.
        this.reporter.log("info", `OpenCode's request ${p.id} for an allowed ${call.tool} call is left to the user: ` +
          "another request is waiting for the user's answer");
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
      const call = callID === undefined ? undefined : this.calls.get(callID);
      if (call === undefined || call.mismatched) return;
      if (p.reply === "once" || p.reply === "always") call.approved = true;
      if (p.reply === "always" && call.want === "ask") {
        this.alwaysGiven.add(call.permission);
        // OpenCode now approves matching calls silently until it restarts. Bash calls are still stopped in
        // shell.env when not asked about; for the other tools nothing runs between OpenCode's request and the
        // work, so from now on their asks are blocked up front.
        this.reporter.log("warn", `"Allow always" was given for a ${call.tool} call a policy asks about: until OpenCode restarts it ` +
          `approves matching ${call.permission} calls without asking, so cupcake blocks the ${call.permission} calls it would ` +
          "have asked about");
      }
    }
  }

  /** A request about something cupcake did not decide: rejected (fail closed), never approved by the plugin, and
   *  a bash call is also stopped in shell.env should the rejection not get through. */
  private async refuse(call: Tracked, callID: string, requestID: string, sessionID: unknown, about: string | undefined): Promise<void> {
    call.mismatched = true;
    call.approved = false;
    const seen = about === undefined ? "nothing cupcake can compare" : JSON.stringify(about.slice(0, 300));
    this.reporter.log("error", `OpenCode's request ${requestID} for ${call.tool} call ${callID} is about ${seen}, not what cupcake ` +
      `decided (${[...call.subjects].map((s) => JSON.stringify(s?.slice(0, 300))).join(" or ")}): rejecting it`);
    this.reporter.toast("error", "Cupcake rejected a permission request", `OpenCode asked about a different ${call.tool} call than cupcake checked`);
    let rejected = false;
    try {
      rejected = typeof sessionID === "string" && (await this.reply(sessionID, requestID, "reject"));
    } catch (err) {
      this.reporter.log("warn", `could not reject OpenCode's request ${requestID}: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (!rejected) this.reporter.log("warn", `OpenCode's request ${requestID} could not be rejected: it waits for the user; a bash call is stopped before its shell starts`);
  }

  /** shell.env (after OpenCode's request, before the shell starts): the message blocking a routed bash call
   *  that was not approved or whose request was about another command, or undefined when it may run. */
  gate(callID: string): string | undefined {
    const call = this.calls.get(callID);
    if (call?.mismatched === true) {
      return call.blocked("OpenCode asked for permission to run a different command than the one cupcake checked");
    }
    if (call === undefined || call.want !== "ask" || call.approved) return undefined;
    if (!call.shared) this.calls.delete(callID);
    return call.blocked(
      this.alwaysGiven.has(call.permission)
        ? `OpenCode did not ask: an earlier "Allow always" covers this call, and the policy asks about each one`
        : "OpenCode did not ask: it never asks about a command without command words",
    );
  }

  /** tool.execute.after: a routed call that ran unapproved turns routing off for its tool. */
  finish(callID: string): void {
    const call = this.calls.get(callID);
    if (call !== undefined && !call.shared) this.calls.delete(callID);
    if (call === undefined || (call.want !== "ask" && !call.mismatched) || call.approved) return;
    this.off.add(call.tool);
    if (call.mismatched) {
      this.reporter.log("error", `${call.tool} call ${callID} ran although OpenCode's request for it was about something else than ` +
        `cupcake checked (the rejection did not get through); from now on ${call.tool} calls a policy asks about are blocked instead`);
      this.reporter.toast("error", "Cupcake: a call ran without approval", `${call.tool} call ${callID} ran on a request cupcake rejected`);
      return;
    }
    const why = this.alwaysGiven.has(call.permission) ? ` (an earlier "Allow always" covered it)` : "";
    this.reporter.log("error", `${call.tool} call ${callID} needed approval but ran without OpenCode asking${why}; ` +
      `from now on ${call.tool} calls a policy asks about are blocked instead`);
    this.reporter.toast("error", "Cupcake: a call ran without approval", `OpenCode did not ask for ${call.tool} call ${callID}${why}`);
  }
}
