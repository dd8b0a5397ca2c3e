// Bundles each reference client version as one ES module (dist/client-*.mjs).
// Bundling matters: imported directly by Node, the client's `fast-json-patch`
// import resolves to its CommonJS build, which silently "adds" a property to a
// number where the ES module build (the one browsers and bundlers get) throws.
import { build } from "esbuild";
import { fileURLToPath } from "node:url";
import path from "node:path";

const here = path.dirname(fileURLToPath(import.meta.url));

const deterministicUuid = {
  name: "deterministic-uuid",
  setup(b) {
    b.onResolve({ filter: /^uuid$/ }, () => ({ path: path.join(here, "src/uuid-stub.mjs") }));
  },
};

const common = {
  bundle: true,
  format: "esm",
  platform: "neutral",
  mainFields: ["module", "main"],
  conditions: ["import", "module", "default"],
  logLevel: "warning",
};

await build({
  ...common,
  entryPoints: [path.join(here, "src/entry-v1.mjs")],
  outfile: path.join(here, "dist/client-1.0.0.mjs"),
  plugins: [deterministicUuid],
});
await build({
  ...common,
  entryPoints: [path.join(here, "src/entry-v0.mjs")],
  outfile: path.join(here, "dist/client-0.0.58.mjs"),
  plugins: [deterministicUuid],
});
await build({
  ...common,
  entryPoints: [path.join(here, "src/entry-v059.mjs")],
  outfile: path.join(here, "dist/client-0.0.59.mjs"),
  plugins: [deterministicUuid],
});
console.log("built dist/client-1.0.0.mjs dist/client-0.0.58.mjs and dist/client-0.0.59.mjs");
