import type { TestAPI } from "vitest";
import type { GatecheckControl, GatecheckFactory } from "./index.js";
import "./vitest.js";

export interface GatecheckFixtures {
  /** This worker's mock, reset before the test. */
  gatecheck: GatecheckControl;
  /** Starts a mock with options of the test's own, stopped when the test ends. */
  makeGatecheck: GatecheckFactory;
}

/** vitest's `test` with the `gatecheck` and `makeGatecheck` fixtures. */
export const test: TestAPI<GatecheckFixtures>;
