#!/usr/bin/env python3
"""Helper of scripts/foreign-gateway (docs/foreign-gateways.md).

  foreign-gateway-verdicts.py expected REPORT.json [--generated-by TEXT]  > expected.json
      The verdicts of a `gatecheck check` JSON report, as the CI test (LiteLLM) and `compare`
      read them.
  foreign-gateway-verdicts.py compare EXPECTED.json REPORT.json
      A run against the recorded verdicts: every check whose status or skip cause moved is
      printed (exit 1), then, for information, the checks whose evidence text alone differs
      (a gateway's own run-to-run values: ids, hashes, addresses).
  foreign-gateway-verdicts.py accept --report R --journal J --recording DIR... PATH...
      Checks the acceptance lines of the foreign-gateway verdicts that can be checked mechanically; prints each
      line with ok/FAIL and exits 1 when one fails. Per gateway:
        --models-source S      where the models must come from (default: GET /v1/models)
        --missing-route R      a route the gateway lacks: exactly one route.* failure cites it
        --expect-clean         0 failed, 0 deviations, 0 errors (a gateway that changes nothing)
        --skip-cause C         every skip has one of these causes (repeatable)
        --key-restored ID      the report's key_cleanup says key ID was restored; the run's
                               PUT /api/token/ naming ID (its --key-id) is not a dangerous write
        --diff-clean DIFF      no step of a `gatecheck diff --json` report differs
"""
import argparse
import base64
import json
import os
import sys
import urllib.parse

MAX_SECONDS = 60
MAX_REQUESTS = 1000
# new-api's key ids are auto-increment integers: any positive id below 2^31 could exist.
MAX_POSSIBLE_KEY_ID = 2**31 - 1


def verdicts(report):
    """{check id: entry} of a report, as expected.json keeps them."""
    checks = {}
    for c in report["checks"]:
        entry = {"status": c["status"]}
        if c.get("skip_cause"):
            entry["skip_cause"] = c["skip_cause"]
        if c.get("message"):
            entry["message"] = c["message"]
        evidence = c.get("evidence") or {}
        if evidence.get("message"):
            entry["evidence"] = evidence["message"]
        checks[c["id"]] = entry
    return checks


def expected(report_path, generated_by):
    report = json.load(open(report_path))
    checks = verdicts(report)
    out = {
        "generated_by": generated_by,
        "summary": report["summary"],
        "requests_sent": report.get("requests_sent"),
        "duration_ms": report.get("duration_ms"),
        "checks": checks,
    }
    print(json.dumps(out, indent=2, sort_keys=False))


def compare(expected_path, report_path):
    want = json.load(open(expected_path))["checks"]
    got = verdicts(json.load(open(report_path)))
    key = lambda e: (e.get("status"), e.get("skip_cause")) if e else None
    moved = [i for i in sorted(set(want) | set(got)) if key(want.get(i)) != key(got.get(i))]
    worded = [i for i in sorted(set(want) & set(got)) if i not in moved and want[i] != got[i]]
    for i in moved:
        was, now = key(want.get(i)), key(got.get(i))
        print(f"  MOVED  {i}: {was} -> {now}")
    for i in worded:
        print(f"  same verdict, other evidence: {i}")
    print(f"== {len(got)} checks against {expected_path}: {len(moved)} verdicts moved, "
          f"{len(worded)} with other evidence text")
    return 1 if moved else 0


def secret_forms(value):
    """{form: label} of a secret: raw, without sk-, base64 of "KEY:" and "KEY", encoded."""
    forms = {}
    def add(form, label):
        if len(form) >= 8 and form not in forms:
            forms[form] = label
    add(value, "raw")
    if value.startswith("sk-"):
        add(value[3:], "without sk-")
    for raw, shown in ((value + ":", '"KEY:"'), (value, '"KEY"')):
        b = raw.encode()
        for enc, kind in ((base64.b64encode(b), "base64"), (base64.urlsafe_b64encode(b), "base64url")):
            add(enc.decode(), f"{kind} of {shown}")
            add(enc.decode().rstrip("="), f"{kind} (unpadded) of {shown}")
    add(urllib.parse.quote(value, safe=""), "percent-encoded")
    add(urllib.parse.quote_plus(value), "form-encoded")
    add(json.dumps(value)[1:-1], "JSON-escaped")
    return forms


def files_under(paths):
    for p in paths:
        if os.path.isfile(p):
            yield p
        elif os.path.isdir(p):
            for d, _, names in os.walk(p):
                for n in names:
                    yield os.path.join(d, n)


def recorded_requests(dirs):
    for d in dirs:
        ex_dir = os.path.join(d, "exchanges")
        if not os.path.isdir(ex_dir):
            continue
        for name in sorted(os.listdir(ex_dir)):
            if name.endswith(".json"):
                yield name, json.load(open(os.path.join(ex_dir, name)))["request"]


class Lines:
    def __init__(self):
        self.failed = []

    def line(self, ok, text, details=()):
        print(f"  {'ok  ' if ok else 'FAIL'} {text}")
        for d in list(details)[:10]:
            print(f"         {d}")
        if not ok:
            self.failed.append(text)


def accept(args):
    report = json.load(open(args.report))
    secrets = []
    for var in args.secret_env:
        secrets.append((var, os.environ[var]))
    for prefix in args.secret_env_prefix:
        secrets += [(k, v) for k, v in os.environ.items() if k.startswith(prefix)]
    out = Lines()
    print("== acceptance")

    leaks = []
    needles = [(name, form, label) for name, value in secrets
               for form, label in secret_forms(value).items()]
    for path in files_under(args.paths):
        data = open(path, "rb").read()
        for name, form, label in needles:
            n = data.count(form.encode())
            if n:
                leaks.append(f"{path}: {name} ({label}), {n} time(s)")
    out.line(not leaks, f"no secret in any output ({len(needles)} forms of {len(secrets)} secrets)", leaks)

    seconds = report["duration_ms"] / 1000
    out.line(seconds < MAX_SECONDS, f"check took {seconds:.1f} s (< {MAX_SECONDS} s)")
    sent = report["requests_sent"]
    out.line(sent < MAX_REQUESTS, f"check sent {sent} requests (< {MAX_REQUESTS})")

    zero = [c["id"] for c in report["checks"] if c["status"] == "passed" and c.get("cases", 0) == 0]
    out.line(not zero, "no check passes with 0 cases", zero)

    source = (report.get("discovery") or {}).get("models_source")
    out.line(source == args.models_source,
             f"models found through {args.models_source} (source: {source})")

    summary = report["summary"]
    if args.expect_clean:
        counts = {k: summary.get(k) for k in ("failed", "deviations", "errors")}
        out.line(all(v == 0 for v in counts.values()),
                 "0 failed, 0 deviations, 0 errors (" + ", ".join(f"{v} {k}" for k, v in counts.items()) + ")",
                 [f"{c['id']}: {c['status']}" for c in report["checks"]
                  if c["status"] in ("failed", "deviation", "error")])
    if args.skip_cause:
        allowed = set(args.skip_cause)
        odd = [f"{c['id']}: {c.get('skip_cause')}" for c in report["checks"]
               if c["status"] == "skipped" and c.get("skip_cause") not in allowed]
        out.line(not odd, f"every skip has the cause {' or '.join(sorted(allowed))}", odd)
    if args.diff_clean:
        steps = json.load(open(args.diff_clean))["steps"]
        differ = [f"step {s['index']}: {s['step']} ({s.get('check_id')})" for s in steps if s.get("differences")]
        out.line(not differ, f"diff: no step differs ({len(differ)} of {len(steps)})", differ)
    if args.key_restored is not None:
        cleanup = report.get("key_cleanup")
        out.line(cleanup == f"key {args.key_restored} restored from its snapshot",
                 f"key {args.key_restored} restored (key_cleanup: {cleanup})")

    failures = [c for c in report["checks"] if c["status"] == "failed"]
    for route in args.missing_route:
        def cites(c):
            text = json.dumps({k: c.get(k) for k in ("id", "message", "evidence")})
            return route in text
        route_findings = [c["id"] for c in failures if c["id"].startswith("route.") and cites(c)]
        out.line(len(route_findings) == 1, f"{route} reported once ({len(route_findings)} route.* findings)", route_findings)
        others = [c["id"] for c in failures if not c["id"].startswith("route.") and cites(c)]
        out.line(not others, f"no other failure cites {route}", others)

    mock_writes = []
    token_writes = []
    for name, req in recorded_requests(args.recording):
        path = req["path"].split("?")[0]
        if req["method"] not in ("GET", "HEAD", "OPTIONS") and path.startswith("/__mock"):
            mock_writes.append(f"{name}: {req['method']} {req['path']}")
        if req["method"] == "PUT" and path.rstrip("/") == "/api/token":
            body = req["body"].get("json") if req["body"].get("kind") == "json" else None
            key_id = body.get("id") if isinstance(body, dict) else None
            if (isinstance(key_id, int) and 0 < key_id <= MAX_POSSIBLE_KEY_ID
                    and key_id != args.key_restored):
                token_writes.append(f"{name}: PUT /api/token/ with id {key_id}")
    journal = json.load(open(args.journal)).get("requests", [])
    for e in journal:
        if e["method"] not in ("GET", "HEAD", "OPTIONS") and e["path"].startswith("/__mock"):
            mock_writes.append(f"mock journal #{e['seq']}: {e['method']} {e['path']}")
    out.line(not mock_writes, "no write under /__mock (recorded requests and the mock's journal)", mock_writes)
    own = "" if args.key_restored is None else f" (other than --key-id {args.key_restored}, edited and restored)"
    out.line(not token_writes, f"no PUT /api/token/ names a key id that could exist{own}", token_writes)
    print(f"== verdicts: {json.dumps(summary)}; {sent} requests in {seconds:.1f} s")
    if out.failed:
        print(f"== {len(out.failed)} acceptance line(s) failed:")
        for f in out.failed:
            print(f"   - {f}")
        return 1
    print("== every acceptance line holds")
    return 0


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("expected")
    e.add_argument("report")
    e.add_argument("--generated-by",
                   default="scripts/foreign-gateway litellm --record fixtures/foreign/litellm")
    c = sub.add_parser("compare")
    c.add_argument("expected")
    c.add_argument("report")
    a = sub.add_parser("accept")
    a.add_argument("--report", required=True)
    a.add_argument("--journal", required=True)
    a.add_argument("--recording", action="append", default=[])
    a.add_argument("--missing-route", action="append", default=[])
    a.add_argument("--models-source", default="GET /v1/models")
    a.add_argument("--expect-clean", action="store_true")
    a.add_argument("--skip-cause", action="append", default=[])
    a.add_argument("--key-restored", type=int)
    a.add_argument("--diff-clean")
    a.add_argument("--secret-env", action="append", default=[])
    a.add_argument("--secret-env-prefix", action="append", default=[])
    a.add_argument("paths", nargs="*")
    args = parser.parse_args()
    if args.cmd == "expected":
        expected(args.report, args.generated_by)
        return 0
    if args.cmd == "compare":
        return compare(args.expected, args.report)
    return accept(args)


if __name__ == "__main__":
    sys.exit(main())
