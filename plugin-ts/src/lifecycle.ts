// Session lifecycle for cupcake's session history (docs/governance.md): OpenCode's `session.created` bus event and
// its compaction hook become `cupcake audit session-event` calls. Fire-and-forget: never awaited by a hook, bounded,
// output ignored (failures are debug log lines), so no tool call waits for them.
import type { PluginConfig } from "./config.js";
import type { Reporter } from "./reporter.js";
import { runProcess } from "./runner.js";

export interface LifecycleEvent {
  session_id: string;
  event: "created" | "compacted";
  cwd: string;
  parent_id?: string;
}

const LIFECYCLE_TIMEOUT_MS = 10_000;

const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

/** `session.created` (properties.info = the session: id, parentID for a subagent's session) → a "created" event. */
export function lifecycleFromBus(event: { type?: unknown; properties?: unknown }, directory: string): LifecycleEvent | undefined {
  if (event.type !== "session.created") return undefined;
  const props = (event.properties ?? {}) as { info?: { id?: unknown; parentID?: unknown }; sessionID?: unknown };
  const id = str(props.info?.id) ?? str(props.sessionID);
  if (id === undefined) return undefined;
  const out: LifecycleEvent = { session_id: id, event: "created", cwd: directory };
  const parent = str(props.info?.parentID);
  if (parent !== undefined) out.parent_id = parent;
  return out;
}

export function sendLifecycle(config: PluginConfig, directory: string, ev: LifecycleEvent, reporter: Reporter): void {
  runProcess({
    command: config.cupcakePath,
    args: ["audit", "session-event", "--harness", "opencode"],
    cwd: directory,
    stdin: `${JSON.stringify(ev)}\n`,
    timeoutMs: Math.min(config.timeoutMs, LIFECYCLE_TIMEOUT_MS),
  }).then(
    (res) => {
      if (res.code !== 0) reporter.log("debug", `session ${ev.event} not recorded: exit ${res.code} ${res.stderr.trim()}`);
    },
    (err: Error) => reporter.log("debug", `session ${ev.event} not recorded: ${err.message}`),
  );
}
