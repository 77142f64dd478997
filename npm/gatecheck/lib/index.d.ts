// Fields the mock leaves out of its JSON when it has no value are optional here (`field?: T`),
// never `T | null`: `entry.fault !== undefined` is true only for an entry a fault shaped.

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
  event: "ready";
  /** e.g. `http://127.0.0.1:41234`; the OpenAI SDK takes `${base_url}/v1`. */
  base_url: string;
  profile: "documented" | "new-api" | "new-api-adaptors";
  clock: string;
  /** The demo account (`New-Api-User` of `/api/token/`). */
  user_id: number;
  /** The demo account's access token (`Authorization` of `/api/token/`). */
  access_token: string;
  /** The enabled demo key. */
  demo_key: string;
  keys: GatecheckKey[];
  /** `${base_url}/__mock` */
  control_url: string;
  /** The recording it replays (`--replay`), else null. */
  replay: string | null;
  /** The mock's process id. */
  pid: number;
}

/** One part of a multipart request body, as the journal shows it. */
export interface GatecheckFormPart {
  /** The field name, e.g. `model`, `file`. */
  name: string;
  /** A text part's value (its first 256 bytes). */
  value?: string;
  /** A file part's file name. */
  filename?: string;
  /** The part's `Content-Type`, when it had one. */
  content_type?: string;
  /** A file part's size in bytes. */
  size?: number;
}

/** One journal entry of `GET /__mock/requests`. */
export interface GatecheckRequest {
  /** From 1, over the mock's life. */
  seq: number;
  /** Mock-clock time it arrived, Unix ms. */
  at_ms: number;
  /** The `X-Oneapi-Request-Id` answered. */
  request_id: string;
  method: string;
  /** Without the query. */
  path: string;
  /** The raw query string, when there was one. */
  query?: string;
  client_ip: string;
  /** The key that authenticated it (or the key an `/api/token/` request reads or writes). */
  key_id?: number;
  /** The status answered (0: the connection was reset). */
  status: number;
  /** Wall-clock handling time. */
  duration_us: number;
  /** The fault that shaped the answer, when one did. */
  fault?: string;
  /** The request body's length, when the route read it. */
  body_len?: number;
  /** The first 2 KiB of a JSON, form or text body, secrets redacted. */
  body?: string;
  /** On a replaying mock: whether the recording answered. */
  replay?: "matched" | "unmatched";
  /** Request headers by lowercase name (credentials keep only their scheme: `Bearer ***`). */
  headers?: Record<string, string>;
  /** The parts of a multipart body: text values; file parts by name, size and content type. */
  form?: GatecheckFormPart[];
}

/** An API key record (`addKey`, `keyRecord`; the secret is without `sk-`). */
export interface GatecheckKeyRecord {
  id: number;
  user_id: number;
  /** The secret, without `sk-`. */
  key: string;
  /** 1 enabled, 2 disabled, 3 expired, 4 quota exhausted. */
  status: number;
  name: string;
  created_time: number;
  accessed_time: number;
  /** Unix seconds; -1: never. */
  expired_time: number;
  remain_quota: number;
  unlimited_quota: boolean;
  model_limits_enabled: boolean;
  model_limits: string;
  /** Newline-separated allowed IPs; null or empty: any. */
  allow_ips: string | null;
  used_quota: number;
  group: string;
  cross_group_retry: boolean;
}

/** A key to create: every field optional (user 1, enabled, 50 000 000 quota, ... by default). */
export type GatecheckNewKey = Partial<GatecheckKeyRecord>;

/** An account of the mock. */
export interface GatecheckAccount {
  id: number;
  username: string;
  access_token: string;
  groups: string[];
}

/** What a fault does (docs/mock.md, "Faults"). */
export type GatecheckFaultKind =
  | { kind: "status"; status: number; retry_after?: number }
  | { kind: "delay"; ms: number }
  | { kind: "reset" }
  | { kind: "hang" }
  | { kind: "stream_cut"; event?: number }
  | { kind: "stream_stall"; event?: number; ms?: number }
  | { kind: "stream_malformed"; event?: number }
  | { kind: "upstream"; status: number; body?: unknown };

/** A fault to install: its kind, the route it matches (`*` by default), how often and how likely. */
export type GatecheckFault = GatecheckFaultKind & {
  /** A path pattern with `*`, optionally after a method: `"POST /v1/videos*"`. */
  route?: string;
  /** How often it fires (forever when absent). */
  times?: number;
  /** 0..1 per matching request (1 by default). */
  probability?: number;
  /** Reseeds the faults' draws first. */
  seed?: number;
};

/** An installed fault, as `faults()` lists it. */
export type GatecheckActiveFault = GatecheckFaultKind & {
  id: number;
  route: string;
  times?: number;
  probability: number;
  /** Times it has fired. */
  fired: number;
};

/** The mock's clock. */
export interface GatecheckClock {
  mode: "virtual" | "real";
  /** Unix seconds. */
  now: number;
  now_ms: number;
}

/** The whole state `state()` dumps and `loadState()` loads (keep it as it is). */
export interface GatecheckState {
  accounts: GatecheckAccount[];
  keys: GatecheckKeyRecord[];
  clock_offset_ms: number;
  videos: { tasks: unknown[] };
  [field: string]: unknown;
}

/** A video task as the video routes render it. */
export interface GatecheckVideo {
  id: string;
  status: string;
  progress?: number;
  [field: string]: unknown;
}

/** One event of a stream script. */
export interface GatecheckScriptedEvent {
  /** Its name (an `event:` line); without it, only `data:` lines. */
  event?: string;
  /** Sent as it is when a string, else as its JSON. */
  data: unknown;
  /** The wait before it, ms (default: the script's gap). */
  waitMs?: number;
}

/** The streamed answers of a route, scripted (the Rust `StreamScript`). */
export interface GatecheckStreamScript {
  /** e.g. `"POST /v1/audio/speech"` (a `*` matches any run of characters). */
  route: string;
  /** Only the answers for this model. */
  model?: string;
  events?: GatecheckScriptedEvent[];
  /** The wait between events without a `waitMs` (default: the mock's `--stream-gap-ms`). */
  gapMs?: number;
  /** Close the connection after this many events. */
  cutAfter?: number;
  /** For the next N answers (until reset() when absent). */
  times?: number;
  /** What the waits are measured on: `wall` time, or the mock's `clock`. */
  pacing?: "wall" | "clock";
}

/** A Kling callback the mock made. */
export type GatecheckCallback = {
  task_id: string;
  /** Its userinfo redacted. */
  url: string;
  /** The JSON sent (null when refused). */
  payload: unknown;
  /** Tries made (0 when refused). */
  attempts: number;
  /** Mock-clock time of the outcome, Unix ms. */
  at_ms: number;
} & (
  | { result: "delivered"; status: number }
  | { result: "failed"; status: number | null; error: string }
  | { result: "refused"; reason: string }
);

export interface InjectOptions {
  /** How often it fires (forever when absent). */
  times?: number;
  /** `Retry-After` seconds of a 429 or 503. */
  retryAfter?: number;
  /** 0..1 per matching request. */
  probability?: number;
}

export interface VideoOutcomeOptions {
  /** The error code of a `failed` or `error` outcome. */
  code?: string;
  /** Its message. */
  message?: string;
  /** End the task now rather than when its time comes. */
  immediate?: boolean;
}

/** The control API of a running mock (the Rust `MockServer`'s methods, camelCase). */
export interface GatecheckControl {
  ready: GatecheckReady;
  /** The `sk-...` secret of the demo key with this label, e.g. `key("demo-disabled")`. */
  key(label: string): string;
  /** That key's current record, as `keyRecord(id)` (the Rust `key(id)`). */
  key(id: number): Promise<GatecheckKeyRecord | undefined>;
  /** Creates a key; resolves to its full record (the secret without `sk-`). */
  addKey(newKey?: GatecheckNewKey): Promise<GatecheckKeyRecord>;
  /** One key's current record (failed tasks refunded first); undefined when there is no such key. */
  keyRecord(id: number): Promise<GatecheckKeyRecord | undefined>;
  /** Every key's record. */
  keys(): Promise<GatecheckKeyRecord[]>;
  /** Every account. */
  accounts(): Promise<GatecheckAccount[]>;
  /** Back to the start: fixture keys and tasks, empty journal, no fault, no clock offset. */
  reset(): Promise<void>;
  /** The clock. */
  clock(): Promise<GatecheckClock>;
  /** Moves the virtual clock forward; resolves to the clock. */
  advance(seconds: number): Promise<GatecheckClock>;
  /** Installs a fault; resolves to its id. */
  inject(fault: GatecheckFault): Promise<number>;
  /** Answers requests matching `route` (e.g. `"POST /v1/audio/speech"`) with `status`; resolves to the fault's id. */
  inject(route: string, status: number, options?: InjectOptions): Promise<number>;
  /** Installs a fault; resolves to its id (as `inject(fault)`). */
  fault(fault: GatecheckFault): Promise<number>;
  /** Removes one fault; resolves to whether it was installed. */
  removeFault(id: number): Promise<boolean>;
  /** Removes every fault. */
  clearFaults(): Promise<void>;
  /** The installed faults. */
  faults(): Promise<GatecheckActiveFault[]>;
  /** The journal, oldest first. */
  requests(options?: { limit?: number }): Promise<GatecheckRequest[]>;
  /** The journal, oldest first (the Rust `received_requests`). */
  receivedRequests(): Promise<GatecheckRequest[]>;
  /** Scripts the streamed answers of a route (and optionally a model), until reset(). */
  scriptStream(script: GatecheckStreamScript): Promise<void>;
  /** The Kling callbacks the mock made, oldest first. */
  callbacks(): Promise<GatecheckCallback[]>;
  /** The whole state. */
  state(): Promise<GatecheckState>;
  /** Loads a whole state (one `state()` gave). */
  loadState(state: GatecheckState): Promise<void>;
  /** Every video task, with its owner. */
  videos(): Promise<Array<{ owner: number; task: GatecheckVideo }>>;
  /** Decides how a video task that is not terminal yet ends; resolves to the task. */
  setVideoOutcome(
    id: string,
    outcome: "completed" | "failed" | "error",
    options?: VideoOutcomeOptions,
  ): Promise<GatecheckVideo>;
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
  profile?: "documented" | "new-api" | "new-api-adaptors";
  /** `virtual` (default), `virtual:<unix seconds>` or `real`. */
  clock?: string;
  /** A directory of fixtures (`accounts.json`, `keys.json`, ...; missing files: the embedded ones). */
  fixtures?: string;
  /** Seed of ids, secrets and fault draws. */
  seed?: number;
  /**
   * A poll of a pending video task that finds the virtual clock where its last poll left it
   * moves the clock on, and asks for the next poll in 50 ms: the SDK's polling ends in
   * moments (`--poll-advance`; default: with a virtual clock). A test that advances the
   * clock itself sees its own times.
   */
  pollAdvance?: boolean;
  /** More `gatecheck serve` options. */
  args?: string[];
  /** How long the mock may take to listen (default 30 000). */
  timeoutMs?: number;
}

/** Starts mocks with options of their own; `stopAll()` stops those still running. */
export interface GatecheckFactory {
  (options?: StartOptions): Promise<Gatecheck>;
  stopAll(): Promise<void>;
}

export const PROFILES: readonly ["documented", "new-api", "new-api-adaptors"];
export const PLATFORM_PACKAGES: Readonly<Record<string, string>>;

/** Starts `gatecheck serve` on a free port; rejects with its stderr when it cannot. */
export function startGatecheck(options?: StartOptions): Promise<Gatecheck>;
/** What `gatecheck-harness/vitest`'s globalSetup provides as `gatecheck`: the ready object of each worker slot's mock. */
export interface GatecheckProvided {
  workers: GatecheckReady[];
}

/**
 * The control API of a mock started elsewhere: from its ready object, or in a vitest test from
 * `inject("gatecheck")` (this worker's mock, by `VITEST_POOL_ID`). The same function as
 * `gatecheck-harness/vitest`'s connectGatecheck.
 */
export function connectGatecheck(ready: GatecheckReady | GatecheckProvided): GatecheckControl;
/** Mocks with options of their own (`defaults` under each call's options), stopped together. */
export function gatecheckFactory(defaults?: StartOptions): GatecheckFactory;
/** `$GATECHECK_BIN`, else the binary of this platform's package (throws naming the package when missing). */
export function binaryPath(): string;
/** This machine's platform key, e.g. `linux-x64-gnu`. */
export function platformKey(): string;
