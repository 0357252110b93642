// Bundles src/index.ts into ONE ESM file with a single export, committed at
// cupcake_py/harness/opencode/plugin/cupcake.js (shipped in the Python package so `cupcake init` can copy it offline).
//   node build.mjs          write the bundle
//   node build.mjs --check  rebuild in memory and fail if the committed bundle differs
//   node build.mjs --out P  write the bundle to P instead
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
export const BUNDLE = join(here, "..", "cupcake_py", "harness", "opencode", "plugin", "cupcake.js");
const pkg = JSON.parse(readFileSync(join(here, "package.json"), "utf8"));

export async function bundle() {
  const result = await build({
    entryPoints: [join(here, "src", "index.ts")],
    absWorkingDir: here,
    bundle: true,
    write: false,
    format: "esm",
    platform: "node",
    target: "es2022",
    charset: "utf8",
    legalComments: "none",
    sourcemap: false,
    minify: false,
    logLevel: "error",
    banner: {
      js:
        `// cupcake OpenCode plugin ${pkg.version}: generated from plugin-ts/src by \`make plugin\`; do not edit.\n` +
        "// Install as .opencode/plugin/cupcake.js; configure in .cupcake/opencode.json.",
    },
  });
  return result.outputFiles[0].text;
}

const argv = process.argv.slice(2);
const text = await bundle();
if (argv[0] === "--check") {
  let committed = "";
  try {
    committed = readFileSync(BUNDLE, "utf8");
  } catch {
    committed = "";
  }
  if (committed !== text) {
    console.error(`${relative(process.cwd(), BUNDLE)} is stale: rebuild it with \`make plugin\` and commit it.`);
    process.exit(1);
  }
  console.log(`bundle up to date (${text.length} bytes)`);
} else {
  const out = argv[0] === "--out" ? argv[1] : BUNDLE;
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, text);
  console.log(`wrote ${relative(process.cwd(), out)} (${text.length} bytes)`);
}
