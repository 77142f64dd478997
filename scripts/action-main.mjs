// The GitHub Action's main step (action.yml `runs.main`): `scripts/action.sh main` with the
// action's inputs (INPUT_<NAME> as GitHub sets them) as GATECHECK_ACTION_* variables, and the
// check's credentials as the GATECHECK_* variables `gatecheck check` reads (no secret on a
// command line). No dependency: Node's standard library only.
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const input = (name) => (process.env[`INPUT_${name.toUpperCase()}`] ?? "").trim();
const env = { ...process.env };
const set = (name, value) => {
  if (value === "") delete env[name];
  else env[name] = value;
};
set("GATECHECK_ACTION_MODE", input("mode"));
set("GATECHECK_ACTION_BIN", input("gatecheck-bin"));
set("GATECHECK_ACTION_VERSION", input("version"));
set("GATECHECK_ACTION_PROFILE", input("profile"));
set("GATECHECK_ACTION_EXPECT", input("expect"));
set("GATECHECK_ACTION_PORT", input("port"));
set("GATECHECK_ACTION_CLOCK", input("clock"));
set("GATECHECK_ACTION_KEY_ID", input("key-id"));
// One argument per line, kept whole (a JSON argument keeps its spaces).
set("GATECHECK_ACTION_ARGS", process.env.INPUT_ARGS ?? "");
set("GATECHECK_BASE_URL", input("base-url"));
set("GATECHECK_API_KEY", input("api-key"));
set("GATECHECK_ACCESS_TOKEN", input("access-token"));
set("GATECHECK_USER_ID", input("user-id"));

const script = join(dirname(fileURLToPath(import.meta.url)), "action.sh");
const done = spawnSync("bash", ["--noprofile", "--norc", "-eo", "pipefail", script, "main"], {
  env,
  stdio: "inherit",
});
process.exitCode = done.status ?? 1;
