import type { GatecheckProvided, StartOptions } from "./index.js";

/** What the globalSetup provides as `gatecheck`: the ready object of each worker slot's mock. */
export type { GatecheckProvided } from "./index.js";

declare module "vitest" {
  export interface ProvidedContext {
    gatecheck: GatecheckProvided;
  }
}

export interface GlobalSetupOptions extends StartOptions {
  /** Mocks to start, one per worker slot (default: the run's pool size, as vitest counts it). */
  workers?: number;
}

type Setup = (project?: { provide?(key: string, value: unknown): void }) => Promise<() => Promise<void>>;

/** A vitest globalSetup that starts one mock per worker slot and provides their ready objects as `gatecheck`. */
export function gatecheckGlobalSetup(options?: GlobalSetupOptions): Setup;
/** The control API of this worker's mock (`VITEST_POOL_ID`), from `inject("gatecheck")`; or of the mock of a ready object (the main entry's connectGatecheck, the same function). */
export { connectGatecheck } from "./index.js";
/** How many workers a run's pool may have at once (vitest's own count), from its resolved config. */
export function workerSlots(config?: Record<string, unknown>): number;
export { gatecheckFactory } from "./index.js";
declare const setup: Setup;
export default setup;
