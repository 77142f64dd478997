"""Summarises scripts/peer-check's Schemathesis reports.

Usage: peer-summary.py DECISIONS.md openapi.json WORKDIR

Reads WORKDIR/all-*.json (the `--checks all` passes) and WORKDIR/positive-*.{json,har} (the
positive passes), prints every finding (a known exception with its DECISIONS.md row id), the
share of positive cases accepted per operation, and the reasons of the refusals of an operation
below 80%. Exit 1 on a finding that is not a listed exception, an error of the run, or an
operation below 80%.
"""

import collections
import glob
import json
import re
import sys
from urllib.parse import urlparse

WANTED = 80.0

# Findings docs/DECISIONS.md lists with their reason: (check code, operation) -> row id.
KEY_OPERATIONS = [
    "PUT /api/token/", "GET /api/token/", "POST /api/token/", "GET /api/token/{id}",
    "DELETE /api/token/{id}", "POST /api/token/{id}/key",
]
EXCEPTIONS = {
    ("ST202", "GET /v1/videos/{task_id}/content"): "D-OAS-1",
    ("ST401", "GET /api/usage/token"): "D-OAS-2",
    **{("ST201", op): "D-OAS-3" for op in KEY_OPERATIONS},
}

# Refusals that depend on state no schema can say (a task that exists, a finished task, a
# file that was made: D-OAS-4), on content no generator draws (a PNG: D-OAS-5) or on Go's
# `int` (D-OAS-6): the document's `x-gatecheck-exceptions` (gatecheck_schemas::openapi::
# exceptions, which the mock's test `openapi_bodies` also reads). An ST202 finding, or a
# refused positive case, is a known exception only when its answer names one of their
# reasons; the same operation refusing for another reason is still a finding.
REASONS = []

# ST201: a multipart field that Schemathesis made an object, a list, a boolean, a number or
# null goes on the wire as its JSON text, which is a string to the server.
# So does a part name with a control character (the document's `propertyNames`): the service
# ignores a part it does not know.
MUTATIONS = [(re.compile(r"\(was string, became (object|array|boolean|number|integer|null)\)"),
              "D-OAS-7"),
             (re.compile(r"^in body - violates `propertyNames`"), "D-OAS-7")]
MULTIPART = "multipart/form-data"


def load_reasons(spec):
    """REASONS from the document's `x-gatecheck-exceptions`, then the ST201 mutations."""
    REASONS.clear()
    for known in spec.get("x-gatecheck-exceptions", {}).get("refusals", []):
        rx = re.compile("|".join(re.escape(reason) for reason in known["reasons"]))
        REASONS.append((rx, known["row"]))
    REASONS.extend(MUTATIONS)


def reason_row(text):
    """The D-OAS row whose reason `text` (an answer's body) names, if any."""
    for rx, row in REASONS:
        if rx.search(text or ""):
            return row
    return None


def answers_by_failure(work):
    """(check code, operation) -> the answer bodies of its test cases, read from the text
    output of the `--checks all` passes (the JSON report keeps no bodies)."""
    out = collections.defaultdict(list)
    for path in sorted(glob.glob(f"{work}/all-*.txt")):
        text = open(path, encoding="utf-8", errors="replace").read()
        text = text[text.find("FAILURES"):]
        parts = re.split(r"\n_{3,} (.+?) _{3,}\n", text)
        for op, body in zip(parts[1::2], parts[2::2]):
            body = body.split("\n=====")[0]
            for case in re.split(r"\n(?=\d+\. Test Case ID)", body):
                code = re.search(r"- (ST\d+)", case)
                answer = re.search(r"\n\[\d+\][^\n]*\n\n    (.*)", case)
                invalid = re.search(r"Invalid component: (.*)", case)
                if code:
                    text = answer.group(1) if answer else ""
                    if code.group(1) == "ST201" and invalid:
                        text = invalid.group(1)
                    out[(code.group(1), op)].append(text)
    return out


def operation_matcher(spec):
    """(method, path) -> 'METHOD /template' by the document's path templates."""
    table = []
    for template, item in spec["paths"].items():
        segments = [seg for seg in template.split("/") if seg]
        pattern = "^/*" + "/+".join(
            re.sub(r"\\\{[^}]*\\\}", "[^/]+", re.escape(seg)) for seg in segments
        ) + "/*$"
        for method in item:
            table.append((method.upper(), re.compile(pattern), f"{method.upper()} {template}"))

    def match(method, path):
        for m, rx, name in table:
            if m == method and rx.match(path):
                return name
        return None

    return match


def main():
    decisions_md, spec_path, work = sys.argv[1:4]
    decisions = open(decisions_md, encoding="utf-8").read()
    spec = json.load(open(spec_path, encoding="utf-8"))
    load_reasons(spec)
    multipart = {
        f"{method.upper()} {path}"
        for path, item in spec["paths"].items()
        for method, op in item.items()
        if MULTIPART in ((op.get("requestBody") or {}).get("content") or {})
    }
    bad = 0
    for row in sorted(set(EXCEPTIONS.values()) | {row for _, row in REASONS}):
        if f"| {row} |" not in decisions:
            print(f"  !! exception {row} is not a row of {decisions_md}")
            bad += 1

    print("== findings (schemathesis --checks all)")
    answers = answers_by_failure(work)
    findings = exceptions = 0
    for report in sorted(glob.glob(f"{work}/all-*.json")):
        data = json.load(open(report, encoding="utf-8"))
        for failure in data.get("failures", []):
            for op in failure.get("operations", []):
                row = EXCEPTIONS.get((failure["code"], op))
                seen = answers.get((failure["code"], op), [])
                # Every case of the finding refused for a listed reason (a stateful finding's
                # cases can name different rows): an exception.
                if row is None and failure["code"] in ("ST201", "ST202") and seen:
                    rows = {reason_row(text) for text in seen}
                    # D-OAS-7 is about multipart text; elsewhere the same mutation is a finding.
                    if "D-OAS-7" in rows and op not in multipart:
                        rows.add(None)
                    row = "+".join(sorted(rows)) if None not in rows else None
                if row:
                    exceptions += 1
                    print(f"  exception {row:9} {failure['code']} {failure['title']}: {op}")
                else:
                    findings += 1
                    print(f"  FINDING             {failure['code']} {failure['title']}: {op}")
        for error in data.get("errors", []):
            findings += 1
            print(f"  ERROR               {error.get('title')} (x{error.get('count', 1)})")
        for kind, items in (data.get("warnings") or {}).items():
            if items:
                print(f"  warning             {kind}: {items}")
    print(f"  {findings} finding(s) outside DECISIONS.md, {exceptions} listed exception(s)")
    bad += findings

    print(f"== positive cases answered 2xx per operation (>= {WANTED:.0f}% wanted)")
    print("   every answer counts (Schemathesis' own rate leaves out 401/403/5xx; /api answers")
    print("   200 {success:false} to a logical failure, D-ERR-2: counted as 2xx, shown apart)")
    rates = collections.defaultdict(lambda: [0, 0])
    for report in sorted(glob.glob(f"{work}/positive-*.json")):
        data = json.load(open(report, encoding="utf-8"))
        for op, phases in (data.get("valid_rates") or {}).items():
            for counts in phases.values():
                rates[op][0] += counts.get("accepted", 0)
                rates[op][1] += sum(counts.values())
    answered = collections.defaultdict(lambda: [0, 0])
    logical = collections.Counter()  # 200 `{success:false}`: a logical failure (D-ERR-2)
    explained = collections.defaultdict(collections.Counter)  # refusals of a D-OAS-4/5 reason
    reasons = collections.defaultdict(collections.Counter)
    match = operation_matcher(spec)
    for har in sorted(glob.glob(f"{work}/positive-*.har")):
        for entry in json.load(open(har, encoding="utf-8"))["log"]["entries"]:
            op = match(entry["request"]["method"], urlparse(entry["request"]["url"]).path)
            status = entry["response"]["status"]
            answered[op][1] += 1
            text = (entry["response"].get("content") or {}).get("text") or ""
            if 200 <= status < 300:
                answered[op][0] += 1
                if text.startswith("{") and '"success":false' in text.replace(" ", ""):
                    logical[op] += 1
                continue
            row = reason_row(text)
            if row:
                explained[op][row] += 1
                continue
            reasons[op][f"{status} {text[:110]}"] += 1
    low = 0
    for template, item in spec["paths"].items():
        for method in item:
            op = f"{method.upper()} {template}"
            ok, sent = answered.get(op, (0, 0))
            known = sum(explained[op].values())
            # The refusals of a listed reason are left out of the share (and shown).
            judged = sent - known
            pct = 100.0 * ok / judged if judged else (100.0 if sent else 0.0)
            shown = f"{pct:5.1f}%" if judged else "  n/a "  # every case refused for a D-OAS reason
            st_ok, st_all = rates.get(op, (0, 0))
            own = f"{100.0 * st_ok / st_all:5.1f}%" if st_all else "    -"
            flag = "" if sent and pct >= WANTED else "   <-- below 80%"
            low += bool(flag)
            failures = f", {logical[op]} of them success:false" if logical[op] else ""
            rows = ", ".join(f"{n} refused as {row}" for row, n in sorted(explained[op].items()))
            known_note = f"; {rows}" if rows else ""
            print(f"  {op:36} {ok:4}/{judged:<4} 2xx  {shown}   (schemathesis {own}{failures}{known_note}){flag}")
            if flag:
                for reason, count in reasons[op].most_common(5):
                    print(f"      {count:3} x {reason}")
    bad += low
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
