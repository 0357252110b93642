// FAKE `cupcake serve --stdio` (loaded by fake-cupcake.mjs): JSON-line requests in, answers out by id. The bash
// command selects the behaviour like the fake eval's: "fake:crash" / "fake:crash-both" exit the server,
// "fake:hang" never answers, "fake:garbage-line" prints a non-JSON line, "fake:hold" waits until a "fake:release"
// arrives (then the release is answered first, the held ones after it: answers out of request order),
// "fake:engine-error" answers exit_code 2; everything else is allowed (or denied for "fake:deny").
// Every request is appended to $FAKE_CUPCAKE_LOG with the server's argv and pid.
import { appendFileSync } from "node:fs";
import { createInterface } from "node:readline";

const argv = process.argv.slice(2);
const held = [];
const say = (obj) => process.stdout.write(`${JSON.stringify(obj)}\n`);

for await (const line of createInterface({ input: process.stdin })) {
  const req = JSON.parse(line);
  if (process.env.FAKE_CUPCAKE_LOG) {
    appendFileSync(process.env.FAKE_CUPCAKE_LOG, `${JSON.stringify({ argv, pid: process.pid, cwd: process.cwd(), request: req })}\n`);
  }
  const command = typeof req.event?.args?.command === "string" ? req.event.args.command : "";
  const behaviour = command.startsWith("fake:") ? command.slice(5).split(" ")[0] : "allow";
  const answer = (response, exit_code = 0) => say({ id: req.id, exit_code, response });
  switch (behaviour) {
    case "crash":
    case "crash-both":
      process.exit(70);
      break;
    case "hang":
      break;
    case "garbage-line":
      process.stdout.write("this is not json\n");
      break;
    case "hold":
      held.push(req.id);
      break;
    case "release":
      answer({ decision: "allow", reason: "released" });
      for (const id of held.reverse()) say({ id, exit_code: 0, response: { decision: "deny", reason: `held ${id}` } });
      held.length = 0;
      break;
    case "deny":
      answer({ decision: "deny", reason: "served deny", rule_ids: ["served"] });
      break;
    case "engine-error":
      answer({ decision: "deny", reason: "cupcake: policy evaluation failed: deadline" }, 2);
      break;
    default:
      answer({ decision: "allow" });
  }
}
