//! The audio bugs: speech and translation answers, upload limits, media validation statuses
//! (`planted_audio.rs`).
use super::*;

/// The request-side bugs of this surface: `Some` answers in the upstream's place.
pub(super) fn request(
    p: &Proxy,
    r: &Req<'_>,
    _parts: &mut http::request::Parts,
    body: &mut Bytes,
) -> Option<Reply> {
    let Req { path, .. } = *r;
    match p.bug {
        Bug::UncheckedTemperature if path.starts_with("/v1/audio/") => {
            let text = String::from_utf8_lossy(body).into_owned();
            let re = regex::Regex::new(r#"name="temperature"\r\n\r\n([^\r]*)\r\n"#).expect("re");
            if let Some(c) = re.captures(&text) {
                let t: f64 = c[1].parse().unwrap_or(0.0);
                if !(0.0..=1.0).contains(&t) {
                    let fixed = text.replace(&c[0], "name=\"temperature\"\r\n\r\n0.5\r\n");
                    *body = Bytes::from(fixed.into_bytes());
                }
            }
        }
        _ => {}
    }
    None
}

/// The response-side bugs of this surface: `Some` answers in the upstream's place.
pub(super) fn respond(
    p: &Proxy,
    a: &Answer<'_>,
    rparts: &mut http::response::Parts,
    rbody: &mut Bytes,
) -> Option<Reply> {
    let Answer { path, status, .. } = *a;
    match p.bug {
        Bug::MediaValidation422
            if status == 400
                && (path.starts_with("/v1/audio/") || path.starts_with("/v1/images/")) =>
        {
            rparts.status = StatusCode::UNPROCESSABLE_ENTITY;
        }
        Bug::Mp3Garbage if path == "/v1/audio/speech" && status == 200 => {
            let mp3 = rparts
                .headers
                .get("content-type")
                .is_some_and(|v| v.as_bytes() == b"audio/mpeg");
            if mp3 {
                *rbody = Bytes::from(vec![0u8; 1024]);
            }
        }
        Bug::UploadLimit400 if status == 413 => {
            rparts.status = StatusCode::BAD_REQUEST;
        }
        Bug::WavGarbage if path == "/v1/audio/speech" && status == 200 => {
            let wav = rparts
                .headers
                .get("content-type")
                .is_some_and(|v| v.as_bytes() == b"audio/wav");
            if wav {
                *rbody = Bytes::from(vec![0u8; 1024]);
            }
        }
        Bug::WrongSpeechContentType if path == "/v1/audio/speech" && status == 200 => {
            rparts.headers.insert(
                "content-type",
                "application/octet-stream".parse().expect("ct"),
            );
        }
        Bug::TextIsJson | Bug::BrokenSrtCue | Bug::NoVttHeader
            if path == "/v1/audio/translations" && status == 200 =>
        {
            let text = String::from_utf8_lossy(rbody).into_owned();
            let is_json = serde_json::from_slice::<Value>(rbody).is_ok();
            let out = match p.bug {
                Bug::TextIsJson if !is_json && !text.contains("-->") => {
                    Some(json!({ "text": text }).to_string())
                }
                Bug::BrokenSrtCue if !text.starts_with("WEBVTT") && text.contains("-->") => {
                    Some(text.replace("-->", "->"))
                }
                Bug::NoVttHeader if text.starts_with("WEBVTT") => {
                    Some(text.replacen("WEBVTT", "", 1))
                }
                _ => None,
            };
            if let Some(out) = out {
                *rbody = Bytes::from(out);
            }
        }
        _ => {}
    }
    None
}
