// The whole control API of the installed package (the Rust MockServer's methods, camelCase),
// with the official OpenAI Node SDK as the client, and gatecheckFactory(): `node --test` in a
// project that installed the tarballs (`.ci/packages`).
import { after, afterEach, before, test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import OpenAI, { toFile } from "openai";
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
  assert.deepEqual(await gc.key(added.id), now, "key(id): the Rust name");
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
  assert.deepEqual(await gc.receivedRequests(), [faulted, plain]);
});

test("the journal shows the headers sent (credentials redacted) and a multipart form's fields", async () => {
  await gc.reset();
  const wav = Buffer.alloc(44 + 1600);
  wav.write("RIFF", 0);
  wav.writeUInt32LE(36 + 1600, 4);
  wav.write("WAVEfmt ", 8);
  wav.writeUInt32LE(16, 16);
  wav.writeUInt16LE(1, 20);
  wav.writeUInt16LE(1, 22);
  wav.writeUInt32LE(8000, 24);
  wav.writeUInt32LE(16000, 28);
  wav.writeUInt16LE(2, 32);
  wav.writeUInt16LE(16, 34);
  wav.write("data", 36);
  wav.writeUInt32LE(1600, 40);
  const file = await toFile(wav, "hello.wav", { type: "audio/wav" });
  await client(gc.ready.demo_key).audio.transcriptions.create({ model: "whisper-1", file, language: "fr" });
  const [entry] = await gc.requests();
  assert.equal(entry.headers.authorization, "Bearer ***");
  assert.ok(!JSON.stringify(entry).includes(gc.ready.demo_key.slice(3)), "the secret is not in the journal");
  assert.match(entry.headers["content-type"], /^multipart\/form-data; boundary=/);
  const fields = Object.fromEntries(entry.form.map((p) => [p.name, p]));
  assert.equal(fields.model.value, "whisper-1");
  assert.equal(fields.language.value, "fr");
  assert.deepEqual([fields.file.filename, fields.file.content_type, fields.file.size], ["hello.wav", "audio/wav", wav.length]);
  assert.equal(fields.file.value, undefined);
});

test("scriptStream plays its events to a streamed answer, once", async () => {
  await gc.reset();
  const delta = { type: "speech.audio.delta", audio: "AAAA" };
  await gc.scriptStream({
    route: "POST /v1/audio/speech",
    model: "gpt-4o-mini-tts",
    events: [{ event: "speech.audio.delta", data: delta }, { data: "[DONE]", waitMs: 1 }],
    times: 1,
  });
  const speak = async () => {
    const res = await fetch(`${gc.ready.base_url}/v1/audio/speech`, {
      method: "POST",
      headers: { Authorization: `Bearer ${gc.ready.demo_key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-4o-mini-tts", voice: "alloy", input: "hi", stream_format: "sse" }),
    });
    assert.equal(res.status, 200);
    return res.text();
  };
  const scripted = await speak();
  assert.equal(scripted.replace(/\r\n/g, "\n"), `event: speech.audio.delta\ndata: ${JSON.stringify(delta)}\n\ndata: [DONE]\n\n`);
  assert.notEqual(await speak(), scripted, "times: 1");
  await assert.rejects(gc.scriptStream({ events: [] }), /400[^]*route/);
});

test("callbacks(): what a Kling task's callback_url was sent", async () => {
  await gc.reset();
  const received = [];
  const receiver = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      received.push(JSON.parse(body));
      res.end("ok");
    });
  });
  await new Promise((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  try {
    const url = `http://127.0.0.1:${receiver.address().port}/hook`;
    const res = await fetch(`${gc.ready.base_url}/kling/v1/videos/text2video`, {
      method: "POST",
      headers: { Authorization: `Bearer ${gc.ready.demo_key}`, "content-type": "application/json" },
      body: JSON.stringify({ model_name: "kling-v2-master", prompt: "a heron", callback_url: url }),
    });
    assert.equal(res.status, 200, await res.clone().text());
    assert.deepEqual(await gc.callbacks(), []);
    await gc.advance(300);
    let callbacks = [];
    for (let i = 0; i < 100 && callbacks.length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      callbacks = await gc.callbacks();
    }
    assert.equal(callbacks.length, 1, JSON.stringify(callbacks));
    const [cb] = callbacks;
    assert.deepEqual([cb.result, cb.status, cb.attempts, cb.url], ["delivered", 200, 1, url]);
    assert.deepEqual(received, [cb.payload]);
  } finally {
    receiver.close();
  }
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
