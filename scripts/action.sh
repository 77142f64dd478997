#!/usr/bin/env bash
# The steps of the GitHub Action (action.yml; docs/publishing.md, "GitHub Action"): `main`
# (install, then serve or check), run by scripts/action-main.mjs, and `post` (stops the mock of
# serve mode when the job ends), run by scripts/action-post.mjs. Inputs arrive as
# GATECHECK_ACTION_* variables (the check's credentials as the GATECHECK_* variables that
# `gatecheck check` reads, so no secret is on a command line); outputs go to $GITHUB_OUTPUT,
# the mock's pid to $GITHUB_STATE for the post step.
#
# Supply chain: the binary is the `gatecheck-bin` input, else a `gatecheck` on the PATH that
# proves to be this project's, else, only when `version` names an exact version,
# `gatecheck-harness==VERSION` from PyPI (a wheel, no dependencies). Nothing else is ever
# installed; PyPI's `gatecheck` is another project and is never asked for.
set -euo pipefail
step="${1:?usage: scripts/action.sh main|post}"
work="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/gatecheck-action"
mkdir -p "$work"

fail() {
  echo "::error title=gatecheck::$*"
  exit 1
}

# Whether "$1" is this project's gatecheck binary (not a stranger's `gatecheck` script): its
# version line and its profiles are ours.
is_ours() {
  "$1" --version 2>/dev/null | grep -Eq '^gatecheck [0-9]+\.[0-9]+' &&
    "$1" profiles 2>/dev/null | grep -q '^  new-api '
}

install() {
  case "${GATECHECK_ACTION_MODE:-}" in
    serve | check) ;;
    *) fail "mode must be serve or check, not '${GATECHECK_ACTION_MODE:-}'" ;;
  esac
  local bin="${GATECHECK_ACTION_BIN:-}" version="${GATECHECK_ACTION_VERSION:-}"
  if [ -n "$bin" ]; then
    "$bin" --version >/dev/null 2>&1 || fail "gatecheck-bin $bin does not run"
    is_ours "$bin" || fail "gatecheck-bin $bin is not the gatecheck of gatecheck-harness (its --version and profiles differ)"
  elif [ -n "$version" ]; then
    # An exact version only (PEP 440 release, optional pre/post/dev part): no range, no "latest".
    [[ "$version" =~ ^[0-9]+(\.[0-9]+)*((a|b|rc)[0-9]+)?(\.post[0-9]+)?(\.dev[0-9]+)?$ ]] ||
      fail "version must be an exact version of gatecheck-harness such as 0.1.0, not '$version'"
    python3 -m venv "$work/venv"
    "$work/venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps \
      --only-binary=:all: "gatecheck-harness==$version" ||
      fail "could not install gatecheck-harness==$version from PyPI (is that version published for this platform?)"
    bin="$work/venv/bin/gatecheck"
  elif command -v gatecheck >/dev/null 2>&1 && is_ours "$(command -v gatecheck)"; then
    bin=$(command -v gatecheck)
  else
    local found=""
    command -v gatecheck >/dev/null 2>&1 && found=" (the gatecheck on the PATH, $(command -v gatecheck), is another program)"
    fail "no gatecheck binary$found. Give the action one: gatecheck-bin: PATH (e.g. built with cargo install --locked --path crates/gatecheck), or version: X.Y.Z to install gatecheck-harness==X.Y.Z from PyPI, or install it in an earlier step (pip install gatecheck-harness==X.Y.Z)"
  fi
  "$bin" --version >/dev/null 2>&1 || fail "$bin does not run"
  echo "gatecheck: $("$bin" --version) ($bin)"
  BIN="$bin"
}

# The `args` input, one argument per line (blank lines skipped), into the array ARGS.
read_args() {
  ARGS=()
  local line
  while IFS= read -r line || [ -n "$line" ]; do
    line="${line%$'\r'}"
    [ -n "${line//[[:space:]]/}" ] && ARGS+=("$line")
  done <<<"${GATECHECK_ACTION_ARGS:-}"
  return 0
}

# The value of a top-level string or number field of the ready object.
ready_field() {
  python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"
}

serve() {
  local bin="$BIN" ready="$work/ready.json" log="$work/serve.log"
  rm -f "$ready"
  read_args
  nohup "$bin" serve --port "${GATECHECK_ACTION_PORT:-0}" --profile "${GATECHECK_ACTION_PROFILE:-documented}" \
    --clock "${GATECHECK_ACTION_CLOCK:-real}" --ready-file "$ready" ${ARGS[@]+"${ARGS[@]}"} \
    >"$log" 2>&1 </dev/null &
  local pid=$! waited=0
  disown "$pid" 2>/dev/null || true
  until [ -s "$ready" ]; do
    if ! kill -0 "$pid" 2>/dev/null; then
      cat "$log" >&2
      fail "gatecheck serve exited before it was ready (its output is above)"
    fi
    if [ "$waited" -ge 300 ]; then
      kill "$pid" 2>/dev/null || true
      cat "$log" >&2
      fail "gatecheck serve was not ready within 30 s"
    fi
    sleep 0.1
    waited=$((waited + 1))
  done
  local base
  base=$(ready_field "$ready" base_url)
  {
    echo "base-url=$base"
    echo "control-url=$base/__mock"
    echo "ready-file=$ready"
    echo "demo-key=$(ready_field "$ready" demo_key)"
    echo "access-token=$(ready_field "$ready" access_token)"
    echo "user-id=$(ready_field "$ready" user_id)"
    echo "pid=$pid"
  } >>"$GITHUB_OUTPUT"
  [ -z "${GITHUB_STATE:-}" ] || echo "pid=$pid" >>"$GITHUB_STATE"
  echo "gatecheck mock listening on $base (pid $pid, log $log); the post step stops it"
}

check() {
  local bin="$BIN" code=0
  [ -n "${GATECHECK_BASE_URL:-}" ] || fail "mode check needs base-url"
  [ -z "${GATECHECK_ACTION_PROFILE:-}" ] ||
    fail "profile is the mock's, in serve mode; in check mode say whose behaviour to expect with expect: documented or new-api"
  # Empty inputs mean "not given": the CLI would read an empty variable as an empty value.
  for v in GATECHECK_API_KEY GATECHECK_ACCESS_TOKEN GATECHECK_USER_ID; do
    [ -n "${!v:-}" ] || unset "$v"
  done
  local reports="$work/reports"
  mkdir -p "$reports"
  local args=(check --expect "${GATECHECK_ACTION_EXPECT:-documented}" --quiet
    --report "junit=$reports/junit.xml" --report "html=$reports/report.html"
    --report "markdown=$reports/summary.md")
  [ -z "${GATECHECK_ACTION_KEY_ID:-}" ] || args+=(--key-id "$GATECHECK_ACTION_KEY_ID")
  read_args
  "$bin" "${args[@]}" ${ARGS[@]+"${ARGS[@]}"} || code=$?
  if [ -f "$reports/summary.md" ] && [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
    cat "$reports/summary.md" >>"$GITHUB_STEP_SUMMARY"
  fi
  {
    echo "junit=$reports/junit.xml"
    echo "html=$reports/report.html"
    echo "markdown=$reports/summary.md"
    echo "exit-code=$code"
  } >>"$GITHUB_OUTPUT"
  [ "$code" -eq 0 ] || echo "::error title=gatecheck check::exit $code (the job summary lists the findings)"
  return "$code"
}

# The main step: the binary, then the mode.
main() {
  : "${GITHUB_OUTPUT:?GITHUB_OUTPUT is not set}"
  install
  echo "bin=$BIN" >>"$GITHUB_OUTPUT"
  case "$GATECHECK_ACTION_MODE" in
    serve) serve ;;
    check) check ;;
  esac
}

# The post step: stops the mock of serve mode (SIGTERM; SIGKILL after 10 s), if it runs.
post() {
  local pid="${STATE_pid:-}" waited=0
  [ -n "$pid" ] || return 0
  kill -0 "$pid" 2>/dev/null || { echo "gatecheck mock (pid $pid) had already stopped"; return 0; }
  kill -TERM "$pid" 2>/dev/null || true
  while kill -0 "$pid" 2>/dev/null && [ "$waited" -lt 100 ]; do
    sleep 0.1
    waited=$((waited + 1))
  done
  kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
  echo "gatecheck mock (pid $pid) stopped"
}

case "$step" in
  main | post) "$step" ;;
  *) fail "unknown step $step" ;;
esac
