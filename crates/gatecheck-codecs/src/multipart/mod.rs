//! `multipart/form-data` request bodies as the service reads them (feature `multipart`): the
//! audio, image-edit and video routes of the mock read their uploads with [`Parts`], and the
//! fuzz target `multipart` drives [`read`], which reads every part the same way.
//!
//! [`Parts`] reads a body already read in full: one scan for the boundaries, each part's data a
//! slice of the body. The body may stay in the frames it arrived in ([`Rope`]): joining a 1 MiB
//! upload's frames into one buffer cost as much as the kernel's own copy of it. multer ([`over`]) copies the whole body into a buffer of its own before
//! it parses it; on a 1 MiB upload that copy was a third of the mock's instructions per request
//! (BENCHMARKS.md). multer still parses each part's head, so names, file names,
//! content types and header errors are its own; [`Parts`] answers what multer answers over the
//! same body, errors included (the tests below and the fuzz target hold it to that).

use bytes::Bytes;
use memchr::memmem::Finder;

mod rope;
mod scan;
pub use rope::Rope;
pub use scan::Scan;

/// One field of a multipart body: its name, its file name, and its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MultipartField {
    /// The field name (`""` when the part has none).
    pub name: String,
    /// The file name, for file parts.
    pub file_name: Option<String>,
    /// The field's bytes.
    pub data: Bytes,
}

/// A multipart parser over a body already read in full, split at `boundary`.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let body = bytes::Bytes::from_static(b"--b\r\ncontent-disposition: form-data; name=\"model\"\r\n\r\nwhisper-1\r\n--b--\r\n");
/// let mut mp = gatecheck_codecs::multipart::over(body, "b".into());
/// let field = mp.next_field().await.unwrap().unwrap();
/// assert_eq!(field.name(), Some("model"));
/// # });
/// ```
pub fn over(body: Bytes, boundary: String) -> multer::Multipart<'static> {
    let stream = futures_util::stream::once(async move { Ok::<Bytes, std::io::Error>(body) });
    multer::Multipart::new(stream, boundary)
}

/// A field's bytes, without a copy when they come in one piece. Over a body read in full
/// ([`over`]) every field does: its data is a slice of the body. `multer::Field::bytes`
/// copies every field into a new buffer (a megabyte upload was copied three times in all).
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let body = bytes::Bytes::from_static(b"--b\r\ncontent-disposition: form-data; name=\"file\"; filename=\"a.wav\"\r\n\r\nRIFF....\r\n--b--\r\n");
/// let mut mp = gatecheck_codecs::multipart::over(body, "b".into());
/// let field = mp.next_field().await.unwrap().unwrap();
/// let data = gatecheck_codecs::multipart::field_data(field).await.unwrap();
/// assert_eq!(&data[..], b"RIFF....");
/// # });
/// ```
pub async fn field_data(mut field: multer::Field<'_>) -> Result<Bytes, multer::Error> {
    let Some(first) = field.chunk().await? else {
        return Ok(Bytes::new());
    };
    let Some(second) = field.chunk().await? else {
        return Ok(first);
    };
    let mut all = bytes::BytesMut::with_capacity(first.len() + second.len());
    all.extend_from_slice(&first);
    all.extend_from_slice(&second);
    while let Some(more) = field.chunk().await? {
        all.extend_from_slice(&more);
    }
    Ok(all.freeze())
}

/// One part of a body read by [`Parts`]: its head as multer reads it, its data a slice of
/// the body (no copy).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    /// The `name` of its `Content-Disposition`.
    pub name: Option<String>,
    /// The `filename` of its `Content-Disposition`.
    pub file_name: Option<String>,
    /// Its `Content-Type`, when that parses as a media type.
    pub content_type: Option<String>,
    /// Its bytes, in the pieces of the body they lie in ([`Rope::to_bytes`] joins them).
    pub data: Rope,
}

/// The parts of a `multipart/form-data` body read in full, in order, as multer reads them:
/// the preamble before the first `--boundary` skipped, a part's data ending at the next
/// `\r\n--boundary`, the body ending at `--boundary--` (anything after it ignored), and
/// multer's own errors for a body cut short or a malformed head.
///
/// The body may be one buffer or the frames it arrived in ([`Rope`]): the boundaries are
/// found in place, frame by frame, and a part's data is a slice of them.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let body = bytes::Bytes::from_static(b"--b\r\ncontent-disposition: form-data; name=\"file\"; filename=\"a.wav\"\r\n\r\nRIFF....\r\n--b--\r\n");
/// let mut parts = gatecheck_codecs::multipart::Parts::new(body.clone(), "b".into());
/// let part = parts.next_part().await.unwrap().unwrap();
/// assert_eq!((part.name.as_deref(), part.file_name.as_deref()), (Some("file"), Some("a.wav")));
/// assert_eq!(&part.data.to_bytes()[..], b"RIFF....");
/// let start = body.len() - b"RIFF....\r\n--b--\r\n".len();
/// assert_eq!(part.data.to_bytes().as_ptr(), body[start..].as_ptr()); // a slice of the body
/// assert!(parts.next_part().await.unwrap().is_none());
/// # });
/// ```
pub struct Parts {
    body: Rope,
    boundary: String,
    /// `--boundary`.
    delimiter: Finder<'static>,
    /// Where each part's data may end (each `\r\n--boundary`).
    ends: Scan,
    /// The blank line that ends a part's head.
    head_end: Finder<'static>,
    /// Where the next `--boundary` starts; `None` before the first one is found.
    at: Option<usize>,
    /// After the closing boundary or an error: no more parts.
    done: bool,
}

impl Parts {
    /// The parts of `body`, split at `boundary` (as `multer::parse_boundary` gives it).
    pub fn new(body: impl Into<Rope>, boundary: String) -> Self {
        let body = body.into();
        let mut ends = Scan::new(&boundary);
        for piece in body.chunks() {
            ends.feed(piece);
        }
        Self::scanned(body, boundary, ends)
    }

    /// The parts of `body`, whose frames were fed to `ends` as they arrived (in order, each
    /// once; [`Scan`]). A scan that was not fed the whole body is done again over it.
    pub fn scanned(body: Rope, boundary: String, ends: Scan) -> Self {
        if ends.fed() != body.len() {
            return Self::new(body, boundary);
        }
        Self {
            body,
            delimiter: Finder::new(format!("--{boundary}").as_bytes()).into_owned(),
            boundary,
            ends,
            head_end: Finder::new(b"\r\n\r\n").into_owned(),
            at: None,
            done: false,
        }
    }

    /// The next part, `None` after the closing boundary. After an error there are no more
    /// parts.
    pub async fn next_part(&mut self) -> Result<Option<Part>, multer::Error> {
        if self.done {
            return Ok(None);
        }
        let next = self.split_next();
        let part = match next {
            Ok(Some((head, data))) => self.part(head, data).await.map(Some),
            Ok(None) => Ok(None),
            Err(e) => Err(e),
        };
        self.done = !matches!(part, Ok(Some(_)));
        part
    }

    /// The next part's head (up to and with its `\r\n\r\n`) and data, as byte ranges of the
    /// body: multer's stages over a stream that has ended (multer's multipart.rs, `poll_next_field`).
    #[allow(clippy::type_complexity)]
    fn split_next(
        &mut self,
    ) -> Result<Option<(std::ops::Range<usize>, std::ops::Range<usize>)>, multer::Error> {
        let b = &self.body;
        let incomplete = || multer::Error::IncompleteStream;
        let delimiter = self.delimiter.needle();
        let mut at = match self.at {
            Some(at) => at,
            None => b.find(&self.delimiter, 0).ok_or_else(incomplete)?,
        };
        // The boundary, then `--` (the end) or transport padding and CRLF.
        if !b.starts_with_at(at, delimiter) {
            return Err(incomplete());
        }
        at += delimiter.len();
        if at + 2 > b.len() {
            return Err(incomplete());
        }
        if b.starts_with_at(at, b"--") {
            return Ok(None);
        }
        while matches!(b.byte(at), Some(b' ' | b'\t')) {
            at += 1;
        }
        if !b.starts_with_at(at, b"\r\n") {
            return Err(incomplete());
        }
        at += 2;
        let head_len = b.find(&self.head_end, at).ok_or_else(incomplete)? - at + 4;
        let head = at..at + head_len;
        at += head_len;
        // The data ends at the next CRLF and boundary; a missing one is the part's own
        // error, which names it (known once its head is read: `Parts::part`).
        let data = match self.ends.end_from(at) {
            Some(end) => {
                self.at = Some(end + 2);
                at..end
            }
            None => {
                self.at = None;
                at..usize::MAX
            }
        };
        Ok(Some((head, data)))
    }

    /// A part from its head, which multer parses (its name, file name and content type, or
    /// its error), and its data, sliced from the body.
    async fn part(
        &self,
        head: std::ops::Range<usize>,
        data: std::ops::Range<usize>,
    ) -> Result<Part, multer::Error> {
        let boundary = &self.boundary;
        let delimiter = self.delimiter.needle();
        let mut one = Vec::with_capacity(head.len() + 2 * boundary.len() + 10);
        one.extend_from_slice(delimiter);
        one.extend_from_slice(b"\r\n");
        one.extend_from_slice(&self.body.range(head));
        one.extend_from_slice(b"\r\n");
        one.extend_from_slice(delimiter);
        one.extend_from_slice(b"--");
        let mut mp = over(one.into(), boundary.clone());
        let field = mp
            .next_field()
            .await?
            .ok_or(multer::Error::IncompleteStream)?;
        let name = field.name().map(str::to_owned);
        if data.end == usize::MAX {
            return Err(multer::Error::IncompleteFieldData { field_name: name });
        }
        Ok(Part {
            file_name: field.file_name().map(str::to_owned),
            content_type: field.content_type().map(ToString::to_string),
            name,
            data: self.body.slice(data),
        })
    }
}

/// Reads a whole `multipart/form-data` body: the boundary from `content_type`, then every
/// field with its bytes. The error is the message the mock answers with.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// use gatecheck_codecs::multipart::read;
/// let body = b"--b\r\ncontent-disposition: form-data; name=\"model\"\r\n\r\nwhisper-1\r\n--b--\r\n";
/// let fields = read("multipart/form-data; boundary=b", body.to_vec().into()).await.unwrap();
/// assert_eq!((fields[0].name.as_str(), &fields[0].data[..]), ("model", &b"whisper-1"[..]));
/// assert!(read("application/json", body.to_vec().into()).await.is_err());
/// # });
/// ```
pub async fn read(content_type: &str, body: Bytes) -> Result<Vec<MultipartField>, String> {
    read_framed(content_type, body.into()).await
}

/// [`read`] of a body in the frames it arrived in.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// use bytes::Bytes;
/// use gatecheck_codecs::multipart::{read_framed, Rope};
/// let frames = ["--b\r\ncontent-disposition: form-data; name=\"mo", "del\"\r\n\r\nwhisper-1\r", "\n--b--\r\n"];
/// let body = Rope::from_chunks(frames.into_iter().map(|f| Bytes::from_static(f.as_bytes())).collect());
/// let fields = read_framed("multipart/form-data; boundary=b", body).await.unwrap();
/// assert_eq!((fields[0].name.as_str(), &fields[0].data[..]), ("model", &b"whisper-1"[..]));
/// # });
/// ```
pub async fn read_framed(content_type: &str, body: Rope) -> Result<Vec<MultipartField>, String> {
    let boundary = multer::parse_boundary(content_type)
        .map_err(|_| "expected a multipart/form-data body".to_owned())?;
    let mut parts = Parts::new(body, boundary);
    let bad = |e: multer::Error| format!("bad multipart body: {e}");
    let mut fields = Vec::new();
    while let Some(part) = parts.next_part().await.map_err(bad)? {
        fields.push(MultipartField {
            name: part.name.unwrap_or_default(),
            file_name: part.file_name,
            data: part.data.to_bytes(),
        });
    }
    Ok(fields)
}

/// [`read`] with multer over the whole body ([`over`], [`field_data`]): the reference that
/// [`Parts`] is held to (same fields, same errors).
pub async fn read_with_multer(
    content_type: &str,
    body: Bytes,
) -> Result<Vec<MultipartField>, String> {
    let boundary = multer::parse_boundary(content_type)
        .map_err(|_| "expected a multipart/form-data body".to_owned())?;
    let mut mp = over(body, boundary);
    let bad = |e: multer::Error| format!("bad multipart body: {e}");
    let mut fields = Vec::new();
    while let Some(field) = mp.next_field().await.map_err(bad)? {
        let name = field.name().unwrap_or("").to_owned();
        let file_name = field.file_name().map(str::to_owned);
        let data = field_data(field).await.map_err(bad)?;
        fields.push(MultipartField {
            name,
            file_name,
            data,
        });
    }
    Ok(fields)
}

#[cfg(test)]
mod tests {
    //! [`Parts`] against multer over the same bodies: the same parts (name, file name,
    //! content type, data) and the same error, body by body.

    use super::*;
    use proptest::prelude::*;

    type Read = Result<Vec<(Option<String>, Option<String>, Option<String>, Bytes)>, String>;

    fn block<F: std::future::Future>(f: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime")
            .block_on(f)
    }

    async fn by_parts(body: &[u8]) -> Read {
        parts_of(Rope::from(Bytes::copy_from_slice(body))).await
    }

    async fn parts_of(body: Rope) -> Read {
        let mut parts = Parts::new(body, "b".into());
        let mut all = Vec::new();
        while let Some(p) = parts.next_part().await.map_err(|e| e.to_string())? {
            all.push((p.name, p.file_name, p.content_type, p.data.to_bytes()));
        }
        Ok(all)
    }

    /// `body` in pieces of `size` bytes (the last shorter).
    fn pieces(body: &[u8], size: usize) -> Rope {
        Rope::from_chunks(body.chunks(size).map(Bytes::copy_from_slice).collect())
    }

    async fn by_multer(body: &[u8]) -> Read {
        let mut mp = over(Bytes::copy_from_slice(body), "b".into());
        let mut all = Vec::new();
        while let Some(f) = mp.next_field().await.map_err(|e| e.to_string())? {
            let head = (
                f.name().map(str::to_owned),
                f.file_name().map(str::to_owned),
                f.content_type().map(ToString::to_string),
            );
            let data = field_data(f).await.map_err(|e| e.to_string())?;
            all.push((head.0, head.1, head.2, data));
        }
        Ok(all)
    }

    /// The same parts and error as multer, over the body in one buffer and in pieces of
    /// every size up to 7 bytes (a boundary, a head's blank line or a padding split
    /// between frames).
    fn same(body: &[u8]) {
        let (ours, theirs) = block(async { (by_parts(body).await, by_multer(body).await) });
        assert_eq!(ours, theirs, "body {:?}", String::from_utf8_lossy(body));
        for size in 1..=7 {
            let cut = block(parts_of(pieces(body, size)));
            assert_eq!(
                cut,
                theirs,
                "pieces of {size}, body {:?}",
                String::from_utf8_lossy(body)
            );
        }
    }

    const CD: &str = "content-disposition: form-data; name=\"model\"";

    #[test]
    fn the_same_parts_and_errors_as_multer() {
        let file = "content-disposition: form-data; name=\"file\"; filename=\"a \\\"b\\\".wav\"\r\ncontent-type: audio/wav; rate=16000";
        let bodies = [
            format!("--b\r\n{CD}\r\n\r\nwhisper-1\r\n--b\r\n{file}\r\n\r\nRIFF\r\n--\r\n--b--\r\n"),
            format!("preamble\r\n--b \t \r\n{CD}\r\n\r\nx\r\n--b--tail after the end"),
            format!("--b\r\n{CD}\r\n\r\n\r\n--b--"),
            format!("--b\r\n{CD}\r\n\r\nno closing boundary"),
            format!("--b\r\n{CD}\r\n\r\n"),
            format!("--b\r\n{CD}\r\n\r\nx\r\n--b"),
            format!("--b\r\n{CD}\r\n\r\nx\r\n--b-"),
            format!("--b\r\n{CD}\r\n\r\nx\r\n--bb\r\n{CD}\r\n\r\ny\r\n--b--"),
            format!("--b\r\n{CD}\r\nno blank line"),
            format!("--b\r\n{CD}\r\nbad header\r\n\r\nx\r\n--b--"),
            format!("--b\r\n{CD}\r\ncontent-type: not a type\r\n\r\nx\r\n--b--"),
            "--b\r\ncontent-disposition: form-data; name=unquoted; filename=f.wav\r\n\r\nx\r\n--b--".into(),
            "--b\r\nx-other: 1\r\n\r\nno name\r\n--b--".into(),
            "--bX\r\n\r\n".into(),
            "--b   ".into(),
            "--b".into(),
            "no boundary at all".into(),
            String::new(),
        ];
        for body in &bodies {
            same(body.as_bytes());
        }
        same(b"--b\r\ncontent-disposition: form-data; name=\"f\"\r\nx-bin: \xff\r\n\r\n\x00\xff\r\n--b--");
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]
        #[test]
        fn the_same_as_multer_on_pieces_of_bodies(pieces in prop::collection::vec(0usize..12, 0..24)) {
            const PIECES: [&str; 12] = [
                "--b", "\r\n", "\r\n\r\n", CD, "; filename=\"f.wav\"", " ", "\t", "a",
                "-", "\r\ncontent-type: audio/wav", ":", "--",
            ];
            let body: String = pieces.iter().map(|&i| PIECES[i]).collect();
            same(body.as_bytes());
        }
    }
}
