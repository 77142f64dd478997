//! The mock's parsers of untrusted request input, as public entry points for fuzzing
//! (`fuzz/`) and regression tests. Each is the function the handlers call, not a copy.

use bytes::Bytes;

pub use crate::routes::images::parse_size;
pub use crate::routes::token_api::parse_update_body;

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

/// Reads a `multipart/form-data` body as the audio and video routes do: the boundary from
/// `content_type`, then every field with its bytes. The error is the mock's message.
pub async fn read_multipart(
    content_type: &str,
    body: Bytes,
) -> Result<Vec<MultipartField>, String> {
    let boundary = multer::parse_boundary(content_type)
        .map_err(|_| "expected a multipart/form-data body".to_owned())?;
    let mut mp = crate::routes::ctx::multipart_over(body, boundary);
    let bad = |e: multer::Error| format!("bad multipart body: {e}");
    let mut fields = Vec::new();
    while let Some(field) = mp.next_field().await.map_err(bad)? {
        let name = field.name().unwrap_or("").to_owned();
        let file_name = field.file_name().map(str::to_owned);
        let data = field.bytes().await.map_err(bad)?;
        fields.push(MultipartField {
            name,
            file_name,
            data,
        });
    }
    Ok(fields)
}
