//! Reading a `multipart/form-data` body part by part (transcriptions, translations, image
//! edits): each route keeps the fields it knows.

use super::ctx::Ctx;
use crate::response::{self, MockResponse};
use bytes::Bytes;
use http::Request;
use hyper::body::Incoming;

/// Reads every part of the request's multipart body under the upload limit
/// ([`Ctx::read_multipart`]), in order, handing each one's name, file name and data to `set`.
/// A malformed body is a validation failure ([`response::validation`]).
pub(crate) async fn read_form(
    cx: &Ctx,
    req: Request<Incoming>,
    mut set: impl FnMut(&str, Option<String>, Bytes),
) -> Result<(), MockResponse> {
    let mut mp = cx.read_multipart(req).await?;
    let bad = |e: multer::Error| {
        response::validation(cx.profile(), &format!("bad multipart body: {e}"), None)
    };
    while let Some(field) = mp.next_field().await.map_err(bad)? {
        let name = field.name().unwrap_or("").to_owned();
        let filename = field.file_name().map(str::to_owned);
        let content_type = field.content_type().map(ToString::to_string);
        let data = gatecheck_schemas::multipart::field_data(field)
            .await
            .map_err(bad)?;
        cx.note_part(&name, filename.as_deref(), content_type.as_deref(), &data);
        set(&name, filename, data);
    }
    Ok(())
}

/// A part's data as text (invalid UTF-8 replaced).
pub(crate) fn text(data: &[u8]) -> String {
    String::from_utf8_lossy(data).into_owned()
}
