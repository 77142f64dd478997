//! What a run observed beyond its verdicts, for the HTML report: each task's states against
//! time, and samples of the media the target generated. Not part of the JSON report.

use base64::Engine as _;

/// The most bytes one media sample may hold (a larger one is not kept).
pub const MAX_SAMPLE_BYTES: usize = 256 * 1024;

/// The most media samples a run keeps.
pub const MAX_SAMPLES: usize = 6;

/// The most bytes all samples together may hold (the HTML page carries them in base64: a
/// third more).
pub const MAX_SAMPLES_BYTES: usize = 1024 * 1024;

/// Observations that the HTML report draws: task timelines and media samples.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Artifacts {
    /// Each video and image task followed, in the order it was created.
    pub timelines: Vec<TaskTimeline>,
    /// Media the target generated: at most [`MAX_SAMPLES`], each at most
    /// [`MAX_SAMPLE_BYTES`], [`MAX_SAMPLES_BYTES`] together.
    pub media: Vec<MediaSample>,
}

/// One task followed from its creation: its state at each observation.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskTimeline {
    /// `video` or `image`.
    pub kind: String,
    /// The task id the target gave (or a label for a synchronous request).
    pub id: String,
    /// The model asked for.
    pub model: String,
    /// The platform that ran it (the task record's `platform`, the channel type: `52`...);
    /// empty when the answers do not say.
    pub platform: String,
    /// Each observation, in time order.
    pub points: Vec<TimelinePoint>,
}

/// One observation of a task.
#[derive(Debug, Clone, PartialEq)]
pub struct TimelinePoint {
    /// Milliseconds since the task was created (on the mock's clock when the target is the
    /// mock, else wall time).
    pub at_ms: u64,
    /// The task's state (`queued`, `in_progress`, `completed`...), or `HTTP <status>` when the
    /// answer held no task.
    pub state: String,
    /// Progress, 0 to 100, when the answer gave one.
    pub progress: Option<i64>,
}

/// One piece of media the target generated, as the check saw it.
#[derive(Debug, Clone, PartialEq)]
pub struct MediaSample {
    /// The check that judged it.
    pub check: String,
    /// What it is (`gpt-image-1, 1024x1024`).
    pub label: String,
    /// Its media type (`image/png`, `audio/mpeg`...).
    pub mime: String,
    /// The bytes.
    pub bytes: Vec<u8>,
}

impl MediaSample {
    /// The sample as a `data:` URI (base64).
    ///
    /// ```
    /// use gatecheck_conformance::report::MediaSample;
    /// let s = MediaSample { check: "c".into(), label: "l".into(), mime: "image/png".into(), bytes: b"abc".to_vec() };
    /// assert_eq!(s.data_uri(), "data:image/png;base64,YWJj");
    /// ```
    pub fn data_uri(&self) -> String {
        format!(
            "data:{};base64,{}",
            self.mime,
            base64::engine::general_purpose::STANDARD.encode(&self.bytes)
        )
    }
}

/// A bounded collection of media samples, filled by the checks while they run.
#[derive(Debug, Default)]
pub(crate) struct SampleBox {
    samples: parking_lot::Mutex<Vec<MediaSample>>,
}

impl SampleBox {
    /// Keeps a sample, unless it is too large, the box is full, or the check already gave one
    /// of this media type.
    pub fn keep(&self, check: &str, label: String, mime: &str, bytes: &[u8]) {
        if bytes.is_empty() || bytes.len() > MAX_SAMPLE_BYTES {
            return;
        }
        let mut samples = self.samples.lock();
        let held: usize = samples.iter().map(|s| s.bytes.len()).sum();
        if samples.len() >= MAX_SAMPLES
            || held + bytes.len() > MAX_SAMPLES_BYTES
            || samples.iter().any(|s| s.check == check && s.mime == mime)
        {
            return;
        }
        samples.push(MediaSample {
            check: check.to_owned(),
            label,
            mime: mime.to_owned(),
            bytes: bytes.to_vec(),
        });
    }

    /// The samples kept, by check id.
    pub fn take(&self) -> Vec<MediaSample> {
        let mut v = std::mem::take(&mut *self.samples.lock());
        v.sort_by(|a, b| a.check.cmp(&b.check));
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_box_keeps_one_sample_per_check_and_type_within_its_bounds() {
        let b = SampleBox::default();
        b.keep("a", "x".into(), "image/png", &[1; 10]);
        b.keep("a", "again".into(), "image/png", &[2; 10]);
        b.keep("a", "wav".into(), "audio/wav", &[3; 10]);
        b.keep(
            "b",
            "too big".into(),
            "image/png",
            &vec![0; MAX_SAMPLE_BYTES + 1],
        );
        b.keep("c", "empty".into(), "image/png", &[]);
        for i in 0..4 {
            b.keep(
                &format!("d{i}"),
                "big".into(),
                "video/mp4",
                &vec![0; MAX_SAMPLE_BYTES],
            );
        }
        let kept = b.take();
        let labels: Vec<&str> = kept.iter().map(|s| s.label.as_str()).collect();
        assert_eq!(labels, ["x", "wav", "big", "big", "big"]);
        assert!(kept.iter().map(|s| s.bytes.len()).sum::<usize>() <= MAX_SAMPLES_BYTES);
    }
}
