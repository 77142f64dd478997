//! Reading a `multipart/form-data` body part by part (transcriptions, translations, image
//! edits): each route keeps the fields it knows.

use super::ctx::Ctx;
use crate::response::{self, MockResponse};
use gatecheck_codecs::multipart::Rope;
use http::Request;
use hyper::body::Incoming;

/// Reads every part of the request's multipart body under the upload limit
/// ([`Ctx::read_multipart`]), in order, handing each one's name, file name and data (in the
/// frames it came in: [`Rope::to_bytes`] joins them) to `set`.
/// A malformed body is a validation failure ([`response::validation`]).
pub(crate) async fn read_form(
    cx: &Ctx,
    req: Request<Incoming>,
    mut set: impl FnMut(&str, Option<String>, Rope),
) -> Result<(), MockResponse> {
    let mut parts = cx.read_multipart(req).await?;
    let bad = |e: multer::Error| {
        response::validation(cx.profile(), &format!("bad multipart body: {e}"), None)
    };
    while let Some(part) = parts.next_part().await.map_err(bad)? {
        let name = part.name.as_deref().unwrap_or("");
        let filename = part.file_name;
        cx.note_part(
            name,
            filename.as_deref(),
            part.content_type.as_deref(),
            &part.data,
        );
        set(name, filename, part.data);
    }
    Ok(())
}

/// A part's data as text (invalid UTF-8 replaced).
pub(crate) fn text(data: &Rope) -> String {
    String::from_utf8_lossy(&data.prefix(data.len())).into_owned()
}
