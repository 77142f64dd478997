#!/usr/bin/env node
// The `gatecheck` command: runs the binary of this platform's package with the same arguments.
import { spawnSync } from "node:child_process";
import { binaryPath } from "../lib/platform.js";

let bin;
try {
  bin = binaryPath();
} catch (e) {
  console.error(e.message);
  process.exit(2);
}
const result = spawnSync(bin, process.argv.slice(2), { stdio: "inherit" });
if (result.error) {
  console.error(`gatecheck: cannot run ${bin}: ${result.error.message}`);
  process.exit(2);
}
if (result.signal) {
  process.kill(process.pid, result.signal);
}
process.exit(result.status ?? 1);
