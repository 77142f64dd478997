// A vitest globalSetup: one mock for the whole run, its ready object handed to the tests.
//
//   // vitest.config.ts
//   export default defineConfig({ test: { globalSetup: ["gatecheck-harness/vitest"] } });
//   // a test
//   import { inject } from "vitest";
//   import { connectGatecheck } from "gatecheck-harness";
//   const gc = connectGatecheck(inject("gatecheck")); // gc.ready.base_url, await gc.reset()
//
// Options come from GATECHECK_PROFILE and GATECHECK_BIN, or write your own globalSetup file
// with `export default gatecheckGlobalSetup({ profile: "new-api" })`.
import { startGatecheck } from "./index.js";

/** A globalSetup function that starts the mock with these options. */
export function gatecheckGlobalSetup(options = {}) {
  return async function setup(project) {
    const gc = await startGatecheck({
      profile: process.env.GATECHECK_PROFILE || undefined,
      ...options,
    });
    // vitest 1 and 2 pass `{ provide }`, vitest 3 a TestProject: both have provide().
    project?.provide?.("gatecheck", gc.ready);
    process.env.GATECHECK_BASE_URL = gc.ready.base_url;
    return async () => {
      await gc.stop();
    };
  };
}

export default gatecheckGlobalSetup();
