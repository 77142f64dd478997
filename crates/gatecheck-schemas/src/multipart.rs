//! `multipart/form-data` request bodies as the service reads them (feature `multipart`): the
//! audio and video routes of the mock read their uploads with [`over`], and the fuzz target
//! `multipart` drives [`read`], which reads every field the same way.

use bytes::Bytes;

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
/// let mut mp = gatecheck_schemas::multipart::over(body, "b".into());
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
/// let mut mp = gatecheck_schemas::multipart::over(body, "b".into());
/// let field = mp.next_field().await.unwrap().unwrap();
/// let data = gatecheck_schemas::multipart::field_data(field).await.unwrap();
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

/// Reads a whole `multipart/form-data` body: the boundary from `content_type`, then every
/// field with its bytes. The error is the message the mock answers with.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// use gatecheck_schemas::multipart::read;
/// let body = b"--b\r\ncontent-disposition: form-data; name=\"model\"\r\n\r\nwhisper-1\r\n--b--\r\n";
/// let fields = read("multipart/form-data; boundary=b", body.to_vec().into()).await.unwrap();
/// assert_eq!((fields[0].name.as_str(), &fields[0].data[..]), ("model", &b"whisper-1"[..]));
/// assert!(read("application/json", body.to_vec().into()).await.is_err());
/// # });
/// ```
pub async fn read(content_type: &str, body: Bytes) -> Result<Vec<MultipartField>, String> {
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
