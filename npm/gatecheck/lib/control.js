// connectGatecheck(ready or inject("gatecheck")): the control API (`/__mock/*`) of a running
// mock as async methods, named as the Rust handle's (MockServer) in camelCase.

/** How long one control request may take. */
const CONTROL_TIMEOUT_MS = 10_000;

/**
 * The ready object of this vitest worker's mock, from what `gatecheck-harness/vitest`'s
 * globalSetup provides (`inject("gatecheck")`: `{ workers: [ready, ...] }`, one per worker
 * slot): the one of `VITEST_POOL_ID`, which no other file running at the same time has.
 */
export function workerReady(provided) {
  const slot = Number(process.env.VITEST_POOL_ID ?? "1");
  const ready = provided.workers[slot - 1];
  if (!ready) {
    throw new Error(
      `gatecheck: this is vitest worker ${slot}, but the globalSetup started ` +
        `${provided.workers.length} mock(s); give gatecheckGlobalSetup({ workers }) the pool's size`,
    );
  }
  return ready;
}

/**
 * The control API of a running mock, and its demo keys: from its ready object (what
 * startGatecheck() and `gatecheck serve --ready-json` give), or from what
 * `gatecheck-harness/vitest`'s globalSetup provides (`inject("gatecheck")`): this worker's
 * mock. The main entry's and `gatecheck-harness/vitest`'s connectGatecheck are this one.
 */
export function connectGatecheck(readyOrProvided) {
  const ready = Array.isArray(readyOrProvided?.workers) ? workerReady(readyOrProvided) : readyOrProvided;
  if (!ready || typeof ready.base_url !== "string") {
    const got = ready === undefined ? "undefined" : JSON.stringify(ready)?.slice(0, 120);
    const hint =
      ready === undefined
        ? ' (inject("gatecheck") is undefined when the vitest config has no globalSetup: ["gatecheck-harness/vitest"])'
        : "";
    throw new TypeError(
      "connectGatecheck: expected the ready object of gatecheck serve (startGatecheck().ready, " +
        `or --ready-json's line) or inject("gatecheck") of gatecheck-harness/vitest's globalSetup; got ${got}${hint}`,
    );
  }
  // `ok` lists statuses that are answers, not errors (a fault id that is gone: 404).
  const control = async (method, path, body, ok = []) => {
    const res = await fetch(`${ready.base_url}/__mock${path}`, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(CONTROL_TIMEOUT_MS),
    });
    const text = await res.text();
    if (!res.ok && !ok.includes(res.status)) {
      throw new Error(`gatecheck: ${method} /__mock${path}: ${res.status} ${text}`);
    }
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const get = async (path) => (await control("GET", path)).body;
  const keyRecords = () => get("/keys");
  const keyRecord = async (id) => {
    const { status, body } = await control("GET", `/keys/${encodeURIComponent(id)}`, undefined, [404]);
    return status === 404 ? undefined : body;
  };
  return {
    ready,
    /**
     * `key("demo-disabled")`: the `sk-...` secret of the demo key with this label (at once).
     * `key(1)`: a promise of that key's current record, as `keyRecord(1)` (the Rust `key(id)`).
     */
    key(label) {
      if (typeof label === "number") return keyRecord(label);
      const k = (ready.keys ?? []).find((k) => k.label === label);
      if (!k) {
        const labels = (ready.keys ?? []).map((k) => k.label).join(", ");
        throw new Error(`gatecheck: no demo key labelled ${label}; the labels are ${labels}`);
      }
      return k.key;
    },
    /** Creates a key from a partial record; resolves to the full record (secret without `sk-`). */
    async addKey(newKey = {}) {
      return (await control("POST", "/keys", newKey)).body;
    },
    /** One key's current record (failed tasks refunded first), or undefined when there is none. */
    keyRecord,
    /** Every key, full records with secrets. */
    keys: keyRecords,
    /** Every account, with its access token. */
    async accounts() {
      return get("/accounts");
    },
    /** Back to the start: fixture keys and tasks, empty journal, no fault, no clock offset. */
    async reset() {
      await control("POST", "/reset");
    },
    /** The clock: `{ mode, now, now_ms }`. */
    async clock() {
      return get("/clock");
    },
    /** Moves the virtual clock forward by `seconds`; resolves to the clock. */
    async advance(seconds) {
      if (!(seconds >= 0)) throw new RangeError("gatecheck: the clock only moves forward");
      return (await control("POST", "/clock/advance", { ms: Math.round(seconds * 1000) })).body;
    },
    /**
     * Installs a fault; resolves to its id. Either a whole fault of the control API
     * (`inject({ route, kind: "delay", ms: 500 })`), or a status for a route:
     * `inject("POST /v1/audio/speech", 503, { times, retryAfter, probability })`.
     */
    async inject(routeOrFault, status, { times, retryAfter, probability } = {}) {
      if (typeof routeOrFault === "object" && routeOrFault !== null) {
        return (await control("POST", "/faults", routeOrFault)).body.id;
      }
      const fault = { route: routeOrFault, kind: "status", status };
      if (times !== undefined) fault.times = times;
      if (retryAfter !== undefined) fault.retry_after = retryAfter;
      if (probability !== undefined) fault.probability = probability;
      return (await control("POST", "/faults", fault)).body.id;
    },
    /** Installs any fault of the control API (docs/mock.md); resolves to its id. */
    async fault(fault) {
      return (await control("POST", "/faults", fault)).body.id;
    },
    /** Removes one fault; resolves to whether it was installed. */
    async removeFault(id) {
      const { status } = await control("DELETE", `/faults/${encodeURIComponent(id)}`, undefined, [404]);
      return status !== 404;
    },
    /** Removes every fault. */
    async clearFaults() {
      await control("DELETE", "/faults");
    },
    /** The installed faults, with their ids and how often each fired. */
    async faults() {
      return get("/faults");
    },
    /** The journal, oldest first. */
    async requests({ limit } = {}) {
      const query = limit === undefined ? "" : `?limit=${Number(limit)}`;
      return (await get(`/requests${query}`)).requests;
    },
    /** The journal, oldest first (the Rust `received_requests`). */
    async receivedRequests() {
      return (await get("/requests")).requests;
    },
    /**
     * Scripts the streamed answers of a route (and optionally a model): their events, the
     * waits before them and a cut, for the next `times` of them or until reset():
     * `scriptStream({ route: "POST /v1/audio/speech", events: [{ event, data, waitMs }],
     * gapMs, cutAfter, times, pacing })`. An event's `data` is sent as it is when it is a
     * string, else as its JSON.
     */
    async scriptStream({ events = [], gapMs, cutAfter, ...rest }) {
      const body = {
        ...rest,
        events: events.map(({ waitMs, ...e }) => (waitMs === undefined ? e : { ...e, wait_ms: waitMs })),
      };
      if (gapMs !== undefined) body.gap_ms = gapMs;
      if (cutAfter !== undefined) body.cut_after = cutAfter;
      await control("POST", "/streams", body);
    },
    /** The Kling callbacks the mock made (the last 256), oldest first. */
    async callbacks() {
      return get("/callbacks");
    },
    /** The whole state (accounts, keys, tasks, clock offset), for `loadState`. */
    async state() {
      return get("/state");
    },
    /** Loads a whole state (one `state()` gave). */
    async loadState(state) {
      await control("PUT", "/state", state);
    },
    /** Every video task, with its owner. */
    async videos() {
      return (await get("/videos")).data;
    },
    /**
     * Decides how a video task that is not terminal yet ends: `completed`, `failed` or
     * `error` (with `code` and `message`), when its time comes or at once (`immediate`);
     * resolves to the task. Rejects for an unknown task (404) or a terminal one (409).
     */
    async setVideoOutcome(id, outcome, { code, message, immediate } = {}) {
      const body = { outcome };
      if (code !== undefined) body.code = code;
      if (message !== undefined) body.message = message;
      if (immediate !== undefined) body.immediate = immediate;
      const path = `/videos/${encodeURIComponent(id)}/outcome`;
      return (await control("POST", path, body)).body.data;
    },
  };
}
