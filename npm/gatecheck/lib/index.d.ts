/** A demo key of the ready object. */
export interface GatecheckKey {
  id: number;
  label: string;
  /** The `sk-...` secret. */
  key: string;
  state: string;
}

/** What `gatecheck serve --ready-json` prints once it listens. */
export interface GatecheckReady {
  /** e.g. `http://127.0.0.1:41234`; the OpenAI SDK takes `${base_url}/v1`. */
  base_url: string;
  profile: "documented" | "new-api";
  clock: string;
  /** The demo account (`New-Api-User` of `/api/token/`). */
  user_id: number;
  /** The demo account's access token (`Authorization` of `/api/token/`). */
  access_token: string;
  /** The enabled demo key. */
  demo_key: string;
  keys: GatecheckKey[];
  control_url: string;
  pid: number;
  [field: string]: unknown;
}

/** One journal entry of `GET /__mock/requests`. */
export interface GatecheckRequest {
  seq: number;
  at_ms: number;
  request_id: string;
  method: string;
  path: string;
  query: string | null;
  client_ip: string;
  key_id: number | null;
  status: number;
  duration_us: number;
  fault: string | null;
  body_len: number;
  body: string | null;
  [field: string]: unknown;
}

export interface InjectOptions {
  /** How often it fires (forever when absent). */
  times?: number;
  /** `Retry-After` seconds of a 429 or 503. */
  retryAfter?: number;
  /** 0..1 per matching request. */
  probability?: number;
}

/** The control API of a running mock. */
export interface GatecheckControl {
  ready: GatecheckReady;
  /** The `sk-...` secret of the demo key with this label, e.g. `key("demo-disabled")`. */
  key(label: string): string;
  /** Back to the start: fixture keys and tasks, empty journal, no fault, no clock offset. */
  reset(): Promise<void>;
  /** Moves the virtual clock forward. */
  advance(seconds: number): Promise<{ mode: string; now: number; now_ms: number }>;
  /** Answers requests matching `route` (e.g. `"POST /v1/audio/speech"`) with `status`; resolves to the fault's id. */
  inject(route: string, status: number, options?: InjectOptions): Promise<number>;
  /** Installs any fault of the control API (docs/mock.md); resolves to its id. */
  fault(fault: Record<string, unknown>): Promise<number>;
  /** The journal, oldest first. */
  requests(options?: { limit?: number }): Promise<GatecheckRequest[]>;
}

/** A mock this process started. */
export interface Gatecheck extends GatecheckControl {
  /** Stops the mock (SIGTERM, SIGKILL after 10 s). */
  stop(): Promise<void>;
  pid: number | undefined;
}

export interface StartOptions {
  /** The binary (default: `$GATECHECK_BIN`, else the platform package's). */
  bin?: string;
  profile?: "documented" | "new-api";
  /** `virtual` (default), `virtual:<unix seconds>` or `real`. */
  clock?: string;
  /** More `gatecheck serve` options. */
  args?: string[];
  /** How long the mock may take to listen (default 30 000). */
  timeoutMs?: number;
}

export const PROFILES: readonly ["documented", "new-api"];
export const PLATFORM_PACKAGES: Readonly<Record<string, string>>;

/** Starts `gatecheck serve` on a free port; rejects with its stderr when it cannot. */
export function startGatecheck(options?: StartOptions): Promise<Gatecheck>;
/** The control API of a mock started elsewhere, from its ready object. */
export function connectGatecheck(ready: GatecheckReady): GatecheckControl;
/** `$GATECHECK_BIN`, else the binary of this platform's package (throws naming the package when missing). */
export function binaryPath(): string;
/** This machine's platform key, e.g. `linux-x64-gnu`. */
export function platformKey(): string;
