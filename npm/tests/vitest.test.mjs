// The README's vitest project, as a TypeScript team writes it, in a project that installed the
// tarballs (`.ci/packages`): its files taken from the installed package's README.md, with the
// isolation files of vitest/ beside them (and a delay-fault test before an isolation test);
// `tsc --noEmit`, then `vitest run --maxWorkers=4` five times in a row, each green, and files
// that ran at the same time ran on different mocks.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));
const RUNS = Number(process.env.GATECHECK_VITEST_RUNS ?? 5);

/** The README's files: its fenced blocks whose first line is `// <path>`. */
function readmeFiles() {
  const readme = readFileSync(join(dirname(require.resolve("gatecheck-harness/package.json")), "README.md"), "utf8");
  const files = new Map();
  for (const [, body] of readme.matchAll(/```[a-z]*\n([^]*?)```/g)) {
    const first = /^\/\/ ([\w./-]+\.(?:ts|json))\n/.exec(body);
    if (first) files.set(first[1], body);
  }
  return files;
}

/** A project directory in the current one (whose node_modules has the packages). */
function project() {
  const dir = mkdtempSync(join(process.cwd(), "readme-"));
  for (const [path, body] of readmeFiles()) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), body);
  }
  cpSync(join(here, "vitest"), join(dir, "tests"), { recursive: true });
  return dir;
}

const bin = (name) => join(process.cwd(), "node_modules", ".bin", name);
const run = (cmd, args, cwd, env = {}) =>
  spawnSync(cmd, args, { cwd, encoding: "utf8", env: { ...process.env, ...env }, timeout: 120_000 });
const shown = (r) => `exit ${r.status}\n${r.stdout}\n${r.stderr}`;

test("the README's vitest project type-checks and runs green with --maxWorkers=4, five times", async (t) => {
  const files = readmeFiles();
  assert.deepEqual([...files.keys()].sort(), [
    "tests/fixtures.test.ts",
    "tests/video.test.ts",
    "tsconfig.json",
    "vitest.config.ts",
  ]);
  const dir = project();
  try {
    await t.test("tsc --noEmit", () => {
      const tsc = run(bin("tsc"), ["--noEmit", "-p", "."], dir);
      assert.equal(tsc.status, 0, shown(tsc));
    });
    for (let i = 1; i <= RUNS; i++) {
      await t.test(`vitest run --maxWorkers=4, run ${i} of ${RUNS}`, () => {
        const log = join(dir, `run-${i}.jsonl`);
        // No colours: with CI=true vitest colours its summary, which the match below reads.
        const vitest = run(bin("vitest"), ["run", "--maxWorkers=4"], dir, {
          GATECHECK_VITEST_LOG: log,
          NO_COLOR: "1",
          FORCE_COLOR: "0",
        });
        assert.equal(vitest.status, 0, shown(vitest));
        assert.match(vitest.stdout.replace(/\x1b\[[0-9;]*m/g, ""), /Test Files\s+7 passed \(7\)/);
        const lines = readFileSync(log, "utf8").trim().split("\n").map((l) => JSON.parse(l));
        assert.equal(lines.length, 4);
        // A worker slot has one mock, and no two slots share one.
        const byPool = new Map(lines.map((l) => [l.pool, l.base_url]));
        for (const l of lines) assert.equal(l.base_url, byPool.get(l.pool), `${l.file}: one mock per worker`);
        assert.equal(new Set(byPool.values()).size, byPool.size, "a mock per worker slot");
        // Files ran at the same time (else this run proved nothing), each pair on two mocks.
        let overlapping = 0;
        for (const a of lines) {
          for (const b of lines) {
            if (a.file < b.file && a.start < b.end && b.start < a.end) {
              overlapping++;
              assert.notEqual(a.base_url, b.base_url, `${a.file} and ${b.file} ran at once`);
            }
          }
        }
        assert.ok(overlapping > 0, `no two files ran at the same time: ${JSON.stringify(lines)}`);
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
