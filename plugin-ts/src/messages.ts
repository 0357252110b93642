// Every text the model or the user reads. Blocking messages become the tool result verbatim, so they say
// what was blocked, by which rule, why, and what to do instead.
import { CONFIG_FILE } from "./config.js";
import { clip, type Decision } from "./protocol.js";

/** The argument that best identifies a call, per OpenCode tool (unknown tools: first string argument). */
const KEY_ARGS = ["command", "filePath", "path", "pattern", "url", "description", "name", "query", "patchText"];

export function describeCall(tool: string, args: Record<string, unknown>): string {
  for (const key of KEY_ARGS) {
    const value = args[key];
    if (typeof value === "string" && value !== "") return `${tool} call (${key}: ${JSON.stringify(clip(value, 160))})`;
  }
  return `${tool} call`;
}

function ruleText(d: Decision): string {
  const ids = d.rule_ids ?? [];
  if (ids.length === 0) return "";
  return ids.length === 1 ? ` [rule ${ids[0]}]` : ` [rules ${ids.join(", ")}]`;
}

function reasonText(d: Decision): string {
  const reason = d.reason?.trim();
  return reason ? reason : "(the policy gave no reason)";
}

export function denyMessage(tool: string, args: Record<string, unknown>, d: Decision): string {
  return [
    `Blocked by cupcake policy${ruleText(d)}: this ${describeCall(tool, args)} was NOT executed.`,
    `Reason: ${reasonText(d)}`,
    "What to do instead: do not retry this call or work around the policy with an equivalent one. " +
      "Choose an approach that satisfies the reason above, or explain to the user what you need and why.",
  ].join("\n");
}

export function askMessage(tool: string, args: Record<string, unknown>, d: Decision, notNative?: string): string {
  const rules = d.rule_ids ?? [];
  const disable = rules.length > 0 ? `disable rule ${rules.join(", ")}` : "disable the rule that asked";
  const why =
    notNative === undefined
      ? "OpenCode plugins cannot show an approval prompt themselves, so cupcake blocked the call."
      : `OpenCode's approval prompt cannot be used for this call (${notNative}), so cupcake blocked it.`;
  return [
    `Approval required by cupcake policy${ruleText(d)}: this ${describeCall(tool, args)} was NOT executed.`,
    `Reason: ${reasonText(d)}`,
    `${why} Tell the user what you wanted to do and why, and let them decide. To approve it, the user can add an ` +
      "exception for this call to the allow-list in the project's cupcake policy configuration (.cupcake/), or " +
      `${disable} and re-run the request; in ${CONFIG_FILE}, "askMode": "native" sends such calls to OpenCode's own ` +
      `approval prompt (for tools whose OpenCode permission is "ask") and "askMode": "allow" lets them all run.`,
  ].join("\n");
}

/** A call cupcake allowed whose OpenCode permission request was about something else (askMode "native"). */
export function unmatchedMessage(tool: string, args: Record<string, unknown>, why: string): string {
  return [
    `Blocked by cupcake: this ${describeCall(tool, args)} was NOT executed: ${why}.`,
    "Something changed the call after cupcake checked it (another OpenCode plugin?), so cupcake fails closed. " +
      "Tell the user; do not retry the call until it is explained.",
  ].join("\n");
}

export function failClosedMessage(tool: string, args: Record<string, unknown>, error: string): string {
  return [
    `${error}`,
    `The ${describeCall(tool, args)} was NOT executed: the policy check failed and cupcake fails closed.`,
    `What to do: tell the user that the cupcake setup needs fixing (see ${CONFIG_FILE}: cupcakePath, policyDir, timeoutMs); ` +
      "do not retry the same call until it is fixed.",
  ].join("\n");
}

export function postFeedback(tool: string, d: Decision): string {
  const verb = d.decision === "ask" ? "flagged for review" : "objected to";
  return (
    `\n\n[cupcake] Policy feedback${ruleText(d)}: the policy ${verb} the result of this ${tool} call. ` +
    `Reason: ${reasonText(d)}\nThe call already ran; take this into account before continuing.`
  );
}

export function postFailure(tool: string, error: string): string {
  return `\n\n[cupcake] ${error}\nThe post-run policy check of this ${tool} call failed; treat its result with caution.`;
}

export function contextBlock(items: readonly string[]): string {
  return ["Cupcake policy context (from the project's policies; follow it):", ...items.map((c) => `- ${c}`)].join("\n");
}

export function postContext(items: readonly string[]): string {
  return `\n\n[cupcake] ${contextBlock(items)}`;
}
