// The GitHub Action's post step (action.yml `runs.post`, run when the job ends, even after a
// failed step): stops the mock that serve mode started (`scripts/action.sh post`, with the
// pid the main step saved as state: STATE_pid).
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const script = join(dirname(fileURLToPath(import.meta.url)), "action.sh");
const done = spawnSync("bash", ["--noprofile", "--norc", "-eo", "pipefail", script, "post"], {
  stdio: "inherit",
});
process.exitCode = done.status ?? 1;
