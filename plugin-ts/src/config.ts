// Plugin configuration. One precedence:
//   1. defaults;
//   2. `<project>/.cupcake/opencode.json` (a protected state path: the agent cannot change it) sets anything;
//   3. plugin options from opencode.json (`"plugin": [["…/cupcake.js", {…}]]`, an unprotected place: the agent,
//      OPENCODE_CONFIG_CONTENT or a stray file can write it) may only TIGHTEN: `enabled: true`,
//      `failMode: "closed"`, `askMode: "deny"`, a smaller `timeoutMs`, `showToasts: true`, any `logLevel`;
//      `cupcakePath` and `policyDir` only when equal to the value already in force. Anything that would
//      weaken the protection is ignored and reported as a config problem.
// Validated by hand (no schema library in the bundle); every problem is collected and reported once.
import { readFileSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";

export type FailMode = "closed" | "open";
/** What an `ask` decision does: block with instructions, let the call run, or leave it to OpenCode's prompt (src/native.ts). */
export type AskMode = "deny" | "allow" | "native";
export type LogLevel = "debug" | "info" | "warn" | "error";
/** "spawn": one `cupcake eval` process per tool call; "serve": one warm `cupcake serve --stdio` (src/server.ts). */
export type Mode = "spawn" | "serve";

export interface PluginConfig {
  enabled: boolean;
  /** Executable to spawn: a name looked up on PATH, or a path (relative paths are resolved against the project). */
  cupcakePath: string;
  /** Passed as `--policy-dir`; relative paths are resolved against the project. Absent → cupcake's own default. */
  policyDir: string | undefined;
  timeoutMs: number;
  failMode: FailMode;
  askMode: AskMode;
  logLevel: LogLevel;
  showToasts: boolean;
  mode: Mode;
}

export const DEFAULT_CONFIG: Readonly<PluginConfig> = Object.freeze({
  enabled: true,
  cupcakePath: "cupcake",
  policyDir: undefined,
  timeoutMs: 5000,
  failMode: "closed",
  askMode: "deny",
  logLevel: "warn",
  showToasts: true,
  mode: "spawn",
});

export const CONFIG_FILE = join(".cupcake", "opencode.json");

type Check = (value: unknown) => string | null; // null = valid, else what was expected

const oneOf =
  (...allowed: string[]): Check =>
  (v) =>
    typeof v === "string" && allowed.includes(v) ? null : `one of ${allowed.map((a) => JSON.stringify(a)).join(", ")}`;
const isBool: Check = (v) => (typeof v === "boolean" ? null : "true or false");
const isText: Check = (v) => (typeof v === "string" && v.trim() !== "" ? null : "a non-empty string");
const isTimeout: Check = (v) =>
  typeof v === "number" && Number.isInteger(v) && v >= 100 && v <= 600_000 ? null : "an integer between 100 and 600000";

const FIELDS: Record<keyof PluginConfig, Check> = {
  enabled: isBool,
  cupcakePath: isText,
  policyDir: isText,
  timeoutMs: isTimeout,
  failMode: oneOf("closed", "open"),
  askMode: oneOf("deny", "allow", "native"),
  logLevel: oneOf("debug", "info", "warn", "error"),
  showToasts: isBool,
  mode: oneOf("spawn", "serve"),
};

export interface LoadedConfig {
  config: PluginConfig;
  /** Human-readable problems (bad JSON, unknown keys, bad values); the offending values are ignored. */
  problems: string[];
}

/** Whether `value` for `key` is at least as strict as `current` (the options layer may only tighten). */
const TIGHTENS: Record<keyof PluginConfig, (value: unknown, current: unknown) => boolean> = {
  enabled: (v) => v === true,
  cupcakePath: (v, c) => v === c,
  policyDir: (v, c) => v === c,
  timeoutMs: (v, c) => (v as number) <= (c as number),
  failMode: (v) => v === "closed",
  askMode: (v) => v === "deny",
  logLevel: () => true,
  showToasts: (v) => v === true,
  mode: () => true, // spawn and serve run the same engine on the same policies and both fail closed
};

export const OPTIONS_ORIGIN = "plugin options in opencode.json";

function applyLayer(target: PluginConfig, layer: unknown, origin: string, problems: string[], tightenOnly = false): void {
  if (layer === undefined || layer === null) return;
  if (typeof layer !== "object" || Array.isArray(layer)) {
    problems.push(`${origin}: expected a JSON object, got ${Array.isArray(layer) ? "an array" : typeof layer}`);
    return;
  }
  for (const [key, value] of Object.entries(layer as Record<string, unknown>)) {
    if (key === "$schema") continue;
    if (!Object.hasOwn(FIELDS, key)) {
      problems.push(`${origin}: unknown key "${key}" (known: ${Object.keys(FIELDS).join(", ")})`);
      continue;
    }
    const field = key as keyof PluginConfig;
    const expected = FIELDS[field](value);
    if (expected !== null) {
      problems.push(`${origin}: "${key}" must be ${expected}, got ${JSON.stringify(value)}; using ${JSON.stringify(target[field])}`);
      continue;
    }
    if (tightenOnly && !TIGHTENS[field](value, target[field])) {
      problems.push(
        `${origin}: "${key}": ${JSON.stringify(value)} ignored: options there may only tighten ` +
          `${CONFIG_FILE} (in force: ${JSON.stringify(target[field])}; change it in ${CONFIG_FILE})`,
      );
      continue;
    }
    (target as unknown as Record<string, unknown>)[field] = value;
  }
}

function readConfigFile(path: string, problems: string[]): unknown {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== "ENOENT") problems.push(`${path}: cannot read (${code ?? String(err)})`);
    return undefined;
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    problems.push(`${path}: invalid JSON (${(err as Error).message}); using the defaults`);
    return undefined;
  }
}

/** Resolve a configured path against the project directory; bare command names stay as they are (PATH lookup). */
function resolveAgainst(directory: string, value: string, isCommand: boolean): string {
  if (isAbsolute(value)) return value;
  if (isCommand && !value.includes("/") && !value.includes("\\")) return value;
  return resolve(directory, value);
}

export function loadConfig(directory: string, options: unknown): LoadedConfig {
  const problems: string[] = [];
  const config: PluginConfig = { ...DEFAULT_CONFIG };
  const file = join(directory, CONFIG_FILE);
  applyLayer(config, readConfigFile(file, problems), file, problems);
  config.cupcakePath = resolveAgainst(directory, config.cupcakePath, true);
  if (config.policyDir !== undefined) config.policyDir = resolveAgainst(directory, config.policyDir, false);
  const resolved = resolveOptionPaths(directory, options);
  applyLayer(config, resolved, OPTIONS_ORIGIN, problems, true);
  return { config, problems };
}

/** The options layer with its paths resolved as the file's are, so "equal" compares like with like. */
function resolveOptionPaths(directory: string, options: unknown): unknown {
  if (options === null || typeof options !== "object" || Array.isArray(options)) return options;
  const out: Record<string, unknown> = { ...(options as Record<string, unknown>) };
  if (typeof out.cupcakePath === "string" && out.cupcakePath.trim() !== "") {
    out.cupcakePath = resolveAgainst(directory, out.cupcakePath, true);
  }
  if (typeof out.policyDir === "string" && out.policyDir.trim() !== "") {
    out.policyDir = resolveAgainst(directory, out.policyDir, false);
  }
  return out;
}
