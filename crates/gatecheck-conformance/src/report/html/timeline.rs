//! Task timelines as inline SVG: one row per task, its states as coloured spans against time,
//! a dot (with a tooltip) at each observation.

use super::writer::Html;
use crate::report::TaskTimeline;

/// Width of the drawing, in SVG units (it scales to the page).
const WIDTH: f64 = 800.0;
/// Height of one task's row.
const ROW: f64 = 38.0;
/// Left and right margins of the time axis.
const PAD: f64 = 12.0;
/// Height of the axis labels at the bottom.
const AXIS: f64 = 22.0;

/// The section: one drawing per kind of task (video, image), with a legend.
pub(super) fn section(h: &mut Html, timelines: &[TaskTimeline]) {
    h.leaf("h2", &[("id", "timelines")], "Task timelines");
    if timelines.is_empty() {
        h.leaf(
            "p",
            &[("class", "mute")],
            "No video or image task was observed.",
        );
        return;
    }
    for kind in ["video", "image"] {
        let rows: Vec<_> = timelines.iter().filter(|t| t.kind == kind).collect();
        if rows.is_empty() {
            continue;
        }
        let title = match kind {
            "video" => "Video tasks (time since creation; the mock's clock on the mock)",
            _ => "Image requests (synchronous: sent, then answered)",
        };
        h.leaf("h4", &[], title);
        legend(h, &rows);
        drawing(h, kind, &rows);
    }
}

/// The CSS class of a state's colour.
fn state_class(state: &str) -> &'static str {
    match state {
        "queued" => "st-queued",
        "in_progress" => "st-in_progress",
        "completed" => "st-completed",
        "failed" => "st-failed",
        "error" => "st-error",
        "requested" => "st-requested",
        _ => "st-other",
    }
}

fn legend(h: &mut Html, rows: &[&TaskTimeline]) {
    let mut states: Vec<&str> = Vec::new();
    for p in rows.iter().flat_map(|t| &t.points) {
        if !states.contains(&p.state.as_str()) {
            states.push(&p.state);
        }
    }
    h.el("div", &[("class", "legend")], |h| {
        for s in states {
            h.el("span", &[], |h| {
                h.leaf("i", &[("class", state_class(s))], "");
                h.text(s);
            });
        }
    });
}

/// `ms` as people read it on this axis: seconds for video, milliseconds for images.
fn time_label(kind: &str, ms: u64) -> String {
    if kind == "video" {
        let s = ms as f64 / 1000.0;
        if s.fract() == 0.0 {
            format!("{s:.0} s")
        } else {
            format!("{s:.1} s")
        }
    } else {
        format!("{ms} ms")
    }
}

fn drawing(h: &mut Html, kind: &str, rows: &[&TaskTimeline]) {
    let max_ms = rows
        .iter()
        .flat_map(|t| t.points.iter().map(|p| p.at_ms))
        .max()
        .unwrap_or(0)
        .max(1);
    let x = |ms: u64| PAD + (WIDTH - 2.0 * PAD) * (ms as f64 / max_ms as f64);
    let height = ROW * rows.len() as f64 + AXIS;
    let view = format!("0 0 {WIDTH} {height}");
    let label = format!("{kind} task timelines");
    let attrs = [
        ("class", "timeline"),
        ("viewBox", view.as_str()),
        ("role", "img"),
        ("aria-label", label.as_str()),
        ("data-kind", kind),
    ];
    h.el("svg", &attrs, |h| {
        for (i, t) in rows.iter().enumerate() {
            row(h, kind, t, ROW * i as f64, &x);
        }
        let base = ROW * rows.len() as f64 + 2.0;
        let (y, w) = (base.to_string(), (WIDTH - PAD).to_string());
        let line = [
            ("class", "axis"),
            ("x1", "12"),
            ("x2", w.as_str()),
            ("y1", y.as_str()),
            ("y2", y.as_str()),
        ];
        h.el("line", &line, |_| {});
        for k in 0..=4u64 {
            let ms = max_ms * k / 4;
            let (tx, ty) = (x(ms).to_string(), (base + 15.0).to_string());
            let anchor = match k {
                0 => "start",
                4 => "end",
                _ => "middle",
            };
            let attrs = [
                ("class", "tick"),
                ("x", tx.as_str()),
                ("y", ty.as_str()),
                ("text-anchor", anchor),
            ];
            h.leaf("text", &attrs, &time_label(kind, ms));
        }
    });
}

/// One task: its label, a span per state, a dot per observation.
fn row(h: &mut Html, kind: &str, t: &TaskTimeline, top: f64, x: &impl Fn(u64) -> f64) {
    let ty = (top + 12.0).to_string();
    let caption = if t.platform.is_empty() {
        format!("{} · {}", t.id, t.model)
    } else {
        format!("{} · {} · platform {}", t.id, t.model, t.platform)
    };
    h.leaf("text", &[("x", "12"), ("y", ty.as_str())], &caption);
    let bar_y = top + 18.0;
    let attrs_g = [("data-task", t.id.as_str())];
    h.el("g", &attrs_g, |h| {
        for (i, p) in t.points.iter().enumerate() {
            let end = t.points.get(i + 1).map_or(p.at_ms, |n| n.at_ms);
            let (x0, x1) = (x(p.at_ms), x(end));
            let w = (x1 - x0).max(if i + 1 == t.points.len() { 6.0 } else { 0.0 });
            if w > 0.0 {
                let (xs, ys, ws) = (x0.to_string(), bar_y.to_string(), w.to_string());
                let attrs = [
                    ("class", state_class(&p.state)),
                    ("x", xs.as_str()),
                    ("y", ys.as_str()),
                    ("width", ws.as_str()),
                    ("height", "12"),
                    ("data-state", p.state.as_str()),
                ];
                h.el("rect", &attrs, |h| {
                    h.leaf(
                        "title",
                        &[],
                        &format!(
                            "{} from {} to {}",
                            p.state,
                            time_label(kind, p.at_ms),
                            time_label(kind, end)
                        ),
                    );
                });
            }
            let (cx, cy) = (x0.to_string(), (bar_y + 6.0).to_string());
            let attrs = [
                ("class", state_class(&p.state)),
                ("cx", cx.as_str()),
                ("cy", cy.as_str()),
                ("r", "4"),
            ];
            h.el("circle", &attrs, |h| {
                let progress = p
                    .progress
                    .map(|n| format!(", progress {n}"))
                    .unwrap_or_default();
                h.leaf(
                    "title",
                    &[],
                    &format!("{} at {}{progress}", p.state, time_label(kind, p.at_ms)),
                );
            });
        }
    });
}
