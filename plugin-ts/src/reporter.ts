// Logging through OpenCode's client (`client.app.log`, lands in OpenCode's log) with a console fallback, and
// TUI toasts. Both are guarded: the client API may be absent or fail, and neither may ever block a hook.
import type { LogLevel } from "./config.js";

const ORDER: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };
const SERVICE = "cupcake";

type Call = (options: { body: Record<string, unknown> }) => unknown;

/** The slice of the OpenCode SDK client used here, looked up defensively at run time. */
function method(client: unknown, group: string, name: string): Call | undefined {
  if (typeof client !== "object" || client === null) return undefined;
  const owner = (client as Record<string, unknown>)[group];
  if (typeof owner !== "object" || owner === null) return undefined;
  const fn = (owner as Record<string, unknown>)[name];
  return typeof fn === "function" ? (fn as Call).bind(owner) : undefined;
}

function swallow(value: unknown): void {
  if (value instanceof Promise) value.catch(() => undefined);
}

export type ToastVariant = "info" | "success" | "warning" | "error";

export class Reporter {
  private readonly once = new Set<string>();

  constructor(
    private readonly client: unknown,
    private level: LogLevel,
    private toasts: boolean,
  ) {}

  configure(level: LogLevel, toasts: boolean): void {
    this.level = level;
    this.toasts = toasts;
  }

  /**
   * Messages at or above the configured level go to the console (stderr) as `[cupcake] LEVEL: msg`.
   * Every message also goes to OpenCode's own log via the client when it is available.
   */
  log(level: LogLevel, message: string, extra?: Record<string, unknown>): void {
    const log = method(this.client, "app", "log");
    if (log !== undefined) {
      try {
        swallow(log({ body: { service: SERVICE, level, message, ...(extra ? { extra } : {}) } }));
      } catch {
        // the client is best effort
      }
    }
    if (ORDER[level] >= ORDER[this.level]) console.error(`[cupcake] ${level.toUpperCase()}: ${message}`);
  }

  /** Log a message only the first time this key is seen. */
  logOnce(key: string, level: LogLevel, message: string): void {
    if (this.once.has(key)) return;
    this.once.add(key);
    this.log(level, message);
  }

  toast(variant: ToastVariant, title: string, message: string): void {
    if (!this.toasts) return;
    const show = method(this.client, "tui", "showToast");
    if (show === undefined) return;
    try {
      swallow(show({ body: { title, message: message.slice(0, 500), variant, duration: 5000 } }));
    } catch {
      // no TUI (e.g. `opencode run`) or an older client
    }
  }
}
