// The installed `gatecheck-harness` npm package: startGatecheck() with the official OpenAI Node SDK,
// the bin shim, the vitest globalSetup helper and the missing-platform-package error.
// `node --test` in a project that installed the tarballs (`.ci/packages`).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createRequire } from "node:module";
import OpenAI from "openai";
import { binaryPath, connectGatecheck, platformKey, startGatecheck } from "gatecheck-harness";
import vitestSetup, { gatecheckGlobalSetup, workerSlots } from "gatecheck-harness/vitest";

const require = createRequire(import.meta.url);
let gc;
before(async () => {
  gc = await startGatecheck();
});
after(async () => {
  await gc?.stop();
});

const client = (key) =>
  new OpenAI({ baseURL: `${gc.ready.base_url}/v1`, apiKey: key, maxRetries: 0 });

test("a video task completes when the virtual clock is advanced", async () => {
  await gc.reset();
  const videos = client(gc.ready.demo_key).videos;
  const created = await videos.create({ model: "sora-2", prompt: "a calm lake at dawn" });
  assert.equal(created.status, "queued");
  await gc.advance(600);
  const done = await videos.retrieve(created.id);
  assert.equal(done.status, "completed");
  assert.equal(done.progress, 100);
});

test("a disabled key is refused with 401", async () => {
  await gc.reset();
  await assert.rejects(
    client(gc.key("demo-disabled")).images.generate({ model: "gpt-image-1", prompt: "a lighthouse" }),
    (e) => e instanceof OpenAI.AuthenticationError && e.status === 401,
  );
  assert.throws(() => gc.key("no-such-label"), /demo-disabled/);
});

test("an injected fault answers the SDK until reset(); the journal records both", async () => {
  await gc.reset();
  const speech = () =>
    client(gc.ready.demo_key).audio.speech.create({ model: "tts-1", voice: "alloy", input: "hello" });
  await gc.inject("POST /v1/audio/speech", 503, { times: 5 });
  await assert.rejects(speech(), (e) => e instanceof OpenAI.InternalServerError && e.status === 503);
  assert.deepEqual((await gc.requests()).map((r) => [r.method, r.path, r.status]), [
    ["POST", "/v1/audio/speech", 503],
  ]);
  await gc.reset();
  const ok = await speech();
  assert.ok((await ok.arrayBuffer()).byteLength > 0);
  assert.deepEqual((await gc.requests()).map((r) => r.status), [200]);
});

test("the access token lists the demo account's keys", async () => {
  const res = await fetch(`${gc.ready.base_url}/api/token/?p=1&size=10`, {
    headers: { Authorization: gc.ready.access_token, "New-Api-User": String(gc.ready.user_id) },
  });
  assert.equal(res.status, 200);
  assert.equal((await res.json()).success, true);
});

test("the bin shim runs the platform package's binary", () => {
  const shim = join(dirname(require.resolve("gatecheck-harness/package.json")), "bin", "gatecheck.js");
  const viaShim = execFileSync(process.execPath, [shim, "--version"], { encoding: "utf8" });
  const direct = execFileSync(binaryPath(), ["--version"], { encoding: "utf8" });
  assert.equal(viaShim, direct);
  assert.match(viaShim, /^gatecheck /);
  const usage = spawnSync(process.execPath, [shim, "no-such-command"], { encoding: "utf8" });
  assert.equal(usage.status, 2);
  assert.match(binaryPath(), new RegExp(`gatecheck-harness-${platformKey()}/bin/gatecheck$`));
});

test("the vitest globalSetup starts a mock per worker slot and stops them", async () => {
  const provided = {};
  const teardown = await vitestSetup({ provide: (k, v) => (provided[k] = v), config: { maxWorkers: 3 } });
  const mocks = provided.gatecheck.workers.map((ready) => connectGatecheck(ready));
  assert.equal(new Set(mocks.map((m) => m.ready.base_url)).size, 3);
  await mocks[0].advance(60);
  const [moved, still] = await Promise.all([mocks[0].clock(), mocks[1].clock()]);
  assert.equal(moved.now - still.now, 60);
  await teardown();
  for (const m of mocks) await assert.rejects(m.reset());
  // Options, and a count of its own.
  const single = {};
  const stopSingle = await gatecheckGlobalSetup({ workers: 1, profile: "new-api" })({
    provide: (k, v) => (single[k] = v),
  });
  assert.deepEqual(single.gatecheck.workers.map((r) => r.profile), ["new-api"]);
  await stopSingle();
});

test("the main entry's connectGatecheck takes what the vitest globalSetup provides", async () => {
  // inject("gatecheck") is { workers: [ready, ...] }; this process is no vitest worker (slot 1).
  const provided = {};
  const teardown = await vitestSetup({ provide: (k, v) => (provided[k] = v), config: { maxWorkers: 2 } });
  try {
    const pool = process.env.VITEST_POOL_ID;
    delete process.env.VITEST_POOL_ID;
    const main = connectGatecheck(provided.gatecheck);
    assert.equal(main.ready.base_url, provided.gatecheck.workers[0].base_url);
    process.env.VITEST_POOL_ID = "2";
    assert.equal(connectGatecheck(provided.gatecheck).ready.base_url, provided.gatecheck.workers[1].base_url);
    process.env.VITEST_POOL_ID = "3";
    assert.throws(() => connectGatecheck(provided.gatecheck), /vitest worker 3, but the globalSetup started 2/);
    if (pool === undefined) delete process.env.VITEST_POOL_ID;
    else process.env.VITEST_POOL_ID = pool;
    assert.equal((await main.clock()).mode, "virtual");
    // What a suite without the globalSetup hands it: an error that says what to add.
    assert.throws(() => connectGatecheck(undefined), /globalSetup: \["gatecheck-harness\/vitest"\]/);
    assert.throws(() => connectGatecheck({ base: 1 }), /ready object of gatecheck serve[^]*inject\("gatecheck"\)/);
  } finally {
    await teardown();
  }
});

test("the worker slots are vitest's pool size", () => {
  assert.equal(workerSlots({ maxWorkers: 4 }), 4);
  assert.equal(workerSlots({ maxWorkers: 4, fileParallelism: false }), 1);
  assert.equal(workerSlots({ pool: "threads", maxWorkers: 4, poolOptions: { threads: { maxThreads: 2 } } }), 2);
  assert.equal(workerSlots({ poolOptions: { forks: { singleFork: true } }, maxWorkers: 8 }), 1);
  assert.ok(workerSlots({}) >= 1);
});

test("a mock that cannot start rejects with its stderr, and never hangs", async () => {
  const dir = mkdtempSync(join(tmpdir(), "gatecheck-test-"));
  try {
    const broken = join(dir, "broken");
    writeFileSync(broken, '#!/bin/sh\necho "error: port in use: boom" >&2\nexit 3\n');
    chmodSync(broken, 0o755);
    await assert.rejects(startGatecheck({ bin: broken }), /exited with 3 before it was ready[^]*boom/);
    const silent = join(dir, "silent");
    writeFileSync(silent, "#!/bin/sh\necho starting >&2\nexec sleep 600\n");
    chmodSync(silent, 0o755);
    await assert.rejects(
      startGatecheck({ bin: silent, timeoutMs: 1000 }),
      /not ready within 1000 ms and was stopped[^]*starting/,
    );
    await assert.rejects(startGatecheck({ bin: join(dir, "nonexistent") }), /cannot run/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("without its platform package, the error names the package and GATECHECK_BIN", () => {
  // The main package alone, in a project of its own.
  const dir = mkdtempSync(join(tmpdir(), "gatecheck-alone-"));
  try {
    cpSync(dirname(require.resolve("gatecheck-harness/package.json")), join(dir, "node_modules", "gatecheck-harness"), {
      recursive: true,
    });
    const env = { ...process.env };
    delete env.GATECHECK_BIN;
    const run = spawnSync(process.execPath, ["node_modules/gatecheck-harness/bin/gatecheck.js", "--version"], {
      cwd: dir,
      env,
      encoding: "utf8",
    });
    assert.equal(run.status, 2);
    assert.match(run.stderr, new RegExp(`gatecheck-harness-${platformKey()}`));
    assert.match(run.stderr, /GATECHECK_BIN/);
    const withEnv = spawnSync(process.execPath, ["node_modules/gatecheck-harness/bin/gatecheck.js", "--version"], {
      cwd: dir,
      env: { ...env, GATECHECK_BIN: binaryPath() },
      encoding: "utf8",
    });
    assert.equal(withEnv.status, 0, withEnv.stderr);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
