//! SubRip and WebVTT subtitles from transcript segments.

use std::fmt::Write as _;

use super::transcript::Segment;

fn timestamp(ms: u64, sep: char) -> String {
    let (h, m, s, f) = (ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000);
    format!("{h:02}:{m:02}:{s:02}{sep}{f:03}")
}

/// SubRip: numbered cues, `HH:MM:SS,mmm` times.
pub fn srt(segments: &[Segment]) -> String {
    let mut out = String::new();
    for (i, s) in segments.iter().enumerate() {
        let _ = write!(
            out,
            "{}\n{} --> {}\n{}\n\n",
            i + 1,
            timestamp(s.start_ms, ','),
            timestamp(s.end_ms, ','),
            s.text
        );
    }
    out
}

/// WebVTT: the `WEBVTT` header, then cues with `HH:MM:SS.mmm` times.
pub fn vtt(segments: &[Segment]) -> String {
    let mut out = String::from("WEBVTT\n\n");
    for s in segments {
        let _ = write!(
            out,
            "{} --> {}\n{}\n\n",
            timestamp(s.start_ms, '.'),
            timestamp(s.end_ms, '.'),
            s.text
        );
    }
    out
}
