//! The event-stream grammar (server-sent events), as the WHATWG HTML standard defines it:
//! lines ended by CRLF, LF or CR; `event:` and `data:` fields, data lines joined by `\n`;
//! comments (`:`) and other fields ignored; a blank line ends an event.
//!
//! One parser for the runner's bounded stream reader and for the normalization of streamed
//! answers (diffs and snapshots). It needs nothing but the standard library.

/// An incremental event-stream parser.
///
/// ```
/// use gatecheck_codecs::sse::SseParser;
/// let mut p = SseParser::default();
/// let mut out = Vec::new();
/// p.push(b"event: a\ndata: {\"x\"", &mut out);
/// assert!(out.is_empty());
/// p.push(b":1}\r\n\r\ndata: [DONE]\n\n", &mut out);
/// assert_eq!(out.len(), 2);
/// assert_eq!((out[0].0.as_deref(), out[0].1.as_str()), (Some("a"), "{\"x\":1}"));
/// assert_eq!((out[1].0.as_deref(), out[1].1.as_str()), (None, "[DONE]"));
/// assert_eq!(p.pending(), 0);
/// ```
#[derive(Debug, Default)]
pub struct SseParser {
    /// Bytes of a line not yet ended.
    line: Vec<u8>,
    /// The last byte pushed was a CR: a LF right after it belongs to the same line end.
    after_cr: bool,
    name: Option<String>,
    data: Option<String>,
}

impl SseParser {
    /// Parses `bytes`, appending each complete event (`event:` name, data) to `out`.
    pub fn push(&mut self, bytes: &[u8], out: &mut Vec<(Option<String>, String)>) {
        for &b in bytes {
            let after_cr = std::mem::take(&mut self.after_cr);
            match b {
                b'\n' if after_cr => {}
                b'\n' | b'\r' => {
                    self.after_cr = b == b'\r';
                    let line = std::mem::take(&mut self.line);
                    self.line_done(&line, out);
                }
                _ => self.line.push(b),
            }
        }
    }

    /// Bytes of an event not yet complete (a line without its end, fields without the blank
    /// line).
    pub fn pending(&self) -> usize {
        self.line.len()
            + self.name.as_ref().map_or(0, |n| n.len() + 1)
            + self.data.as_ref().map_or(0, |d| d.len() + 1)
    }

    fn line_done(&mut self, line: &[u8], out: &mut Vec<(Option<String>, String)>) {
        if line.is_empty() {
            let name = self.name.take();
            if let Some(data) = self.data.take() {
                out.push((name, data));
            }
            return;
        }
        if line.first() == Some(&b':') {
            return;
        }
        let text = String::from_utf8_lossy(line);
        let (field, value) = match text.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (text.as_ref(), ""),
        };
        match field {
            "event" => self.name = Some(value.to_owned()),
            "data" => match &mut self.data {
                Some(d) => {
                    d.push('\n');
                    d.push_str(value);
                }
                None => self.data = Some(value.to_owned()),
            },
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(chunks: &[&[u8]]) -> (Vec<(Option<String>, String)>, usize) {
        let mut p = SseParser::default();
        let mut out = Vec::new();
        for c in chunks {
            p.push(c, &mut out);
        }
        (out, p.pending())
    }

    #[test]
    fn fields_comments_and_line_ends() {
        let (out, rest) = parse(&[
            b": hi\r",
            b"\nevent:x\rdata: a\ndata:b\r\n\r\n",
            b"id: 1\n\n",
        ]);
        assert_eq!(out, vec![(Some("x".to_owned()), "a\nb".to_owned())]);
        assert_eq!(rest, 0);
        let (out, rest) = parse(&[b"data: half"]);
        assert!(out.is_empty());
        assert_eq!(rest, 10);
    }
}
