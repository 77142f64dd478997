// Start `gatecheck serve` for a test run, read its ready line, stop it afterwards.
//
//   const gc = await startGatecheck();        // { ready, stop }
//   gc.ready.base_url, gc.ready.demo_key, gc.ready.access_token, gc.ready.keys
//   await gc.stop();
//
// The binary is `$GATECHECK_BIN`, else `gatecheck` on the PATH (`cargo install --path
// crates/gatecheck`). Works from node:test `before`/`after` and from a vitest `globalSetup`.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

export async function startGatecheck({ args = [], timeoutMs = 30_000 } = {}) {
  const bin = process.env.GATECHECK_BIN || "gatecheck";
  const child = spawn(bin, ["serve", "--port", "0", "--ready-json", ...args], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout });
  const ready = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`gatecheck serve: no ready line within ${timeoutMs} ms`));
    }, timeoutMs);
    child.once("error", (e) => {
      clearTimeout(timer);
      reject(new Error(`cannot run ${bin}: ${e.message}`));
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`gatecheck serve exited with ${code} before it was ready`));
    });
    lines.once("line", (line) => {
      clearTimeout(timer);
      resolve(JSON.parse(line));
    });
  });
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
    });
  return { ready, stop };
}
