//! [`Rope`]: a body as the frames it came in, read without joining them.

use bytes::Bytes;
use memchr::memmem::Finder;
use std::borrow::Cow;
use std::ops::Range;

/// Bytes held as the pieces they arrived in (hyper's frames of a request body), read in
/// place: slicing, searching and measuring need no copy, and [`Rope::to_bytes`] joins the
/// pieces only when a reader needs them in one buffer (a body in one piece is never copied).
///
/// A 1 MiB upload comes in 8 frames or more; joining them copied the whole body once per
/// request, as much work as the kernel's own copy of it (BENCHMARKS.md).
///
/// ```
/// use bytes::Bytes;
/// use gatecheck_codecs::multipart::Rope;
/// let rope = Rope::from_chunks(vec![Bytes::from_static(b"RIFF"), Bytes::from_static(b"....WAVE")]);
/// assert_eq!(rope.len(), 12);
/// assert_eq!(&rope.prefix(6)[..], b"RIFF..");
/// assert_eq!(&rope.suffix(4)[..], b"WAVE");
/// assert_eq!(&rope.slice(2..6).to_bytes()[..], b"FF..");
/// ```
#[derive(Debug, Clone, Default)]
pub struct Rope {
    /// The pieces, none empty.
    chunks: Vec<Bytes>,
    /// Where each piece starts (the lengths before it), when it has more than one: a byte
    /// is found by a binary search, so a body in many small frames costs no more per lookup
    /// than one in a few. Empty for one piece (a body in one frame costs no allocation).
    starts: Vec<usize>,
    /// Their total length.
    len: usize,
}

/// Two ropes are equal when they hold the same bytes, however they are cut.
impl PartialEq for Rope {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len
            && self
                .chunks
                .iter()
                .flat_map(|c| c.iter())
                .eq(other.chunks.iter().flat_map(|c| c.iter()))
    }
}

impl Eq for Rope {}

impl From<Bytes> for Rope {
    fn from(bytes: Bytes) -> Self {
        Self::from_chunks(vec![bytes])
    }
}

impl Rope {
    /// The bytes of `chunks`, in order (empty chunks are dropped).
    pub fn from_chunks(mut chunks: Vec<Bytes>) -> Self {
        chunks.retain(|c| !c.is_empty());
        let mut starts = Vec::new();
        let mut len = 0;
        if chunks.len() > 1 {
            starts.reserve_exact(chunks.len());
            for c in &chunks {
                starts.push(len);
                len += c.len();
            }
        } else {
            len = chunks.first().map_or(0, Bytes::len);
        }
        Self {
            chunks,
            starts,
            len,
        }
    }

    /// Its length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it holds no byte.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The pieces it holds, in order (none empty).
    pub fn chunks(&self) -> &[Bytes] {
        &self.chunks
    }

    /// Its bytes in one buffer: the one piece itself when it has one (no copy), else the
    /// pieces joined.
    pub fn to_bytes(&self) -> Bytes {
        match self.chunks.as_slice() {
            [] => Bytes::new(),
            [one] => one.clone(),
            many => {
                let mut all = bytes::BytesMut::with_capacity(self.len);
                for c in many {
                    all.extend_from_slice(c);
                }
                all.freeze()
            }
        }
    }

    /// [`Rope::to_bytes`] of a rope no longer needed: one piece is handed over as it is.
    pub fn into_bytes(mut self) -> Bytes {
        if self.chunks.len() == 1 {
            return self.chunks.pop().unwrap_or_default();
        }
        self.to_bytes()
    }

    /// Its first `n` bytes (fewer when it is shorter) in one buffer: a slice of its first
    /// piece when they lie there (no copy, no allocation), else copied.
    pub fn prefix_bytes(&self, n: usize) -> Bytes {
        match self.chunks.as_slice() {
            [] => Bytes::new(),
            [first, ..] if n <= first.len() => first.slice(..n),
            [only] => only.clone(),
            _ => Bytes::from(self.prefix(n).into_owned()),
        }
    }

    /// The index of the piece that holds byte `at` (`at` < its length).
    fn piece_of(&self, at: usize) -> usize {
        self.starts.partition_point(|&s| s <= at).saturating_sub(1)
    }

    /// Where piece `i` starts.
    fn start_of(&self, i: usize) -> usize {
        self.starts.get(i).copied().unwrap_or(0)
    }

    /// The bytes of `range` (clamped to its length), sharing its pieces (no copy).
    pub fn slice(&self, range: Range<usize>) -> Rope {
        let (start, end) = (range.start.min(self.len), range.end.min(self.len));
        if start >= end {
            return Rope::default();
        }
        let first = self.piece_of(start);
        let mut chunks = Vec::new();
        for (i, c) in self.chunks.iter().enumerate().skip(first) {
            let from = self.start_of(i);
            if from >= end {
                break;
            }
            let to = from + c.len();
            chunks.push(c.slice(start.max(from) - from..end.min(to) - from));
        }
        Rope::from_chunks(chunks)
    }

    /// The bytes of `range` (clamped to its length) as one slice: borrowed when they lie in
    /// one piece, else copied. For short ranges (a part's head, a file's header).
    pub fn range(&self, range: Range<usize>) -> Cow<'_, [u8]> {
        let (start, end) = (range.start.min(self.len), range.end.min(self.len));
        if start >= end {
            return Cow::Borrowed(&[]);
        }
        let i = self.piece_of(start);
        let from = self.start_of(i);
        if end <= from + self.chunks[i].len() {
            return Cow::Borrowed(&self.chunks[i][start - from..end - from]);
        }
        let mut out = Vec::with_capacity(end - start);
        for c in self.slice(start..end).chunks() {
            out.extend_from_slice(c);
        }
        Cow::Owned(out)
    }

    /// Its first `n` bytes (fewer when it is shorter).
    pub fn prefix(&self, n: usize) -> Cow<'_, [u8]> {
        self.range(0..n)
    }

    /// Its last `n` bytes (fewer when it is shorter).
    pub fn suffix(&self, n: usize) -> Cow<'_, [u8]> {
        self.range(self.len.saturating_sub(n)..self.len)
    }

    /// The byte at `at`, if it has one.
    pub fn byte(&self, at: usize) -> Option<u8> {
        if at >= self.len {
            return None;
        }
        let i = self.piece_of(at);
        Some(self.chunks[i][at - self.start_of(i)])
    }

    /// Whether the bytes from `at` start with `pattern`.
    pub fn starts_with_at(&self, at: usize, pattern: &[u8]) -> bool {
        at.checked_add(pattern.len())
            .is_some_and(|end| end <= self.len && *self.range(at..end) == *pattern)
    }

    /// Where the first `needle` (`finder`'s) at or after `from` starts: each piece searched
    /// in place, and the few bytes around each seam between pieces for a match across it.
    pub fn find(&self, finder: &Finder<'_>, from: usize) -> Option<usize> {
        let n = finder.needle().len();
        if n == 0 {
            return (from <= self.len).then_some(from);
        }
        if from >= self.len {
            return None;
        }
        let first = self.piece_of(from);
        for (i, c) in self.chunks.iter().enumerate().skip(first) {
            let offset = self.start_of(i);
            let end = offset + c.len();
            // Matches inside this piece first: they start before any match across its end.
            let start = from.max(offset);
            if let Some(i) = finder.find(&c[start - offset..]) {
                return Some(start + i);
            }
            // Then a match that starts in this piece and ends past it.
            if end < self.len {
                let seam_start = start.max(end.saturating_sub(n - 1));
                let window = self.range(seam_start..end + n - 1);
                if let Some(i) = finder.find(&window).filter(|&i| seam_start + i < end) {
                    return Some(seam_start + i);
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    //! The rope against the same bytes in one buffer, cut into pieces every way.

    use super::*;
    use proptest::prelude::*;

    /// `bytes` cut at `cuts` (positions, any order, clamped).
    fn cut(bytes: &[u8], cuts: &[usize]) -> Rope {
        let mut at: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
        at.push(0);
        at.push(bytes.len());
        at.sort_unstable();
        let chunks = at
            .windows(2)
            .map(|w| Bytes::copy_from_slice(&bytes[w[0]..w[1]]))
            .collect();
        Rope::from_chunks(chunks)
    }

    #[test]
    fn a_match_across_three_pieces_and_at_the_ends() {
        let rope = cut(b"xx\r\n--bound--yy\r\n--bound", &[3, 5, 6, 7, 20]);
        let f = Finder::new(b"\r\n--bound");
        assert_eq!(rope.find(&f, 0), Some(2));
        assert_eq!(rope.find(&f, 3), Some(15));
        assert_eq!(rope.find(&f, 16), None);
        assert_eq!(rope.find(&Finder::new(b"yy"), 0), Some(13));
        assert_eq!(rope.find(&Finder::new(b"zz"), 0), None);
        assert_eq!(Rope::default().find(&f, 0), None);
    }

    #[test]
    fn one_piece_is_never_copied() {
        let body = Bytes::from_static(b"one piece");
        let rope = Rope::from(body.clone());
        assert_eq!(rope.to_bytes().as_ptr(), body.as_ptr());
        assert!(matches!(rope.range(2..5), Cow::Borrowed(b"e p")));
        assert_eq!(rope.slice(4..9).to_bytes().as_ptr(), body[4..].as_ptr());
    }

    /// 200 000 one-byte frames: every lookup is a binary search and the search walks the
    /// pieces once (a lookup from the first piece each time would not end).
    #[test]
    fn a_body_in_one_byte_frames_is_read_in_one_pass() {
        let body = vec![b'a'; 200_000];
        let rope = cut(&body, &(1..body.len()).collect::<Vec<_>>());
        assert_eq!(rope.chunks().len(), body.len());
        assert_eq!(rope.find(&Finder::new(b"\r\n--b"), 0), None);
        assert_eq!(rope.find(&Finder::new(b"aaa"), 123_456), Some(123_456));
        for at in (0..body.len()).step_by(7) {
            assert_eq!(rope.byte(at), Some(b'a'));
            assert!(rope.starts_with_at(at, b"aa") == (at + 2 <= body.len()));
        }
        assert_eq!(rope.slice(10..20).chunks().len(), 10);
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]
        #[test]
        fn reads_as_the_joined_bytes(
            body in prop::collection::vec(prop::sample::select(b"ab\r\n-".to_vec()), 0..64),
            cuts in prop::collection::vec(0usize..64, 0..10),
            needle in prop::collection::vec(prop::sample::select(b"ab\r\n-".to_vec()), 1..6),
            from in 0usize..70,
            range in (0usize..70, 0usize..70),
        ) {
            let rope = cut(&body, &cuts);
            prop_assert_eq!(rope.len(), body.len());
            prop_assert_eq!(&rope.to_bytes()[..], &body[..]);
            prop_assert_eq!(&rope, &Rope::from(Bytes::copy_from_slice(&body)));
            let f = Finder::new(&needle);
            let expected = body.get(from..).and_then(|rest| f.find(rest)).map(|i| i + from);
            prop_assert_eq!(rope.find(&f, from), expected);
            let (s, e) = (range.0.min(body.len()), range.1.min(body.len()));
            let want: &[u8] = if s < e { &body[s..e] } else { &[] };
            prop_assert_eq!(&rope.range(range.0..range.1)[..], want);
            prop_assert_eq!(&rope.prefix_bytes(range.1)[..], &body[..range.1.min(body.len())]);
            prop_assert_eq!(&rope.clone().into_bytes()[..], &body[..]);
            prop_assert_eq!(&rope.slice(range.0..range.1).to_bytes()[..], want);
            prop_assert_eq!(rope.slice(range.0..range.1).len(), want.len());
            prop_assert_eq!(rope.byte(from), body.get(from).copied());
            prop_assert_eq!(rope.starts_with_at(from, &needle), body.get(from..).is_some_and(|r| r.starts_with(&needle)));
        }
    }
}
