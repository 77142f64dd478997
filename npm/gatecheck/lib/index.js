// startGatecheck(): a `gatecheck serve` on a free loopback port and the virtual clock, with
// its control API (`/__mock/*`) as async methods. connectGatecheck(ready): the same methods
// for a mock started elsewhere (a vitest globalSetup hands the tests its ready object).
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { binaryPath } from "./platform.js";

export { binaryPath, platformKey, PLATFORM_PACKAGES } from "./platform.js";

/** The behaviour profiles of `gatecheck serve --profile`. */
export const PROFILES = ["documented", "new-api"];
/** Bytes of the mock's stderr kept for an error message. */
const STDERR_TAIL = 8192;

/** The control API of the mock at `ready.base_url`, and the ready object's demo keys. */
export function connectGatecheck(ready) {
  if (!ready || typeof ready.base_url !== "string") {
    throw new TypeError("connectGatecheck: expected the ready object of gatecheck serve");
  }
  const control = async (method, path, body) => {
    const res = await fetch(`${ready.base_url}/__mock${path}`, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`gatecheck: ${method} /__mock${path}: ${res.status} ${text}`);
    return text ? JSON.parse(text) : null;
  };
  return {
    ready,
    /** The `sk-...` secret of the demo key with this label, e.g. `key("demo-disabled")`. */
    key(label) {
      const k = (ready.keys ?? []).find((k) => k.label === label);
      if (!k) {
        const labels = (ready.keys ?? []).map((k) => k.label).join(", ");
        throw new Error(`gatecheck: no demo key labelled ${label}; the labels are ${labels}`);
      }
      return k.key;
    },
    /** Back to the start: fixture keys and tasks, empty journal, no fault, no clock offset. */
    async reset() {
      await control("POST", "/reset");
    },
    /** Moves the virtual clock forward by `seconds`; resolves to the clock. */
    async advance(seconds) {
      if (!(seconds >= 0)) throw new RangeError("gatecheck: the clock only moves forward");
      return control("POST", "/clock/advance", { ms: Math.round(seconds * 1000) });
    },
    /** Answers requests matching `route` with `status` (`times` times; forever without). */
    async inject(route, status, { times, retryAfter, probability } = {}) {
      const fault = { route, kind: "status", status };
      if (times !== undefined) fault.times = times;
      if (retryAfter !== undefined) fault.retry_after = retryAfter;
      if (probability !== undefined) fault.probability = probability;
      return (await control("POST", "/faults", fault)).id;
    },
    /** Installs any fault of the control API (docs/mock.md); resolves to its id. */
    async fault(fault) {
      return (await control("POST", "/faults", fault)).id;
    },
    /** The journal, oldest first. */
    async requests({ limit } = {}) {
      const query = limit === undefined ? "" : `?limit=${Number(limit)}`;
      return (await control("GET", `/requests${query}`)).requests;
    },
  };
}

/** Starts the mock; resolves once it listens. Rejects, with its stderr, when it cannot. */
export async function startGatecheck({
  bin,
  profile = "documented",
  clock = "virtual",
  args = [],
  timeoutMs = 30_000,
} = {}) {
  if (!PROFILES.includes(profile)) {
    throw new Error(`gatecheck: unknown profile ${profile}; expected ${PROFILES.join(" or ")}`);
  }
  const exe = bin ?? binaryPath();
  const argv = ["serve", "--port", "0", "--clock", clock, "--profile", profile, "--ready-json", ...args];
  const child = spawn(exe, argv, { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk) => {
    stderr = (stderr + chunk).slice(-STDERR_TAIL);
  });
  const shown = `${exe} ${argv.join(" ")}`;
  const failed = (what) => new Error(`gatecheck: \`${shown}\` ${what}; its stderr:\n${stderr.trim() || "(nothing)"}`);
  const lines = createInterface({ input: child.stdout });
  const ready = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(failed(`was not ready within ${timeoutMs} ms and was stopped`));
    }, timeoutMs);
    child.once("error", (e) => {
      clearTimeout(timer);
      reject(new Error(`gatecheck: cannot run ${exe}: ${e.message}`));
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      const what = signal ? `was killed by ${signal}` : `exited with ${code} before it was ready`;
      // Quote the last of its stderr: wait for the pipes to close, not longer than 500 ms
      // (a process it left behind may hold them).
      const late = setTimeout(() => reject(failed(what)), 500);
      child.once("close", () => {
        clearTimeout(late);
        reject(failed(what));
      });
    });
    lines.once("line", (line) => {
      clearTimeout(timer);
      try {
        resolve(JSON.parse(line));
      } catch (e) {
        child.kill("SIGKILL");
        reject(failed(`printed ${JSON.stringify(line)} instead of its ready object`));
      }
    });
  });
  lines.on("line", () => {}); // keep stdout drained
  // A test run that forgets stop() still ends: the mock does not hold the event loop, and
  // it is killed when this process exits.
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);
  child.unref();
  child.stdout.unref?.();
  child.stderr.unref?.();
  const stop = () =>
    new Promise((resolve) => {
      process.removeListener("exit", killOnExit);
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      const force = setTimeout(() => child.kill("SIGKILL"), 10_000);
      child.once("exit", () => {
        clearTimeout(force);
        resolve();
      });
      child.kill("SIGTERM");
    });
  return { ...connectGatecheck(ready), stop, pid: child.pid };
}
