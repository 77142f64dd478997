// startGatecheck(): a `gatecheck serve` on a free loopback port and the virtual clock, with
// its control API (`/__mock/*`) as async methods. connectGatecheck(ready): the same methods
// for a mock started elsewhere (a ready object, or inject("gatecheck") in a vitest test:
// this worker's mock, as gatecheck-harness/vitest's connectGatecheck, which is the same). gatecheckFactory(): mocks with options of their own, stopped
// together (a per-test mock).
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { connectGatecheck } from "./control.js";
import { binaryPath } from "./platform.js";

export { connectGatecheck } from "./control.js";
export { binaryPath, platformKey, PLATFORM_PACKAGES } from "./platform.js";

/** The behaviour profiles of `gatecheck serve --profile`. */
export const PROFILES = ["documented", "new-api", "new-api-adaptors"];
/** Bytes of the mock's stderr kept for an error message. */
const STDERR_TAIL = 8192;

/** The mocks this process started that still run: killed when it exits. */
const running = new Set();
let exitHooked = false;
function killRunning() {
  for (const child of running) child.kill("SIGKILL");
}

/** Starts the mock; resolves once it listens. Rejects, with its stderr, when it cannot. */
export async function startGatecheck({
  bin,
  profile = "documented",
  clock = "virtual",
  fixtures,
  seed,
  pollAdvance = String(clock).startsWith("virtual"),
  args = [],
  timeoutMs = 30_000,
} = {}) {
  if (!PROFILES.includes(profile)) {
    throw new Error(`gatecheck: unknown profile ${profile}; expected ${PROFILES.join(" or ")}`);
  }
  const exe = bin ?? binaryPath();
  // --exit-with-parent: a test run killed with SIGKILL (no `exit` handler runs) takes the
  // mock with it.
  const argv = ["serve", "--port", "0", "--clock", clock, "--profile", profile, "--ready-json", "--exit-with-parent"];
  if (fixtures !== undefined) argv.push("--fixtures", String(fixtures));
  if (seed !== undefined) argv.push("--seed", String(seed));
  // A poll of a pending video task that finds the clock where the last poll left it moves
  // it on (docs/mock.md, "Polls that move the clock"): an SDK's polling ends in moments.
  if (pollAdvance) argv.push("--poll-advance");
  argv.push(...args);
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
  // it is killed when this process exits (and by itself when this process is killed).
  running.add(child);
  if (!exitHooked) {
    exitHooked = true;
    process.once("exit", killRunning);
  }
  child.once("exit", () => running.delete(child));
  child.unref();
  child.stdout.unref?.();
  child.stderr.unref?.();
  const stop = () =>
    new Promise((resolve) => {
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

/**
 * Starts mocks with options of their own (`make({ profile: "new-api" })`) and stops them
 * together (`await make.stopAll()`, e.g. in an `afterEach`): the per-test mock of a suite
 * whose shared mock has other options. `gatecheck-harness/vitest`'s `test` gives it to each
 * test as the `makeGatecheck` fixture.
 */
export function gatecheckFactory(defaults = {}) {
  const started = new Set();
  const make = async (options = {}) => {
    const gc = await startGatecheck({ ...defaults, ...options });
    started.add(gc);
    const stop = gc.stop;
    gc.stop = () => {
      started.delete(gc);
      return stop();
    };
    return gc;
  };
  make.stopAll = async () => {
    const all = [...started];
    started.clear();
    await Promise.all(all.map((gc) => gc.stop()));
  };
  return make;
}
