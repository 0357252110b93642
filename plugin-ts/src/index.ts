// Entry point of the bundle. OpenCode rejects a plugin module with any export that is not a plugin, so this
// file exports exactly one thing.
import type { Plugin } from "@opencode-ai/plugin";
import { CONFIG_FILE, loadConfig } from "./config.js";
import { SessionContext } from "./context.js";
import { createHooks } from "./hooks.js";
import { NativeAsk, isRunCommand, replyWith } from "./native.js";
import { Reporter } from "./reporter.js";
import { selfTest } from "./runner.js";
import { ServeClient, serveEvaluator } from "./server.js";

export const CupcakePlugin: Plugin = async ({ client, directory, worktree }, options) => {
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
  // Self-test in the background: a broken setup becomes visible at load, without delaying OpenCode's start.
  selfTest(config, directory).then(
    (version) => reporter.log("info", `self-test ok: ${version} (${config.cupcakePath}; failMode ${config.failMode})`),
    (err: Error) => {
      reporter.log("error", `self-test failed: ${err.message}`);
      reporter.toast("error", "Cupcake is not working", err.message);
    },
  );
  const native =
    config.askMode === "native"
      ? new NativeAsk(replyWith(client), reporter, !isRunCommand(process.argv), { directory, worktree: worktree || directory })
      : undefined;
  const deps = { config, directory, reporter, context: new SessionContext(), native };
  if (config.mode === "spawn") return createHooks(deps);
  const server = new ServeClient(config, directory, (why) => reporter.log("warn", `${why} (the calls in flight are spawned)`));
  return { ...createHooks(deps, serveEvaluator(server)), dispose: async () => server.close() };
};
