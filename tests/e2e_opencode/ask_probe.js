// Test fixture (not shipped): an OpenCode plugin that tries the two ways a plugin could hand a tool call to
// OpenCode's own approval flow, and records what OpenCode did. Used by tests/plugin/test_opencode_native_ask.py.
//   PROBE_MODE=v2            create a request with the v2 `POST /api/session/{id}/permission` for every bash
//                            call, then wait up to PROBE_WAIT_MS for its `permission.v2.replied` event;
//                            approved ("once" / "always") → the call runs, anything else → it is blocked.
//   PROBE_MODE=session-rule  add the session rule {bash, "*", ask} with `PATCH /session/{id}` before the call
//                            runs, and let it run.
// Every permission event and every step goes to PROBE_LOG as one JSON line.
import { appendFileSync } from "node:fs";

const log = (record) => appendFileSync(process.env.PROBE_LOG, JSON.stringify(record) + "\n");
const json = { "Content-Type": "application/json" };
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export const AskProbe = async ({ client }) => {
  const raw = client._client; // the in-process HTTP client OpenCode hands to plugins
  const waiting = new Map();
  const agents = new Map();

  const createV2 = async (sessionID, command) => {
    // Right after start-up OpenCode answers `deny` to every action until its agents are loaded: ask again.
    for (let attempt = 1; ; attempt++) {
      const res = await raw.post({
        url: "/api/session/{sessionID}/permission",
        path: { sessionID },
        headers: json,
        body: { action: "cupcake", resources: [command], agent: agents.get(sessionID) ?? "build",
                metadata: { reason: "ask_probe: a policy asks for approval" } },
      });
      const data = res.data?.data;
      log({ step: "create", attempt, status: res.response?.status, data });
      if (data?.effect !== "deny" || attempt >= 40) return data;
      await sleep(500);
    }
  };

  return {
    "chat.message": async (input) => {
      if (input.agent) agents.set(input.sessionID, input.agent);
    },
    event: async ({ event }) => {
      if (!event.type.startsWith("permission.")) return;
      log({ event: event.type, properties: event.properties });
      if (event.type === "permission.v2.replied") waiting.get(event.properties.requestID)?.(event.properties.reply);
    },
    "tool.execute.before": async (input, output) => {
      if (input.tool !== "bash") return;
      const command = String(output.args.command ?? "");
      if (process.env.PROBE_MODE === "session-rule") {
        const res = await raw.patch({
          url: "/session/{sessionID}",
          path: { sessionID: input.sessionID },
          headers: json,
          body: { permission: [{ permission: "bash", pattern: "*", action: "ask" }] },
        });
        log({ step: "session-rule", status: res.response?.status, permission: res.data?.permission });
        return;
      }
      const created = await createV2(input.sessionID, command);
      if (created?.effect !== "ask") throw new Error(`ask_probe: OpenCode answered ${JSON.stringify(created)}`);
      const waitMs = Number(process.env.PROBE_WAIT_MS ?? "20000");
      const reply = await new Promise((resolve) => {
        waiting.set(created.id, resolve);
        setTimeout(() => resolve("no answer"), waitMs);
      });
      log({ step: "answer", id: created.id, reply, waitMs });
      if (reply !== "once" && reply !== "always") throw new Error(`ask_probe: request ${created.id}: ${reply}`);
    },
  };
};
