//! What the HTML report draws from a run's shared observations: the video run's tasks and the
//! image results as timelines, and the media samples the checks kept.

use super::{CheckCtx, Env};
use crate::http::request::{Body, RequestSpec};
use crate::vocab::artifacts::{Artifacts, TaskTimeline, TimelinePoint};

/// The run's artifacts: every observed task's timeline and the media samples.
pub(crate) fn artifacts(env: &Env) -> Artifacts {
    let mut timelines = Vec::new();
    if let Some(Ok(run)) = env.video.get().map(|r| r.as_ref()) {
        timelines.extend(run.timelines());
    }
    if let Some(Ok(images)) = env.images.get() {
        for (i, (spec, ex, size)) in images.iter().enumerate() {
            let model = json_model(spec);
            let answered = if ex.status.is_success() {
                "completed".to_owned()
            } else {
                format!("HTTP {}", ex.status.as_u16())
            };
            timelines.push(TaskTimeline {
                kind: "image".into(),
                id: format!("image request {} ({size})", i + 1),
                model: model.to_owned(),
                platform: String::new(),
                points: vec![
                    TimelinePoint {
                        at_ms: 0,
                        state: "requested".into(),
                        progress: None,
                    },
                    TimelinePoint {
                        at_ms: u64::try_from(ex.elapsed.as_millis()).unwrap_or(u64::MAX),
                        state: answered,
                        progress: None,
                    },
                ],
            });
        }
    }
    timelines.extend(env.platform_tasks.lock().iter().cloned());
    Artifacts {
        timelines,
        media: env.media.take(),
    }
}

/// The `model` of a JSON request body (empty when it has none).
pub(crate) fn json_model(spec: &RequestSpec) -> &str {
    match &spec.body {
        Body::Json(v) => v.get("model").and_then(|m| m.as_str()).unwrap_or(""),
        _ => "",
    }
}

impl CheckCtx {
    /// Keeps a sample of media that check `check` judged, for the HTML report (bounded: see
    /// [`crate::report::MAX_SAMPLE_BYTES`]).
    pub fn keep_media(&self, check: &str, label: String, mime: &str, bytes: &[u8]) {
        self.env.media.keep(check, label, mime, bytes);
    }
}
