//! Subtitles: SubRip (SRT) and WebVTT.

use super::MediaError;

/// One subtitle cue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cue {
    /// Start, milliseconds.
    pub start_ms: u64,
    /// End, milliseconds.
    pub end_ms: u64,
    /// The cue's text (lines joined with `\n`).
    pub text: String,
}

/// `HH:MM:SS<sep>mmm` (WebVTT also allows `MM:SS.mmm`) to milliseconds.
fn timestamp(s: &str, sep: char, short_ok: bool) -> Option<u64> {
    let (hms, ms) = s.split_once(sep)?;
    if ms.len() != 3 || !ms.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let parts: Vec<&str> = hms.split(':').collect();
    let (h, m, sec) = match parts.as_slice() {
        [h, m, s] => (*h, *m, *s),
        [m, s] if short_ok => ("0", *m, *s),
        _ => return None,
    };
    let num = |x: &str, two: bool| -> Option<u64> {
        if x.is_empty() || (two && x.len() != 2) || !x.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        x.parse().ok()
    };
    let (h, m, sec) = (num(h, false)?, num(m, true)?, num(sec, true)?);
    if m > 59 || sec > 59 {
        return None;
    }
    Some(((h * 60 + m) * 60 + sec) * 1000 + ms.parse::<u64>().ok()?)
}

/// The cue timing line `start --> end [settings]`.
fn timing(line: &str, sep: char, short_ok: bool) -> Option<(u64, u64)> {
    let (a, rest) = line.split_once(" --> ")?;
    let b = rest.split_whitespace().next()?;
    let (start, end) = (
        timestamp(a.trim(), sep, short_ok)?,
        timestamp(b, sep, short_ok)?,
    );
    (end >= start).then_some((start, end))
}

/// Parses SubRip: blank-line separated blocks of a sequence number (1, 2, ...), a timing line
/// `HH:MM:SS,mmm --> HH:MM:SS,mmm` and one or more text lines.
pub fn parse_srt(s: &str) -> Result<Vec<Cue>, MediaError> {
    let err = |r: String| MediaError::new("srt", r);
    let s = s
        .strip_prefix('\u{feff}')
        .unwrap_or(s)
        .replace("\r\n", "\n");
    let mut cues = Vec::new();
    for block in s.split("\n\n").map(str::trim).filter(|b| !b.is_empty()) {
        let mut lines = block.lines();
        let n: usize = lines
            .next()
            .and_then(|l| l.trim().parse().ok())
            .ok_or_else(|| err(format!("cue {} has no sequence number", cues.len() + 1)))?;
        if n != cues.len() + 1 {
            return Err(err(format!("cue number {n}, expected {}", cues.len() + 1)));
        }
        let (start_ms, end_ms) = lines
            .next()
            .and_then(|l| timing(l, ',', false))
            .ok_or_else(|| err(format!("cue {n} has a bad timing line")))?;
        let text = lines.collect::<Vec<_>>().join("\n");
        if text.trim().is_empty() {
            return Err(err(format!("cue {n} has no text")));
        }
        cues.push(Cue {
            start_ms,
            end_ms,
            text,
        });
    }
    if cues.is_empty() {
        return Err(err("no cues".into()));
    }
    Ok(cues)
}

/// Parses WebVTT: a `WEBVTT` header line, then blocks of an optional identifier, a timing line
/// `HH:MM:SS.mmm --> HH:MM:SS.mmm` and text lines. NOTE, STYLE and REGION blocks are skipped.
pub fn parse_vtt(s: &str) -> Result<Vec<Cue>, MediaError> {
    let err = |r: String| MediaError::new("vtt", r);
    let s = s
        .strip_prefix('\u{feff}')
        .unwrap_or(s)
        .replace("\r\n", "\n");
    let mut blocks = s.split("\n\n");
    let header = blocks.next().unwrap_or("");
    let first = header.lines().next().unwrap_or("");
    if !(first == "WEBVTT" || first.starts_with("WEBVTT ") || first.starts_with("WEBVTT\t")) {
        return Err(err("missing WEBVTT header".into()));
    }
    let mut cues = Vec::new();
    for block in blocks
        .map(|b| b.trim_matches('\n'))
        .filter(|b| !b.is_empty())
    {
        let lines: Vec<&str> = block.lines().collect();
        if ["NOTE", "STYLE", "REGION"]
            .iter()
            .any(|k| lines[0] == *k || lines[0].starts_with(&format!("{k} ")))
        {
            continue;
        }
        let t = usize::from(!lines[0].contains("-->"));
        let (start_ms, end_ms) = lines
            .get(t)
            .and_then(|l| timing(l, '.', true))
            .ok_or_else(|| err(format!("cue {} has a bad timing line", cues.len() + 1)))?;
        cues.push(Cue {
            start_ms,
            end_ms,
            text: lines[t + 1..].join("\n"),
        });
    }
    if cues.is_empty() {
        return Err(err("no cues".into()));
    }
    Ok(cues)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn srt_and_vtt_round_trip_times() {
        let srt = "1\n00:00:00,000 --> 00:00:02,500\nHello there\n\n2\n00:00:02,500 --> 01:00:03,000\nBye\n";
        let cues = parse_srt(srt).expect("valid srt");
        assert_eq!(cues.len(), 2);
        assert_eq!(cues[1].end_ms, 3_603_000);
        let vtt = "WEBVTT\n\n00:00:00.000 --> 00:00:02.500\nHello\n\nNOTE x\n\n00:02.500 --> 00:00:03.000\nBye\n";
        let cues = parse_vtt(vtt).expect("valid vtt");
        assert_eq!(cues[1].start_ms, 2500);
        assert!(parse_srt("1\n00:00:01,000 --> 00:00:00,000\nx\n").is_err());
        assert!(parse_vtt("00:00.000 --> 00:01.000\nx").is_err());
    }
}
