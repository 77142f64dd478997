// The official OpenAI Node SDK's three streams against the installed package's mock, in both
// profiles (DECISIONS D-STREAM): `node --test` in a project that installed the tarballs
// (`.ci/packages`).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import OpenAI, { toFile } from "openai";
import { startGatecheck } from "gatecheck-harness";

// The documented profile, and the new-api one (its framing differs: speech events without
// `event:` lines, image streams ending with `data: [DONE]`).
let gc, newApi;
before(async () => {
  [gc, newApi] = await Promise.all([startGatecheck(), startGatecheck({ profile: "new-api" })]);
});
after(async () => {
  await Promise.all([gc?.stop(), newApi?.stop()]);
});

const client = (key, server = gc) =>
  new OpenAI({ baseURL: `${server.ready.base_url}/v1`, apiKey: key, maxRetries: 0 });

const profiles = () => [
  ["documented", gc],
  ["new-api", newApi],
];

/** The events of a `text/event-stream` body, read as it arrives: `{ event, data }`. */
async function readSse(body) {
  const events = [];
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true }).replace(/\r\n?/g, "\n");
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = { event: undefined, data: [] };
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) event.event = line.slice(6).trim();
        else if (line.startsWith("data:")) event.data.push(line.slice(5).replace(/^ /, ""));
      }
      events.push({ event: event.event, data: event.data.join("\n") });
    }
  }
  assert.equal(buffer, "", "the stream ends after a whole event");
  return events;
}

/** A one-second 16 kHz mono WAV (a tone), as an upload. */
function wav() {
  const rate = 16000;
  const samples = rate;
  const out = Buffer.alloc(44 + samples * 2);
  out.write("RIFF", 0);
  out.writeUInt32LE(36 + samples * 2, 4);
  out.write("WAVEfmt ", 8);
  out.writeUInt32LE(16, 16);
  out.writeUInt16LE(1, 20);
  out.writeUInt16LE(1, 22);
  out.writeUInt32LE(rate, 24);
  out.writeUInt32LE(rate * 2, 28);
  out.writeUInt16LE(2, 32);
  out.writeUInt16LE(16, 34);
  out.write("data", 36);
  out.writeUInt32LE(samples * 2, 40);
  for (let i = 0; i < samples; i++) {
    out.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / rate)), 44 + i * 2);
  }
  return toFile(out, "speech.wav", { type: "audio/wav" });
}

/** Width and height of a PNG, from its IHDR chunk. */
function pngSize(bytes) {
  assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  assert.equal(bytes.subarray(12, 16).toString(), "IHDR");
  return [bytes.readUInt32BE(16), bytes.readUInt32BE(20)];
}

test("speech with stream_format sse: deltas that make the plain answer's mp3, then done", async () => {
  for (const [profile, server] of profiles()) {
    const params = {
      model: "gpt-4o-mini-tts",
      input: "The stream carries this sentence as audio, part by part.",
      voice: "alloy",
      response_format: "mp3",
    };
    const speech = client(server.ready.demo_key, server).audio.speech;
    const plain = Buffer.from(await (await speech.create(params)).arrayBuffer());
    const res = await speech.create({ ...params, stream_format: "sse" });
    assert.match(res.headers.get("content-type"), /^text\/event-stream/);
    const events = await readSse(res.body);
    const parsed = events.map((e) => JSON.parse(e.data));
    const types = parsed.map((e) => e.type);
    assert.ok(types.length >= 5, `${profile}: ${types}`);
    assert.deepEqual(types.slice(0, -1), Array(types.length - 1).fill("speech.audio.delta"));
    assert.equal(types.at(-1), "speech.audio.done");
    // Named events in the documented profile; `data:` lines only in new-api's.
    const named = profile === "documented";
    events.forEach((e, i) => assert.equal(e.event, named ? types[i] : undefined));
    const audio = Buffer.concat(parsed.slice(0, -1).map((e) => Buffer.from(e.audio, "base64")));
    assert.ok(audio.equals(plain), `${profile}: the deltas are the plain answer's file`);
    assert.ok(audio.subarray(0, 3).toString() === "ID3" || audio[0] === 0xff, "an mp3");
    const usage = parsed.at(-1).usage;
    assert.equal(usage.total_tokens, usage.input_tokens + usage.output_tokens);
  }
});

test("transcription with stream: true: deltas whose text is the done text", async () => {
  for (const [profile, server] of profiles()) {
    const stream = await client(server.ready.demo_key, server).audio.transcriptions.create({
      file: await wav(),
      model: "gpt-4o-mini-transcribe",
      stream: true,
    });
    const types = [];
    let deltas = "";
    let done;
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === "transcript.text.delta") deltas += event.delta;
      if (event.type === "transcript.text.done") done = event;
    }
    assert.ok(types.length >= 2, `${profile}: ${types}`);
    assert.deepEqual(types.slice(0, -1), Array(types.length - 1).fill("transcript.text.delta"));
    assert.equal(types.at(-1), "transcript.text.done");
    assert.ok(deltas.length > 0);
    assert.equal(done.text, deltas, `${profile}: the done text is the deltas`);
    assert.equal(done.usage.type, "tokens");
  }
});

test("image generation with stream: true and partial_images 2: two partial PNGs, then the PNG", async () => {
  for (const [profile, server] of profiles()) {
    const stream = await client(server.ready.demo_key, server).images.generate({
      model: "gpt-image-1",
      prompt: "a red triangle on grey",
      size: "1024x1536",
      stream: true,
      partial_images: 2,
    });
    const types = [];
    for await (const event of stream) {
      types.push(event.type);
      const size = pngSize(Buffer.from(event.b64_json, "base64"));
      assert.deepEqual(size, [1024, 1536], `${profile}: ${event.type} is a PNG of the size`);
      if (event.type === "image_generation.partial_image") {
        assert.equal(event.partial_image_index, types.length - 1);
      }
    }
    assert.deepEqual(types, [
      "image_generation.partial_image",
      "image_generation.partial_image",
      "image_generation.completed",
    ], profile);
  }
});
