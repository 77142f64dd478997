// A test that leaves a request in a `delay` fault, then an isolation test on the same mock:
// the beforeEach reset() cuts the delay short, and the cut request must not be served against
// the fresh state nor written into the fresh journal (it was: the second test's requests()
// began with the first test's GET /v1/models). The main entry's connectGatecheck, given
// inject("gatecheck"), is this worker's mock, as gatecheck-harness/vitest's is.
import { beforeEach, expect, inject, test } from "vitest";
import { connectGatecheck } from "gatecheck-harness";
import { connectGatecheck as connectVitest } from "gatecheck-harness/vitest";

const gc = connectGatecheck(inject("gatecheck"));
beforeEach(() => gc.reset());

let cut: Promise<number> | undefined;

test("the main entry's connectGatecheck is this worker's mock", () => {
  expect(gc.ready.base_url).toBe(connectVitest(inject("gatecheck")).ready.base_url);
});

test("a request held by a 5 s delay fault, left waiting at the end of the test", async () => {
  await gc.inject({ route: "GET /v1/models", kind: "delay", ms: 5000 });
  cut = fetch(`${gc.ready.base_url}/v1/models`, {
    headers: { Authorization: `Bearer ${gc.ready.demo_key}` },
  }).then(async (res) => {
    await res.arrayBuffer();
    return res.status;
  });
  // It has arrived and sits in its delay.
  while ((await gc.faults())[0].fired === 0) await new Promise((r) => setTimeout(r, 10));
});

test("after the reset: the cut request answered, and the journal holds only this test's", async () => {
  const started = Date.now();
  expect(await cut).toBe(503); // answered at once, unserved: mock_reset
  expect(Date.now() - started).toBeLessThan(2500);
  expect(await gc.requests()).toEqual([]);
  await gc.inject("GET /v1/models", 429, { times: 1 });
  const statuses: number[] = [];
  for (let i = 0; i < 2; i++) {
    const res = await fetch(`${gc.ready.base_url}/v1/models`, {
      headers: { Authorization: `Bearer ${gc.ready.demo_key}` },
    });
    await res.arrayBuffer();
    statuses.push(res.status);
  }
  expect(statuses).toEqual([429, 200]);
  const journal = await gc.requests();
  expect(journal.map((r) => [r.path, r.status, r.fault])).toEqual([
    ["/v1/models", 429, "status 429"],
    ["/v1/models", 200, undefined],
  ]);
});
