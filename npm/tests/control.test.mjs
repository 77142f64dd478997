// The whole control API of the installed package (the Rust MockServer's methods, camelCase),
// with the official OpenAI Node SDK as the client, and gatecheckFactory(): `node --test` in a
// project that installed the tarballs (`.ci/packages`).
import { after, afterEach, before, test } from "node:test";
import assert from "node:assert/strict";
import OpenAI from "openai";
import { gatecheckFactory, startGatecheck } from "gatecheck-harness";

let gc;
before(async () => {
  gc = await startGatecheck();
});
after(async () => {
  await gc?.stop();
});

const client = (key, server = gc) =>
  new OpenAI({ baseURL: `${server.ready.base_url}/v1`, apiKey: key, maxRetries: 0 });

test("addKey resolves to the record; keyRecord reads it as requests use it", async () => {
  await gc.reset();
  const added = await gc.addKey({ name: "tiny", remain_quota: 5_000_000 });
  assert.equal(added.name, "tiny");
  assert.equal(added.remain_quota, 5_000_000);
  assert.equal(added.used_quota, 0);
  assert.ok(!added.allow_ips, "no IP restriction");
  const speech = { model: "tts-1", voice: "alloy", input: "hello" };
  await (await client(`sk-${added.key}`).audio.speech.create(speech)).arrayBuffer();
  const now = await gc.keyRecord(added.id);
  assert.ok(now.used_quota > 0, JSON.stringify(now));
  assert.equal(now.used_quota + now.remain_quota, 5_000_000);
  assert.equal(await gc.keyRecord(987_654), undefined);
  assert.ok((await gc.keys()).some((k) => k.id === added.id));
  assert.equal((await gc.accounts())[0].id, gc.ready.user_id);
  await gc.reset();
  assert.equal(await gc.keyRecord(added.id), undefined);
});

test("faults: inject either form, list them with their firings, remove one, clear", async () => {
  await gc.reset();
  const models = client(gc.ready.demo_key).models;
  const first = await gc.inject("GET /v1/models", 429, { times: 1, retryAfter: 2 });
  const second = await gc.inject({ route: "POST /v1/audio/speech", kind: "delay", ms: 10 });
  assert.notEqual(first, second);
  await assert.rejects(models.list(), (e) => e instanceof OpenAI.RateLimitError);
  const listed = await gc.faults();
  assert.deepEqual(
    listed.map((f) => [f.id, f.route, f.kind, f.fired]),
    [
      [first, "GET /v1/models", "status", 1],
      [second, "POST /v1/audio/speech", "delay", 0],
    ],
  );
  assert.equal(listed[0].retry_after, 2);
  assert.equal(await gc.removeFault(second), true);
  assert.equal(await gc.removeFault(second), false);
  await gc.inject("GET /v1/models", 503);
  await gc.clearFaults();
  assert.deepEqual(await gc.faults(), []);
  await models.list();
});

test("the journal leaves out what does not apply (no nulls): a fault is there only when one fired", async () => {
  await gc.reset();
  await gc.inject("GET /v1/models", 503, { times: 1 });
  const models = client(gc.ready.demo_key).models;
  await assert.rejects(models.list());
  await models.list();
  const [faulted, plain] = await gc.requests();
  assert.equal(typeof faulted.fault, "string");
  assert.equal(faulted.status, 503);
  assert.equal(plain.status, 200);
  assert.equal("fault" in plain, false);
  assert.equal(plain.fault, undefined);
  for (const entry of [faulted, plain]) {
    for (const [field, value] of Object.entries(entry)) assert.notEqual(value, null, field);
  }
  assert.equal((await gc.requests({ limit: 1 }))[0].seq, plain.seq);
});

test("setVideoOutcome decides how a task ends; videos() lists it", async () => {
  await gc.reset();
  const videos = client(gc.ready.demo_key).videos;
  const created = await videos.create({ model: "sora-2", prompt: "a calm lake" });
  const task = await gc.setVideoOutcome(created.id, "failed", { code: "content_policy", message: "no" });
  assert.equal(task.id, created.id);
  await gc.advance(600);
  const done = await videos.retrieve(created.id);
  assert.equal(done.status, "failed");
  assert.deepEqual((await gc.videos()).map((v) => [v.owner, v.task.id]), [[gc.ready.user_id, created.id]]);
  await assert.rejects(gc.setVideoOutcome(created.id, "completed"), /409/);
  await assert.rejects(gc.setVideoOutcome("video_nonexistent", "completed"), /404/);
});

test("state() and loadState(): a key and a task come back, with the clock", async () => {
  await gc.reset();
  const key = await gc.addKey({ name: "saved" });
  const created = await client(gc.ready.demo_key).videos.create({ model: "sora-2", prompt: "x" });
  await gc.advance(5);
  const saved = await gc.state();
  assert.ok(saved.keys.some((k) => k.id === key.id));
  assert.equal(saved.clock_offset_ms, 5000);
  await gc.reset();
  assert.equal(await gc.keyRecord(key.id), undefined);
  await gc.loadState(saved);
  assert.equal((await gc.keyRecord(key.id)).name, "saved");
  assert.equal((await client(gc.ready.demo_key).videos.retrieve(created.id)).id, created.id);
  const clock = await gc.clock();
  assert.equal(clock.mode, "virtual");
  assert.equal((await gc.advance(1)).now, clock.now + 1);
  await assert.rejects(gc.advance(-1), RangeError);
});

const make = gatecheckFactory();
afterEach(() => make.stopAll());

test("gatecheckFactory: mocks with options of their own, stopped together", async () => {
  const [newApi, seeded, again] = await Promise.all([
    make({ profile: "new-api" }),
    make({ seed: 7 }),
    make({ seed: 7, clock: "virtual:1700000000" }),
  ]);
  assert.equal(newApi.ready.profile, "new-api");
  // The seed makes the secrets of new keys: the same on both seeded mocks.
  const [a, b] = await Promise.all([seeded.addKey(), again.addKey()]);
  assert.equal(a.key, b.key);
  assert.equal((await again.clock()).now, 1_700_000_000);
  await seeded.stop();
  await make.stopAll();
  for (const m of [newApi, seeded, again]) await assert.rejects(m.clock());
});
