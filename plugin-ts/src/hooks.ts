// The OpenCode hooks: PreToolUse gate (tool.execute.before), PostToolUse feedback (tool.execute.after),
// context injection (experimental.chat.system.transform / experimental.session.compacting).
import type { Hooks } from "@opencode-ai/plugin";
import type { PluginConfig } from "./config.js";
import type { SessionContext } from "./context.js";
import {
  askMessage,
  contextBlock,
  denyMessage,
  describeCall,
  failClosedMessage,
  postContext,
  postFailure,
  postFeedback,
  unmatchedMessage,
} from "./messages.js";
import { CupcakeError, type Decision, type HookEvent, type HookEventName } from "./protocol.js";
import type { Reporter } from "./reporter.js";
import { evaluate } from "./runner.js";
import { lifecycleFromBus, sendLifecycle } from "./lifecycle.js";
import type { NativeAsk } from "./native.js";

export interface HookDeps {
  config: PluginConfig;
  directory: string;
  reporter: Reporter;
  context: SessionContext;
  /** askMode "native" only: routes asks to OpenCode's own prompt (src/native.ts). */
  native?: NativeAsk;
}

type Args = Record<string, unknown>;
type Evaluate = (config: PluginConfig, directory: string, event: HookEvent) => Promise<Decision>;

const isArgs = (v: unknown): v is Args => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Apply cupcake's `updated_args` to OpenCode's args object in place (OpenCode keeps its own reference, so
 * reassignment would be ignored). `updated_args` is a patch — the engine merges the policies' `updated_input`
 * objects, which name only what they change — so each key it names replaces that argument and every other
 * argument (e.g. bash `workdir`, `timeout`) is kept.
 */
export function applyArgsInPlace(target: Args, updated: Args): void {
  Object.assign(target, updated);
}

const errorText = (err: unknown): string =>
  err instanceof CupcakeError ? err.message : `cupcake: plugin error: ${err instanceof Error ? err.message : String(err)}`;

export function createHooks(deps: HookDeps, run: Evaluate = evaluate): Hooks {
  const { config, directory, reporter, context, native } = deps;
  const sessions = new Map<string, { agent?: string; messageID?: string }>();

  const makeEvent = (name: HookEventName, input: { tool: string; sessionID: string; callID: string }, args: Args): HookEvent => {
    const seen = sessions.get(input.sessionID);
    const event: HookEvent = {
      hook_event_name: name,
      session_id: input.sessionID || "unknown",
      cwd: directory,
      tool: input.tool,
      args,
    };
    if (seen?.agent) event.agent = seen.agent;
    if (seen?.messageID) event.message_id = seen.messageID;
    if (input.callID) event.call_id = input.callID;
    return event;
  };

  const rememberContext = (sessionID: string, d: Decision): void => {
    if (d.context && d.context.length > 0) context.add(sessionID, d.context);
  };

  // agent / message id are not part of the tool hooks' input: remember them from the chat hooks of the session.
  const remember = (sessionID: string, agent: string | undefined, messageID: string | undefined): void => {
    const known = sessions.get(sessionID) ?? {};
    sessions.set(sessionID, { agent: agent || known.agent, messageID: messageID || known.messageID });
  };

  return {
    "chat.message": async (input) => remember(input.sessionID, input.agent, input.messageID),
    "chat.params": async (input) => remember(input.sessionID, input.agent, input.message?.id),

    "tool.execute.before": async (input, output) => {
      const args: Args = isArgs(output.args) ? output.args : {};
      let d: Decision;
      let seen: Args = args;
      try {
        // What cupcake decides on: one copy of the args, taken once (an accessor another plugin put on the
        // args object cannot make the call cupcake decided and the call it tracks for OpenCode differ).
        seen = JSON.parse(JSON.stringify(args)) as Args;
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
      const rewrite = (dec: Decision): void => {
        if (dec.updated_args === undefined) return;
        if (isArgs(output.args)) {
          applyArgsInPlace(output.args, dec.updated_args);
          reporter.log("info", `rewrote the ${input.tool} call's args: ${JSON.stringify(dec.updated_args)}`);
        } else {
          reporter.log("warn", `cannot rewrite the ${input.tool} call's args: OpenCode passed no args object`);
        }
      };
      // The call cupcake decided (the args it saw with its rewrite applied, as applyArgsInPlace does): what
      // OpenCode's permission request must be about. Messages name the call as the model made it.
      const decided: Args = { ...seen, ...d.updated_args };
      const asMade = seen;
      switch (d.decision) {
        case "allow":
          rewrite(d);
          native?.track(input.callID, input.tool, "allow", decided, (why) => unmatchedMessage(input.tool, asMade, why));
          rememberContext(input.sessionID, d);
          return;
        case "ask":
          // An ask may carry the call rewritten to run in cupcake's sandbox: whatever approves it
          // (askMode "allow", OpenCode's own prompt) approves the sandboxed call.
          if (config.askMode !== "deny") rewrite(d);
          if (config.askMode === "allow") {
            reporter.log("warn", `approval requested (${d.reason ?? "no reason"}) — allowed by askMode "allow"`);
            reporter.toast("warning", "Cupcake: approval requested (allowed)", d.reason ?? describeCall(input.tool, asMade));
            rememberContext(input.sessionID, d);
            return;
          }
          if (native !== undefined) {
            const notNative = native.unroutable(input.tool);
            if (notNative === undefined) {
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
      const args: Args = isArgs(input.args) ? input.args : {};
      const event = makeEvent("PostToolUse", input, args);
      event.result = { title: output.title, output: output.output, metadata: output.metadata, success: true };
      const append = (text: string): void => {
        output.output = `${typeof output.output === "string" ? output.output : String(output.output ?? "")}${text}`;
      };
      let d: Decision;
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
      if (lc !== undefined) sendLifecycle(config, directory, lc, reporter);
      await native?.onEvent(event);
    },

    ...(native === undefined
      ? {}
      : {
          config: async (merged) => native.configure(merged),
          // After OpenCode's permission request, before the shell starts: the last point a routed bash call can
          // be stopped when OpenCode did not ask (src/native.ts).
          "shell.env": async (input, output) => {
            const blocked = native.gate(input.callID ?? "");
            if (blocked !== undefined) {
              reporter.toast("error", "Cupcake blocked a tool call", "OpenCode did not ask for a call that needs approval");
              throw new Error(blocked);
            }
            // Approvals travel through OpenCode's local API; its password is not the shell's to read.
            if (process.env.OPENCODE_SERVER_PASSWORD !== undefined) output.env.OPENCODE_SERVER_PASSWORD = "";
          },
        }),

    "experimental.session.compacting": async (input, output) => {
      sendLifecycle(config, directory, { session_id: input.sessionID, event: "compacted", cwd: directory }, reporter);
      const items = context.get(input.sessionID);
      if (items.length > 0) output.context.push(contextBlock(items));
    },
  };
}
