import type { GatecheckReady, StartOptions } from "./index.js";

declare module "vitest" {
  export interface ProvidedContext {
    gatecheck: GatecheckReady;
  }
}

type Setup = (project?: { provide?(key: string, value: unknown): void }) => Promise<() => Promise<void>>;

/** A vitest globalSetup that starts a mock with these options and provides its ready object as `gatecheck`. */
export function gatecheckGlobalSetup(options?: StartOptions): Setup;
declare const setup: Setup;
export default setup;
