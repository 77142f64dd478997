//! [`Scan`]: where a multipart body's parts end, found frame by frame as the body arrives.

use memchr::memmem::Finder;

/// Every place a `\r\n--boundary` (the end of a part's data) starts in a body fed to it frame
/// by frame: each frame is searched as it arrives, while the bytes the kernel just wrote are
/// still in the CPU's cache, and a match across two frames is found from the frame's first
/// bytes and the last bytes of the frames before it.
///
/// Searching the frames of a 1 MiB upload after the whole body had arrived read them back
/// from memory and took a third as long as the kernel's own copy of them (BENCHMARKS.md,
/// "the upload read in place"). [`crate::multipart::Parts`] reads the ends of parts from here.
///
/// ```
/// use gatecheck_codecs::multipart::Scan;
/// let mut scan = Scan::new("b");
/// scan.feed(b"--b\r\n\r\nx\r");
/// scan.feed(b"\n-");
/// scan.feed(b"-b--\r\n");
/// assert_eq!(scan.ends(), &[8]);
/// ```
#[derive(Debug)]
pub struct Scan {
    /// `\r\n--boundary`.
    finder: Finder<'static>,
    /// Where each match starts, in order (overlapping ones too).
    ends: Vec<usize>,
    /// The last bytes fed (at most the needle's length less one): where a match across the
    /// next frame's start may begin.
    tail: Vec<u8>,
    /// The seam's bytes (kept to spare an allocation per frame).
    window: Vec<u8>,
    /// How many bytes were fed.
    len: usize,
}

impl Scan {
    /// A scan for the ends of the parts of a body split at `boundary`.
    pub fn new(boundary: &str) -> Self {
        Self {
            finder: Finder::new(format!("\r\n--{boundary}").as_bytes()).into_owned(),
            ends: Vec::new(),
            tail: Vec::new(),
            window: Vec::new(),
            len: 0,
        }
    }

    /// The body's next frame.
    pub fn feed(&mut self, frame: &[u8]) {
        let keep = self.finder.needle().len() - 1;
        // Matches that start in the bytes before this frame and end in it.
        if !self.tail.is_empty() {
            let base = self.len - self.tail.len();
            let window = &mut self.window;
            window.clear();
            window.extend_from_slice(&self.tail);
            window.extend_from_slice(&frame[..keep.min(frame.len())]);
            let mut from = 0;
            while let Some(i) = self.finder.find(&window[from..]) {
                let at = from + i;
                if at >= self.tail.len() {
                    break;
                }
                self.ends.push(base + at);
                from = at + 1;
            }
        }
        // Matches inside it.
        let mut from = 0;
        while let Some(i) = self.finder.find(&frame[from..]) {
            self.ends.push(self.len + from + i);
            from += i + 1;
        }
        // The last `keep` bytes of all fed so far.
        if frame.len() >= keep {
            self.tail.clear();
            self.tail.extend_from_slice(&frame[frame.len() - keep..]);
        } else {
            self.tail.extend_from_slice(frame);
            let cut = self.tail.len().saturating_sub(keep);
            self.tail.drain(..cut);
        }
        self.len += frame.len();
    }

    /// Where each `\r\n--boundary` fed so far starts, in order.
    pub fn ends(&self) -> &[usize] {
        &self.ends
    }

    /// How many bytes were fed.
    pub fn fed(&self) -> usize {
        self.len
    }

    /// The first end at or after `at`.
    pub(crate) fn end_from(&self, at: usize) -> Option<usize> {
        let i = self.ends.partition_point(|&e| e < at);
        self.ends.get(i).copied()
    }
}

#[cfg(test)]
mod tests {
    //! The scan against a search of the whole body, over every way of cutting it.

    use super::*;
    use proptest::prelude::*;

    /// Every start of `needle` in `body`, overlapping ones too.
    fn all(body: &[u8], needle: &[u8]) -> Vec<usize> {
        (0..body.len())
            .filter(|&i| body[i..].starts_with(needle))
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]
        #[test]
        fn finds_what_a_search_of_the_whole_body_finds(
            body in prop::collection::vec(prop::sample::select(b"\r\n-b".to_vec()), 0..80),
            sizes in prop::collection::vec(1usize..9, 1..12),
            boundary in prop::sample::select(vec!["b", "bb", "-b", "b\r\n-"]),
        ) {
            let mut scan = Scan::new(boundary);
            let (mut at, mut k) = (0, 0);
            while at < body.len() {
                let end = (at + sizes[k % sizes.len()]).min(body.len());
                scan.feed(&body[at..end]);
                at = end;
                k += 1;
            }
            let needle = format!("\r\n--{boundary}");
            prop_assert_eq!(scan.ends(), &all(&body, needle.as_bytes())[..]);
        }
    }
}
