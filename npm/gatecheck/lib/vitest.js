// vitest: one mock per worker, as the pytest plugin gives one per xdist worker.
//
//   // vitest.config.ts
//   export default defineConfig({ test: { globalSetup: ["gatecheck-harness/vitest"] } });
//   // a test file
//   import { inject } from "vitest";
//   import { connectGatecheck } from "gatecheck-harness/vitest";
//   const gc = connectGatecheck(inject("gatecheck")); // this worker's mock
//
// The globalSetup (this module's default export) starts one mock per worker slot of the run
// (`--maxWorkers`, the pool's `maxForks`/`maxThreads`, 1 without file parallelism) and
// provides their ready objects as `gatecheck`; a test file takes the one of its worker's
// `VITEST_POOL_ID`, which no other file running at the same time has. The files one worker
// runs one after another share its mock: reset it before each test (`beforeEach`, or this
// module's `test`, whose `gatecheck` fixture does).
//
// Options come from GATECHECK_PROFILE and GATECHECK_BIN, or write your own globalSetup file
// with `export default gatecheckGlobalSetup({ profile: "new-api" })`.
import { availableParallelism, cpus } from "node:os";
import { connectGatecheck } from "./control.js";
import { gatecheckFactory, startGatecheck } from "./index.js";

/** How many workers the run's pool may have at once: vitest's own count (vitest 1 to 3). */
export function workerSlots(config = {}) {
  if (config.fileParallelism === false) return 1;
  const pool = config.pool ?? "forks";
  const options = config.poolOptions?.[pool] ?? {};
  if (options.singleFork || options.singleThread) return 1;
  const max = Number(options.maxForks ?? options.maxThreads ?? config.maxWorkers);
  if (Number.isInteger(max) && max > 0) return max;
  const cores = availableParallelism?.() ?? cpus().length;
  return config.watch ? Math.max(Math.floor(cores / 2), 1) : Math.max(cores - 1, 1);
}

/** A globalSetup function that starts one mock per worker slot with these options. */
export function gatecheckGlobalSetup({ workers, ...options } = {}) {
  return async function setup(project) {
    // vitest 3 passes a TestProject (the run's options in globalConfig), 1 and 2 `{ config }`.
    const count = workers ?? workerSlots(project?.globalConfig ?? project?.config);
    const started = await Promise.allSettled(
      Array.from({ length: count }, () =>
        startGatecheck({ profile: process.env.GATECHECK_PROFILE || undefined, ...options }),
      ),
    );
    const mocks = started.filter((s) => s.status === "fulfilled").map((s) => s.value);
    const failed = started.find((s) => s.status === "rejected");
    if (failed) {
      await Promise.all(mocks.map((gc) => gc.stop()));
      throw failed.reason;
    }
    // vitest 1 and 2 pass `{ provide }`, vitest 3 a TestProject: both have provide().
    project?.provide?.("gatecheck", { workers: mocks.map((gc) => gc.ready) });
    return async () => {
      await Promise.all(mocks.map((gc) => gc.stop()));
    };
  };
}

/**
 * The control API of this worker's mock, from what the globalSetup provided
 * (`inject("gatecheck")`); a ready object of a mock started elsewhere works too. The same
 * function as the main entry's connectGatecheck.
 */
export { connectGatecheck };

export { gatecheckFactory };
export default gatecheckGlobalSetup();
