// Evaluates policy modules with OPA's official JavaScript SDK (@open-policy-agent/opa-wasm).
// Usage: node run_policies.cjs JOBS.json  — JOBS is [{name, wasm, data, input, entrypoint, memory}]
// where wasm is a file path, data/input are raw JSON (or Rego literal) texts and input may be null.
// Prints a JSON array of {name, result} (the SDK's parsed result set) or {name, error}.
"use strict";
const fs = require("fs");
const { loadPolicySync } = require("@open-policy-agent/opa-wasm");

function toBuffer(text) {
  const bytes = new TextEncoder().encode(text);
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
}

const jobs = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const out = [];
for (const job of jobs) {
  try {
    const policy = loadPolicySync(fs.readFileSync(job.wasm), { initial: job.memory });
    policy.setData(toBuffer(job.data));
    const input = job.input === null ? undefined : toBuffer(job.input);
    out.push({ name: job.name, result: policy.evaluate(input, job.entrypoint) });
  } catch (e) {
    out.push({ name: job.name, error: String(e && e.message ? e.message : e) });
  }
}
process.stdout.write(JSON.stringify(out));
