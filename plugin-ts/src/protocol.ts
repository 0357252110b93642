// The wire contract with `cupcake eval --harness opencode`: one JSON event on stdin, one JSON decision line on stdout.

export type HookEventName = "PreToolUse" | "PostToolUse";

export interface ToolResult {
  title: string;
  output: string;
  metadata: unknown;
  /** Always true: OpenCode only calls `tool.execute.after` for successful calls. */
  success: true;
}

export interface HookEvent {
  hook_event_name: HookEventName;
  session_id: string;
  cwd: string;
  tool: string;
  args: Record<string, unknown>;
  result?: ToolResult;
  agent?: string;
  message_id?: string;
  call_id?: string;
}

export type DecisionKind = "allow" | "ask" | "deny" | "block";

export interface Decision {
  decision: DecisionKind;
  reason?: string;
  context?: string[];
  updated_args?: Record<string, unknown>;
  rule_ids?: string[];
}

/** Every failure to obtain a decision (spawn, timeout, exit status, bad output). The message starts with "cupcake: ". */
export class CupcakeError extends Error {
  constructor(detail: string) {
    super(`cupcake: ${detail}`);
    this.name = "CupcakeError";
  }
}

const KINDS: ReadonlySet<string> = new Set<DecisionKind>(["allow", "ask", "deny", "block"]);

const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === "string");
const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

export function clip(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/** Parse cupcake's stdout. Exactly one JSON object is expected (surrounding whitespace allowed). */
export function parseDecision(stdout: string): Decision {
  const text = stdout.trim();
  if (text === "") throw new CupcakeError("no output on stdout (expected one JSON decision line)");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new CupcakeError(`stdout is not JSON: ${JSON.stringify(clip(text))}`);
  }
  if (!isPlainObject(value)) throw new CupcakeError(`expected a JSON object on stdout, got ${clip(text)}`);
  const { decision, reason, context, updated_args, rule_ids } = value;
  if (decision === undefined) throw new CupcakeError(`response has no "decision": ${clip(text)}`);
  if (typeof decision !== "string" || !KINDS.has(decision)) {
    throw new CupcakeError(`unknown decision ${JSON.stringify(decision)} (expected allow, ask, deny or block)`);
  }
  const bad = (field: string, expected: string): never => {
    throw new CupcakeError(`response field "${field}" must be ${expected}: ${clip(text)}`);
  };
  if (reason !== undefined && typeof reason !== "string") bad("reason", "a string");
  if (context !== undefined && !isStringArray(context)) bad("context", "an array of strings");
  if (updated_args !== undefined && !isPlainObject(updated_args)) bad("updated_args", "an object");
  if (rule_ids !== undefined && !isStringArray(rule_ids)) bad("rule_ids", "an array of strings");
  const out: Decision = { decision: decision as DecisionKind };
  if (reason !== undefined) out.reason = reason as string;
  if (context !== undefined) out.context = context as string[];
  if (updated_args !== undefined) out.updated_args = updated_args as Record<string, unknown>;
  if (rule_ids !== undefined) out.rule_ids = rule_ids as string[];
  return out;
}
