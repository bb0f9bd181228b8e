// Runs every Pêche case of the shared conformance vectors (docs/rules.md §5) through the
// browser's independent engine (frontend/static/frontend/peche-check.js) and compares
// each output with its `expect`. Exit status 1 on any mismatch: tests/test_js_engine.py
// runs this under `make test`.
// Usage: node tests/js/run-peche-vectors.mjs [vectors.jsonl]  (default tests/vectors/peche.jsonl)
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { replayPeche } from "../../frontend/static/frontend/peche-check.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const file = process.argv[2] ? resolve(process.argv[2]) : resolve(root, "tests", "vectors", "peche.jsonl");

// Key order differs between producers; compare as data.
function same(a, b) {
  if (typeof a !== "object" || a === null || typeof b !== "object" || b === null) return a === b;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && same(a[k], b[k]));
}

const lines = readFileSync(file, "utf8").split("\n").filter((line) => line.trim() !== "");
let passed = 0;
let skipped = 0;
const failures = [];
for (const [n, line] of lines.entries()) {
  const { expect, ...input } = JSON.parse(line);
  if (input.game !== "peche") {
    skipped += 1;
    continue;
  }
  const got = await replayPeche(input);
  if (same(got, expect)) passed += 1;
  else failures.push({ line: n + 1, seed: input.seed, expect, got });
}
for (const f of failures.slice(0, 10)) console.log(JSON.stringify(f));
console.log(`${file}: ${passed} passed, ${failures.length} failed${skipped ? `, ${skipped} not Pêche` : ""}`);
process.exit(failures.length || passed === 0 ? 1 : 0);
