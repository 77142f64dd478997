// vitest's `test` with two fixtures (import it in test files, never in a globalSetup):
//
//   import { test } from "gatecheck-harness/vitest/fixtures";
//   test("...", async ({ gatecheck, makeGatecheck }) => { ... });
//
// - `gatecheck`: this worker's mock (`gatecheck-harness/vitest`'s globalSetup), reset before
//   the test: the pytest plugin's `gatecheck` fixture.
// - `makeGatecheck(options)`: starts a mock of the test's own (another profile, clock,
//   fixtures directory, seed), stopped when the test ends: pytest's factory fixture.
import { inject, test as base } from "vitest";
import { gatecheckFactory } from "./index.js";
import { connectGatecheck } from "./vitest.js";

let worker;
/** This worker's mock, connected once per test file. */
function workerMock() {
  if (!worker) {
    const provided = inject("gatecheck");
    if (!provided) {
      throw new Error(
        'gatecheck: nothing provided "gatecheck"; add globalSetup: ["gatecheck-harness/vitest"] to the vitest config',
      );
    }
    worker = connectGatecheck(provided);
  }
  return worker;
}

export const test = base.extend({
  // eslint-disable-next-line no-empty-pattern
  gatecheck: async ({}, use) => {
    const gc = workerMock();
    await gc.reset();
    await use(gc);
  },
  // eslint-disable-next-line no-empty-pattern
  makeGatecheck: async ({}, use) => {
    const make = gatecheckFactory();
    try {
      await use(make);
    } finally {
      await make.stopAll();
    }
  },
});
