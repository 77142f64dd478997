// Which platform package carries the binary for this machine, and where that binary is.
import { createRequire } from "node:module";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";

const require = createRequire(import.meta.url);

/** Platform packages by `platform-arch[-libc]`, as `scripts/package npm` names them. */
export const PLATFORM_PACKAGES = {
  "linux-x64-gnu": "gatecheck-harness-linux-x64-gnu",
  "linux-arm64-gnu": "gatecheck-harness-linux-arm64-gnu",
  "linux-x64-musl": "gatecheck-harness-linux-x64-musl",
  "linux-arm64-musl": "gatecheck-harness-linux-arm64-musl",
  "darwin-x64": "gatecheck-harness-darwin-x64",
  "darwin-arm64": "gatecheck-harness-darwin-arm64",
  "win32-x64": "gatecheck-harness-win32-x64",
};

/** `gnu` or `musl` on Linux (as @biomejs/biome and esbuild tell them apart), else null. */
export function libc() {
  if (process.platform !== "linux") return null;
  const report = process.report?.getReport?.();
  const header = typeof report === "string" ? JSON.parse(report).header : report?.header;
  return header?.glibcVersionRuntime ? "gnu" : "musl";
}

/** This machine's key in `PLATFORM_PACKAGES`, e.g. `linux-x64-gnu`. */
export function platformKey() {
  const c = libc();
  return `${process.platform}-${process.arch}${c ? `-${c}` : ""}`;
}

/**
 * The gatecheck binary: `$GATECHECK_BIN` when set, else the one in this platform's package.
 * Throws an error naming the package to install (and `GATECHECK_BIN`) when it is missing.
 */
export function binaryPath() {
  const fromEnv = process.env.GATECHECK_BIN;
  if (fromEnv) return fromEnv;
  const key = platformKey();
  const pkg = PLATFORM_PACKAGES[key];
  if (!pkg) {
    throw new Error(
      `gatecheck has no binary package for ${key}. Build gatecheck yourself ` +
        "(cargo install --locked --path crates/gatecheck) and set GATECHECK_BIN to its path.",
    );
  }
  let dir;
  try {
    dir = dirname(require.resolve(`${pkg}/package.json`));
  } catch {
    throw new Error(
      `gatecheck: the package ${pkg}, which carries the binary for ${key}, is not installed. ` +
        `Install it (npm install ${pkg}; it is an optional dependency of gatecheck-harness, so an ` +
        "install with --no-optional or --omit=optional leaves it out), or set GATECHECK_BIN " +
        "to the path of a gatecheck binary.",
    );
  }
  const bin = join(dir, "bin", process.platform === "win32" ? "gatecheck.exe" : "gatecheck");
  if (!existsSync(bin)) {
    throw new Error(`gatecheck: ${pkg} is installed but has no ${bin}; reinstall it, or set GATECHECK_BIN`);
  }
  return bin;
}
