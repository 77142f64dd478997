//! The HTML page of a check run: the verdict, what the target lacks, the counts, a card per
//! failure and deviation, the task timelines, the media, and every check.

use super::writer::Html;
use super::{anchor, pair};
use crate::report::{CheckResult, MediaSample, Report, Status};
use crate::vocab::skip::SkipCause;

/// The report as one self-contained HTML page. Pass it through
/// [`Redactor::xml`](crate::Redactor::xml) before writing it, as every report.
///
/// ```no_run
/// # async fn demo(config: gatecheck_conformance::RunnerConfig) {
/// let report = gatecheck_conformance::Runner::new(config).run().await.unwrap();
/// let html = gatecheck_conformance::report::to_html(&report);
/// std::fs::write("report.html", html).unwrap();
/// # }
/// ```
pub fn to_html(report: &Report) -> String {
    let (verdict, class) = verdict(report);
    super::page(&format!("gatecheck: {verdict}"), |h| {
        header(h, report, verdict, class);
        h.el("main", &[], |h| {
            h.el("nav", &[("class", "toc")], |h| {
                for (href, label) in [
                    ("#lacks", "What the target lacks"),
                    ("#counts", "Counts"),
                    ("#findings", "Failures and deviations"),
                    ("#timelines", "Task timelines"),
                    ("#media", "Media"),
                    ("#checks", "All checks"),
                ] {
                    h.leaf("a", &[("href", href)], label);
                }
            });
            if let Some(f) = &report.setup_failure {
                h.leaf("h2", &[], "Setup failed");
                h.leaf(
                    "p",
                    &[],
                    &format!(
                        "During {} ({}): {}. No check ran.",
                        f.stage,
                        f.kind.as_str(),
                        f.message
                    ),
                );
            }
            lacks(h, report);
            counts(h, report);
            findings(h, report);
            super::timeline::section(h, &report.artifacts.timelines);
            media(h, &report.artifacts.media);
            all_checks(h, report);
            notes(h, report);
            h.el("footer", &[], |h| {
                h.text(&format!(
                    "gatecheck {} · replay this run with: gatecheck check --seed {}",
                    report.gatecheck_version, report.seed
                ));
            });
        });
    })
}

/// The run's verdict in words, and its CSS class.
fn verdict(r: &Report) -> (&'static str, &'static str) {
    let s = &r.summary;
    if r.setup_failure.is_some() {
        ("setup failed", "error")
    } else if r.interrupted {
        ("interrupted", "error")
    } else if s.failed > 0 || (r.strict && s.deviations > 0) {
        ("failed", "failed")
    } else if s.errors > 0 {
        ("errors", "error")
    } else if s.passed == 0 {
        ("nothing passed", "skipped")
    } else if s.deviations > 0 {
        ("passed, with deviations", "deviation")
    } else {
        ("passed", "passed")
    }
}

fn header(h: &mut Html, r: &Report, verdict: &str, class: &'static str) {
    let s = &r.summary;
    let classes = format!("verdict {class}");
    h.el("header", &[("class", &classes), ("id", "verdict")], |h| {
        h.el("div", &[("class", "inner")], |h| {
            h.leaf("h1", &[], &format!("gatecheck check: {verdict}"));
            h.leaf(
                "p",
                &[],
                &format!(
                    "{} checks: {} passed, {} failed, {} deviations, {} skipped, {} errors",
                    s.total, s.passed, s.failed, s.deviations, s.skipped, s.errors
                ),
            );
            h.el("dl", &[("class", "meta")], |h| {
                pair(h, "Target", &r.target);
                let kind = match (&r.target_kind, &r.mock_profile) {
                    (crate::report::TargetKind::Mock, Some(p)) => format!("gatecheck mock ({p})"),
                    (crate::report::TargetKind::Mock, None) => "gatecheck mock".into(),
                    (crate::report::TargetKind::Deployment, _) => "deployment".into(),
                    (crate::report::TargetKind::Unknown, _) => "unknown".into(),
                };
                pair(h, "Judged as", &kind);
                pair(h, "Expected profile", &r.expect);
                if let Some(era) = &r.era {
                    pair(h, "Task-layer era", era);
                }
                pair(h, "Started", &utc(r.started_at));
                pair(
                    h,
                    "Took",
                    &format!("{:.1} s", r.duration_ms as f64 / 1000.0),
                );
                pair(
                    h,
                    "Requests",
                    &format!(
                        "{} sent, {} retries (of {}), ~{} quota spent",
                        r.requests_sent, r.retries, r.retry_budget, r.quota_spent
                    ),
                );
                pair(
                    h,
                    "Seed",
                    &format!("{} ({} cases per property)", r.seed, r.cases),
                );
                if let Some(shard) = &r.shard {
                    pair(h, "Shard", shard);
                }
                if let Some(k) = &r.key_cleanup {
                    pair(h, "Working key", k);
                }
            });
        });
    });
}

/// Unix seconds as `YYYY-MM-DD hh:mm:ss UTC`.
fn utc(secs: i64) -> String {
    let (y, m, d, h, mi, sec) = gatecheck_schemas::rules::time::utc_parts(secs);
    format!("{y:04}-{m:02}-{d:02} {h:02}:{mi:02}:{sec:02} UTC")
}

fn lacks(h: &mut Html, r: &Report) {
    h.leaf("h2", &[("id", "lacks")], "What the target lacks");
    let Some(d) = &r.discovery else {
        h.leaf(
            "p",
            &[("class", "mute")],
            "Discovery did not run (a dry run, or the target failed before it).",
        );
        return;
    };
    let missing: Vec<_> = d.routes.iter().filter(|r| !r.served).collect();
    if missing.is_empty() {
        h.leaf(
            "p",
            &[],
            &format!(
                "Nothing: every one of the {} routes probed is served.",
                d.routes.len()
            ),
        );
    } else {
        h.el("ul", &[], |h| {
            for m in &missing {
                h.el("li", &[], |h| {
                    h.leaf("code", &[], &m.route);
                    h.text(&format!(" (probe answered {}): ", m.status));
                    h.text(if m.pinned {
                        "the spec pins this route: a finding (the route.* checks); \
                         the checks that need it skip (route-not-served)"
                    } else {
                        "the spec does not pin it: no finding; the checks that need it \
                         skip (route-not-served)"
                    });
                });
            }
        });
    }
    h.leaf(
        "p",
        &[],
        &format!("Models: {} known, from {}.", d.models, d.models_source),
    );
    h.el("details", &[], |h| {
        h.leaf("summary", &[], "Every route probed");
        h.el("div", &[("class", "scroll")], |h| {
            h.el("table", &[], |h| {
                h.raw("<thead><tr><th>Route</th><th>Pinned by the spec</th><th>Served</th><th>Probe status</th></tr></thead>");
                h.el("tbody", &[], |h| {
                    for p in &d.routes {
                        h.el("tr", &[], |h| {
                            h.el("td", &[], |h| h.leaf("code", &[], &p.route));
                            h.leaf("td", &[], if p.pinned { "yes" } else { "no" });
                            h.leaf("td", &[], if p.served { "yes" } else { "no" });
                            h.leaf("td", &[], &p.status.to_string());
                        });
                    }
                });
            });
        });
    });
}

fn counts(h: &mut Html, r: &Report) {
    let s = &r.summary;
    h.leaf("h2", &[("id", "counts")], "Counts");
    h.el("div", &[("class", "tiles")], |h| {
        for (class, label, n) in [
            ("passed", "passed", s.passed),
            ("failed", "failed", s.failed),
            ("deviation", "deviations", s.deviations),
            ("skipped", "skipped", s.skipped),
            ("error", "errors", s.errors),
        ] {
            let classes = format!("tile {class}");
            h.el("div", &[("class", &classes), ("data-count", class)], |h| {
                h.leaf("b", &[], &n.to_string());
                h.text(label);
            });
        }
    });
    if s.skipped_by_cause.is_empty() {
        return;
    }
    h.leaf("h4", &[], "Skips by cause");
    h.el("table", &[("id", "skip-causes")], |h| {
        h.raw("<thead><tr><th>Cause</th><th>Checks</th></tr></thead>");
        h.el("tbody", &[], |h| {
            for cause in SkipCause::ALL {
                let Some(n) = s.skipped_by_cause.get(&cause) else {
                    continue;
                };
                h.el("tr", &[], |h| {
                    h.el("td", &[], |h| {
                        h.leaf("code", &[], cause.as_str());
                        h.text(&format!(" ({cause})"));
                    });
                    h.leaf("td", &[], &n.to_string());
                });
            }
        });
    });
}

fn findings(h: &mut Html, r: &Report) {
    h.leaf("h2", &[("id", "findings")], "Failures and deviations");
    // Failures first, then errors, then deviations; by id within each.
    let mut found: Vec<&CheckResult> = r
        .checks
        .iter()
        .filter(|c| matches!(c.status, Status::Failed | Status::Deviation | Status::Error))
        .collect();
    found.sort_by_key(|c| (c.status != Status::Failed, c.status == Status::Deviation));
    if !r.repro_variables.is_empty() {
        h.leaf(
            "p",
            &[("class", "mute")],
            "The requests below name these shell variables: export them, then each runs as shown.",
        );
        h.el("dl", &[("class", "repro-vars")], |h| {
            for v in &r.repro_variables {
                pair(h, &format!("${}", v.name), &v.source);
            }
        });
    }
    for c in &found {
        super::card::card(h, c);
    }
    if found.is_empty() {
        h.leaf("p", &[], "None.");
    }
}

fn media(h: &mut Html, samples: &[MediaSample]) {
    h.leaf("h2", &[("id", "media")], "Media");
    h.leaf(
        "p",
        &[("class", "mute")],
        &format!(
            "One sample per check and media type, as the target sent it; larger than {} KiB, \
             or past {} KiB in all, it is judged but not embedded.",
            crate::report::MAX_SAMPLE_BYTES / 1024,
            crate::report::MAX_SAMPLES_BYTES / 1024
        ),
    );
    if samples.is_empty() {
        h.leaf("p", &[("class", "mute")], "No media was kept.");
        return;
    }
    h.el("div", &[("class", "media")], |h| {
        for s in samples {
            let uri = s.data_uri();
            h.el("figure", &[("data-check", &s.check)], |h| {
                if s.mime.starts_with("image/") {
                    h.void("img", &[("src", &uri), ("alt", &s.label)]);
                } else if s.mime.starts_with("audio/") {
                    h.el("audio", &[("controls", ""), ("src", &uri)], |_| {});
                } else if s.mime.starts_with("video/") {
                    let attrs = [("controls", ""), ("muted", ""), ("src", uri.as_str())];
                    h.el("video", &attrs, |_| {});
                }
                h.el("figcaption", &[], |h| {
                    h.leaf("code", &[], &s.check);
                    h.text(&format!(
                        " · {} · {} · {} bytes",
                        s.label,
                        s.mime,
                        s.bytes.len()
                    ));
                });
            });
        }
    });
}

fn all_checks(h: &mut Html, r: &Report) {
    h.leaf("h2", &[("id", "checks")], "All checks");
    h.void(
        "input",
        &[
            ("class", "filter"),
            ("type", "search"),
            ("placeholder", "Filter checks (id, status, text)"),
            ("data-table", "check-table"),
            ("aria-label", "Filter checks"),
        ],
    );
    h.el("div", &[("class", "scroll")], |h| {
        h.el("table", &[("id", "check-table")], |h| {
            h.raw("<thead><tr><th>Check</th><th>Status</th><th>Cases</th><th>ms</th><th>Detail</th></tr></thead>");
            h.el("tbody", &[], |h| {
                for c in &r.checks {
                    check_row(h, c);
                }
            });
        });
    });
}

fn check_row(h: &mut Html, c: &CheckResult) {
    let status = c.status.as_str();
    h.el("tr", &[("data-status", status)], |h| {
        h.el("td", &[], |h| {
            if matches!(c.status, Status::Failed | Status::Deviation | Status::Error) {
                let href = format!("#{}", anchor("check-", &c.id));
                h.el("a", &[("href", &href)], |h| h.leaf("code", &[], &c.id));
            } else {
                h.leaf("code", &[], &c.id);
            }
        });
        h.el("td", &[], |h| {
            h.leaf("span", &[("class", &format!("badge {status}"))], status);
        });
        h.leaf("td", &[], &c.cases.to_string());
        h.leaf("td", &[], &c.duration_ms.to_string());
        let detail = c
            .evidence
            .as_ref()
            .map(|e| e.message.as_str())
            .or(c.message.as_deref())
            .unwrap_or("");
        let detail = match c.skip_cause {
            Some(cause) => format!("[{}] {detail}", cause.as_str()),
            None => detail.to_owned(),
        };
        h.leaf("td", &[], &detail);
    });
}

fn notes(h: &mut Html, r: &Report) {
    if r.notes.is_empty() && r.planned.is_empty() {
        return;
    }
    h.leaf("h2", &[("id", "notes")], "Notes");
    h.el("ul", &[], |h| {
        for n in &r.notes {
            h.leaf("li", &[], n);
        }
    });
    if !r.planned.is_empty() {
        h.leaf("h4", &[], "Planned requests (dry run)");
        h.leaf("pre", &[], &r.planned.join("\n"));
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn utc_formats_unix_seconds() {
        assert_eq!(super::utc(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(super::utc(1_764_066_000), "2025-11-25 10:20:00 UTC");
        assert_eq!(super::utc(951_782_400), "2000-02-29 00:00:00 UTC");
    }
}
