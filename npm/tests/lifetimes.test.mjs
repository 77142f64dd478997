// How long things take, as a Node team meets them: the SDK's way
// of polling a video ends in a few seconds of wall time on the default fixture; a node process
// killed with SIGKILL takes its mock with it and leaves no temp folder; stop() does not wait
// out a client's delay fault. `node --test` in a project that installed the tarballs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import OpenAI from "openai";
import { startGatecheck } from "gatecheck-harness";

/** Whether `pid` runs (a zombie no one has reaped yet has ended). */
const alive = (pid) => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // `pid (comm) S ...`: the state follows the last `)`.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return true; // no /proc (macOS): kill(0) said it is there
  }
};

/** Resolves to how long `pid` took to end (ms), or rejects after `limitMs`. */
async function ends(pid, limitMs) {
  const start = Date.now();
  while (alive(pid)) {
    if (Date.now() - start > limitMs) throw new Error(`process ${pid} still runs after ${limitMs} ms`);
    await sleep(50);
  }
  return Date.now() - start;
}

test("a client polling as the Node SDK's poll helpers do reaches completed in a few seconds", async (t) => {
  const gc = await startGatecheck(); // the default fixture, the virtual clock
  try {
    const client = new OpenAI({ baseURL: `${gc.ready.base_url}/v1`, apiKey: gc.ready.demo_key, maxRetries: 0 });
    const created = await client.videos.create({ model: "sora-2", prompt: "a calm lake at dawn" });
    const start = Date.now();
    // The loop of the SDK's poll() helpers (vector store files, runs): retrieve with the
    // poll-helper header, stop on a terminal status, else sleep `openai-poll-after-ms`
    // (5000 without it).
    let video = created;
    let polls = 0;
    for (;;) {
      const { data, response } = await client.videos
        .retrieve(created.id, { headers: { "X-Stainless-Poll-Helper": "true" } })
        .withResponse();
      video = data;
      polls++;
      if (video.status === "completed" || video.status === "failed") break;
      assert.ok(Date.now() - start < 15_000, `still ${video.status} after ${polls} polls`);
      const after = Number.parseInt(response.headers.get("openai-poll-after-ms") ?? "", 10);
      await sleep(Number.isNaN(after) ? 5000 : after);
    }
    const took = Date.now() - start;
    assert.equal(video.status, "completed");
    t.diagnostic(`completed after ${took} ms, ${polls} polls`);
    assert.ok(took < 10_000, `completed after ${took} ms (${polls} polls)`);
  } finally {
    await gc.stop();
  }
});

test("a node process killed with SIGKILL takes its mock with it, and leaves no temp folder", async (t) => {
  const tmp = mkdtempSync(join(tmpdir(), "gatecheck-sigkill-"));
  let mock, parent;
  try {
    // A test process as a user's: it starts a mock and is killed before it can stop it.
    const script =
      'import { startGatecheck } from "gatecheck-harness";' +
      "const gc = await startGatecheck();" +
      "console.log(JSON.stringify({ mock: gc.ready.pid }));" +
      "setInterval(() => {}, 1000);";
    parent = spawn(process.execPath, ["--input-type=module", "-e", script], {
      cwd: process.cwd(),
      env: { ...process.env, TMPDIR: tmp },
      stdio: ["ignore", "pipe", "inherit"],
    });
    const [line] = await Promise.race([
      new Promise((resolve) => createInterface({ input: parent.stdout }).once("line", (l) => resolve([l]))),
      sleep(30_000, [null], { ref: false }),
    ]);
    assert.ok(line, "the parent printed no mock pid");
    mock = JSON.parse(line).mock;
    assert.ok(alive(mock));
    parent.kill("SIGKILL");
    const took = await ends(mock, 5000);
    t.diagnostic(`the mock ended ${took} ms after its parent's SIGKILL`);
    assert.ok(took < 5000, `the mock ended ${took} ms after its parent`);
    assert.deepEqual(readdirSync(tmp), [], "temp files left behind");
  } finally {
    // A failed run leaves no process behind.
    parent?.kill("SIGKILL");
    if (mock && alive(mock)) process.kill(mock, "SIGKILL");
    rmSync(tmp, { recursive: true, force: true });
  }
});

test("stop() does not wait out a client's delay fault", async (t) => {
  const gc = await startGatecheck();
  await gc.inject({ route: "GET /v1/models", kind: "delay", ms: 5000 });
  const waiting = fetch(`${gc.ready.base_url}/v1/models`, {
    headers: { Authorization: `Bearer ${gc.ready.demo_key}` },
  }).catch((e) => e);
  await sleep(200); // the request arrives and sits in its delay
  const start = Date.now();
  await gc.stop();
  const took = Date.now() - start;
  t.diagnostic(`stop() took ${took} ms during a 5 s delay`);
  assert.ok(took < 1500, `stop() took ${took} ms`);
  await waiting;
});

test("reset() ends a client's delay fault, and the fresh journal is without it", async (t) => {
  const gc = await startGatecheck();
  t.after(() => gc.stop());
  await gc.inject({ route: "GET /v1/models", kind: "delay", ms: 5000 });
  const start = Date.now();
  const waiting = fetch(`${gc.ready.base_url}/v1/models`, {
    headers: { Authorization: `Bearer ${gc.ready.demo_key}` },
  });
  while ((await gc.faults())[0].fired === 0) await sleep(10); // it sits in its delay
  await gc.reset();
  const res = await waiting;
  await res.arrayBuffer();
  assert.equal(res.status, 503, "the cut request is answered, unserved (mock_reset)");
  assert.ok(Date.now() - start < 2500, `answered after ${Date.now() - start} ms`);
  // The cut request was once journaled after the reset, first in the next test's journal.
  assert.deepEqual(await gc.requests(), []);
  await (await fetch(`${gc.ready.base_url}/api/models`)).arrayBuffer();
  assert.deepEqual((await gc.requests()).map((r) => [r.path, r.fault]), [["/api/models", undefined]]);
});
