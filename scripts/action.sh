#!/usr/bin/env bash
# The steps of the GitHub Action (action.yml): `install`, `serve`, `check`. Inputs arrive as
# GATECHECK_ACTION_* variables (the check's credentials as the GATECHECK_* variables that
# `gatecheck check` reads, so no secret is on a command line); outputs go to $GITHUB_OUTPUT.
set -euo pipefail
step="${1:?usage: scripts/action.sh install|serve|check}"
out="${GITHUB_OUTPUT:?GITHUB_OUTPUT is not set}"
work="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/gatecheck-action"
mkdir -p "$work"

fail() {
  echo "::error title=gatecheck::$*"
  exit 1
}

install() {
  case "${GATECHECK_ACTION_MODE:-}" in
    serve | check) ;;
    *) fail "mode must be serve or check, not '${GATECHECK_ACTION_MODE:-}'" ;;
  esac
  local bin="${GATECHECK_ACTION_BIN:-}"
  if [ -z "$bin" ] && command -v gatecheck >/dev/null 2>&1; then
    bin=$(command -v gatecheck)
  fi
  if [ -z "$bin" ]; then
    local spec="gatecheck${GATECHECK_ACTION_VERSION:+==$GATECHECK_ACTION_VERSION}"
    python3 -m venv "$work/venv"
    "$work/venv/bin/python" -m pip install --quiet --disable-pip-version-check "$spec" ||
      fail "could not install $spec from PyPI; give the action a binary with gatecheck-bin"
    bin="$work/venv/bin/gatecheck"
  fi
  "$bin" --version >/dev/null 2>&1 || fail "$bin does not run"
  echo "bin=$bin" >>"$out"
  echo "gatecheck: $("$bin" --version) ($bin)"
}

# The value of a top-level string or number field of the ready object.
ready_field() {
  python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"
}

serve() {
  local bin="${GATECHECK_ACTION_BIN:?}" ready="$work/ready.json" log="$work/serve.log"
  rm -f "$ready"
  # shellcheck disable=SC2086 # args: split on spaces, as the input says
  nohup "$bin" serve --port "${GATECHECK_ACTION_PORT:-0}" --profile "${GATECHECK_ACTION_PROFILE:-documented}" \
    --clock "${GATECHECK_ACTION_CLOCK:-real}" --ready-file "$ready" ${GATECHECK_ACTION_ARGS:-} \
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
  {
    echo "base-url=$(ready_field "$ready" base_url)"
    echo "demo-key=$(ready_field "$ready" demo_key)"
    echo "access-token=$(ready_field "$ready" access_token)"
    echo "user-id=$(ready_field "$ready" user_id)"
    echo "pid=$pid"
  } >>"$out"
  echo "gatecheck mock listening on $(ready_field "$ready" base_url) (pid $pid, log $log)"
}

check() {
  local bin="${GATECHECK_ACTION_BIN:?}" code=0
  [ -n "${GATECHECK_BASE_URL:-}" ] || fail "mode check needs base-url"
  # Empty inputs mean "not given": the CLI would read an empty variable as an empty value.
  for v in GATECHECK_API_KEY GATECHECK_ACCESS_TOKEN GATECHECK_USER_ID; do
    [ -n "${!v:-}" ] || unset "$v"
  done
  local reports="$work/reports"
  mkdir -p "$reports"
  local args=(check --expect "${GATECHECK_ACTION_PROFILE:-documented}" --quiet
    --report "junit=$reports/junit.xml" --report "html=$reports/report.html"
    --report "markdown=$reports/summary.md")
  [ -z "${GATECHECK_ACTION_KEY_ID:-}" ] || args+=(--key-id "$GATECHECK_ACTION_KEY_ID")
  # shellcheck disable=SC2086 # args: split on spaces, as the input says
  "$bin" "${args[@]}" ${GATECHECK_ACTION_ARGS:-} || code=$?
  if [ -f "$reports/summary.md" ] && [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
    cat "$reports/summary.md" >>"$GITHUB_STEP_SUMMARY"
  fi
  {
    echo "junit=$reports/junit.xml"
    echo "html=$reports/report.html"
    echo "markdown=$reports/summary.md"
    echo "exit-code=$code"
  } >>"$out"
  [ "$code" -eq 0 ] || echo "::error title=gatecheck check::exit $code (the job summary lists the findings)"
  return "$code"
}

case "$step" in
  install | serve | check) "$step" ;;
  *) fail "unknown step $step" ;;
esac
