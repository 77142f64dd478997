// Shared by the isolation-*.test.ts files: each test resets its worker's mock, installs a fault
// that fires twice, and sees exactly its own three answers in the journal. Files that ran at
// the same time on one mock would reset and inject into each other (`expected [429,
// 200, 429, 200] to deeply equal [429, 429, 200]`). Each file logs its worker, its mock and
// when it ran, for vitest.test.mjs to check that files did run at the same time on
// different mocks. On a loaded machine the workers start one by one, and a file could end
// before another began ("no two files ran at the same time"): under
// GATECHECK_VITEST_LOG each file waits (at most 20 s) for a second file to have started.
import { appendFileSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, beforeEach, expect, expectTypeOf, inject, test } from "vitest";
import type { GatecheckKeyRecord, GatecheckReady, GatecheckRequest } from "gatecheck-harness";
import { connectGatecheck } from "gatecheck-harness/vitest";
import type { GatecheckProvided } from "gatecheck-harness/vitest";

// The types (checked by tsc --noEmit): what the globalSetup provides, and journal fields the
// mock leaves out are optional, never `T | null` (`{}` has none of them).
expectTypeOf(inject("gatecheck")).toEqualTypeOf<GatecheckProvided>();
expectTypeOf(inject("gatecheck").workers).toEqualTypeOf<GatecheckReady[]>();
type Omitted = "query" | "key_id" | "fault" | "body_len" | "body" | "replay" | "headers" | "form";
expectTypeOf<{}>().toMatchTypeOf<Pick<GatecheckRequest, Omitted>>();
expectTypeOf<GatecheckRequest["fault"]>().toEqualTypeOf<string | undefined>();
expectTypeOf<GatecheckRequest["status"]>().toEqualTypeOf<number>();

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function isolationSuite(file: string): void {
  const gc = connectGatecheck(inject("gatecheck"));
  expectTypeOf(gc.key("demo-enabled")).toEqualTypeOf<string>();
  expectTypeOf(gc.key(1)).toEqualTypeOf<Promise<GatecheckKeyRecord | undefined>>();
  let start = 0;
  beforeAll(async () => {
    start = Date.now();
    const log = process.env.GATECHECK_VITEST_LOG;
    if (!log) return;
    const starts = `${log}.starts`;
    mkdirSync(starts, { recursive: true });
    writeFileSync(`${starts}/${file}`, "");
    while (readdirSync(starts).length < 2 && Date.now() - start < 20_000) await pause(20);
  }, 30_000);
  afterAll(() => {
    const log = process.env.GATECHECK_VITEST_LOG;
    const line = { file, pool: process.env.VITEST_POOL_ID, base_url: gc.ready.base_url, start, end: Date.now() };
    if (log) appendFileSync(log, JSON.stringify(line) + "\n");
  });
  beforeEach(() => gc.reset());

  for (const round of [1, 2, 3]) {
    test(`round ${round}: a fault that fires twice, then the journal of exactly these requests`, async () => {
      const id = await gc.inject("GET /v1/models", 429, { times: 2 });
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await fetch(`${gc.ready.base_url}/v1/models`, {
          headers: { Authorization: `Bearer ${gc.ready.demo_key}` },
        });
        await res.arrayBuffer();
        statuses.push(res.status);
        await pause(25); // long enough for files on other workers to run meanwhile
      }
      expect(statuses).toEqual([429, 429, 200]);
      const journal = await gc.requests();
      expect(journal.map((r) => r.status)).toEqual([429, 429, 200]);
      expect(journal.map((r) => r.fault !== undefined)).toEqual([true, true, false]);
      expect((await gc.faults()).map((f) => [f.id, f.fired])).toEqual([[id, 2]]);
      await gc.advance(round);
      expect((await gc.clock()).now_ms - journal[0].at_ms).toBe(round * 1000);
    });
  }
}
