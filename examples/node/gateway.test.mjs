// The official OpenAI Node SDK against the mock: `npm test` (node:test), after `npm install`.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import OpenAI from "openai";
import { startGatecheck } from "./gatecheck.mjs";

let gc;
before(async () => {
  gc = await startGatecheck();
});
after(async () => {
  await gc?.stop();
});

const client = (key) =>
  new OpenAI({ baseURL: `${gc.ready.base_url}/v1`, apiKey: key, maxRetries: 0 });
const keyLabelled = (label) => gc.ready.keys.find((k) => k.label === label).key;

test("a PNG is generated with the demo key", async () => {
  const result = await client(gc.ready.demo_key).images.generate({
    model: "gpt-image-1",
    prompt: "a lighthouse at dusk",
    size: "1024x1024",
  });
  const png = Buffer.from(result.data[0].b64_json, "base64");
  assert.equal(png.subarray(1, 4).toString(), "PNG");
});

test("a disabled key is refused with 401", async () => {
  await assert.rejects(
    client(keyLabelled("demo-disabled")).images.generate({
      model: "dall-e-3",
      prompt: "a lighthouse at dusk",
      size: "1024x1024",
    }),
    (e) => e instanceof OpenAI.AuthenticationError && e.status === 401,
  );
});

test("the access token lists the demo account's keys", async () => {
  const res = await fetch(`${gc.ready.base_url}/api/token/?p=1&size=10`, {
    headers: {
      Authorization: gc.ready.access_token,
      "New-Api-User": String(gc.ready.user_id),
    },
  });
  assert.equal(res.status, 200);
  const body = await res.json();
  assert.equal(body.success, true);
});
