//! A request the runner means to send: method, path, auth, headers and body, and its curl
//! reproduction with secrets redacted.

use crate::http::target::Target;
use crate::redact::{Redactor, Secret};
use bytes::Bytes;
use http::Method;
use serde_json::Value;

/// How a request authenticates.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Auth {
    /// No `Authorization` header.
    #[default]
    None,
    /// `Authorization: Bearer <the target's API key>`.
    ApiKey,
    /// `Authorization: Bearer <this key>` (a scratch or fixture key).
    Key(Secret),
    /// `Authorization: <the target's access token>` (raw) and `New-Api-User` when known.
    AccessToken,
    /// This exact `Authorization` value (wrong schemes, wrong keys); `None` value omits the
    /// header but still sends `New-Api-User` for access-token routes.
    Raw(Secret),
}

/// One part of a multipart body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    /// Field name.
    pub name: String,
    /// File name, for file parts.
    pub filename: Option<String>,
    /// Content type, for file parts.
    pub content_type: Option<String>,
    /// The bytes.
    pub data: Bytes,
}

impl Part {
    /// A text field.
    pub fn text(name: &str, value: impl Into<String>) -> Self {
        Self {
            name: name.to_owned(),
            filename: None,
            content_type: None,
            data: Bytes::from(value.into()),
        }
    }

    /// A file field.
    pub fn file(name: &str, filename: &str, content_type: &str, data: impl Into<Bytes>) -> Self {
        Self {
            name: name.to_owned(),
            filename: Some(filename.to_owned()),
            content_type: Some(content_type.to_owned()),
            data: data.into(),
        }
    }
}

/// A request body.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Body {
    /// No body.
    #[default]
    Empty,
    /// `application/json`.
    Json(Value),
    /// `application/x-www-form-urlencoded`.
    Form(Vec<(String, String)>),
    /// `multipart/form-data`.
    Multipart(Vec<Part>),
    /// Any bytes with a content type.
    Raw {
        /// The `Content-Type` header.
        content_type: String,
        /// The bytes.
        bytes: Bytes,
    },
}

/// The boundary of generated multipart bodies.
pub const MULTIPART_BOUNDARY: &str = "gatecheck-boundary-7f3a9c2e1b";

impl Body {
    /// The content type and encoded bytes of the body.
    pub fn encode(&self) -> (Option<String>, Bytes) {
        match self {
            Body::Empty => (None, Bytes::new()),
            Body::Json(v) => (
                Some("application/json".into()),
                Bytes::from(serde_json::to_vec(v).unwrap_or_default()),
            ),
            Body::Form(fields) => {
                let mut ser = url::form_urlencoded::Serializer::new(String::new());
                for (k, v) in fields {
                    ser.append_pair(k, v);
                }
                (
                    Some("application/x-www-form-urlencoded".into()),
                    Bytes::from(ser.finish()),
                )
            }
            Body::Multipart(parts) => {
                let mut out = Vec::new();
                for p in parts {
                    out.extend_from_slice(format!("--{MULTIPART_BOUNDARY}\r\n").as_bytes());
                    let name = p.name.replace('"', "%22");
                    match &p.filename {
                        Some(f) => out.extend_from_slice(
                            format!(
                                "Content-Disposition: form-data; name=\"{name}\"; filename=\"{}\"\r\n",
                                f.replace('"', "%22")
                            )
                            .as_bytes(),
                        ),
                        None => out.extend_from_slice(
                            format!("Content-Disposition: form-data; name=\"{name}\"\r\n")
                                .as_bytes(),
                        ),
                    }
                    if let Some(ct) = &p.content_type {
                        out.extend_from_slice(format!("Content-Type: {ct}\r\n").as_bytes());
                    }
                    out.extend_from_slice(b"\r\n");
                    out.extend_from_slice(&p.data);
                    out.extend_from_slice(b"\r\n");
                }
                out.extend_from_slice(format!("--{MULTIPART_BOUNDARY}--\r\n").as_bytes());
                (
                    Some(format!(
                        "multipart/form-data; boundary={MULTIPART_BOUNDARY}"
                    )),
                    Bytes::from(out),
                )
            }
            Body::Raw {
                content_type,
                bytes,
            } => (Some(content_type.clone()), bytes.clone()),
        }
    }
}

/// One request the runner means to send.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestSpec {
    /// Method.
    pub method: Method,
    /// Path and query, relative to the base URL (`/v1/videos?x=1`), or an absolute URL on the
    /// target's host.
    pub path: String,
    /// How it authenticates.
    pub auth: Auth,
    /// Extra headers (non-secret).
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Body,
}

impl RequestSpec {
    /// A request with no body and no auth.
    pub fn new(method: Method, path: impl Into<String>) -> Self {
        Self {
            method,
            path: path.into(),
            auth: Auth::None,
            headers: Vec::new(),
            body: Body::Empty,
        }
    }

    /// `GET path`.
    pub fn get(path: impl Into<String>) -> Self {
        Self::new(Method::GET, path)
    }

    /// `POST path`.
    pub fn post(path: impl Into<String>) -> Self {
        Self::new(Method::POST, path)
    }

    /// `PUT path`.
    pub fn put(path: impl Into<String>) -> Self {
        Self::new(Method::PUT, path)
    }

    /// `DELETE path`.
    pub fn delete(path: impl Into<String>) -> Self {
        Self::new(Method::DELETE, path)
    }

    /// Sets the auth.
    pub fn auth(mut self, auth: Auth) -> Self {
        self.auth = auth;
        self
    }

    /// Adds a header.
    pub fn header(mut self, name: &str, value: impl Into<String>) -> Self {
        self.headers.push((name.to_owned(), value.into()));
        self
    }

    /// Sets a JSON body.
    pub fn json(mut self, value: Value) -> Self {
        self.body = Body::Json(value);
        self
    }

    /// Sets a urlencoded form body.
    pub fn form(mut self, fields: Vec<(String, String)>) -> Self {
        self.body = Body::Form(fields);
        self
    }

    /// Sets a multipart body.
    pub fn multipart(mut self, parts: Vec<Part>) -> Self {
        self.body = Body::Multipart(parts);
        self
    }

    /// The files of a multipart body, as its curl names them under `$GATECHECK_UPLOADS`.
    pub fn uploads(&self) -> Vec<crate::evidence::Upload> {
        match &self.body {
            Body::Multipart(parts) => parts
                .iter()
                .filter_map(|p| {
                    upload_name(p).map(|name| crate::evidence::Upload {
                        name,
                        bytes: p.data.clone(),
                    })
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    /// A one-line summary: `PUT /api/token/`.
    pub fn summary(&self) -> String {
        format!("{} {}", self.method, self.path)
    }

    /// A curl command that reproduces the request, with secrets shown as shell variables
    /// (`$GATECHECK_API_KEY`, `$GATECHECK_ACCESS_TOKEN`) or redacted.
    pub fn to_curl(&self, target: &Target, redactor: &Redactor) -> String {
        let url = if self.path.starts_with("http://") || self.path.starts_with("https://") {
            self.path.clone()
        } else {
            target.url(&self.path)
        };
        let mut cmd = format!("curl -sS -X {} {}", self.method, shell_quote(&url));
        match &self.auth {
            Auth::None => {}
            Auth::ApiKey => cmd.push_str(" -H \"Authorization: Bearer $GATECHECK_API_KEY\""),
            Auth::Key(_) => cmd.push_str(" -H \"Authorization: Bearer $GATECHECK_SCRATCH_KEY\""),
            Auth::AccessToken => {
                cmd.push_str(" -H \"Authorization: $GATECHECK_ACCESS_TOKEN\"");
                if let Some(u) = target.user_id {
                    cmd.push_str(&format!(" -H 'New-Api-User: {u}'"));
                }
            }
            Auth::Raw(v) => {
                let header = format!("Authorization: {}", v.expose());
                cmd.push_str(" -H ");
                cmd.push_str(&with_variables(&header, target, redactor));
                if let Some(u) = target.user_id {
                    cmd.push_str(&format!(" -H 'New-Api-User: {u}'"));
                }
            }
        }
        for (k, v) in &self.headers {
            cmd.push_str(&format!(
                " -H {}",
                shell_quote(&redactor.text(&format!("{k}: {v}")))
            ));
        }
        for (i, (k, _)) in target.headers.iter().enumerate() {
            if !self.headers.iter().any(|(h, _)| h.eq_ignore_ascii_case(k)) {
                cmd.push_str(&format!(" -H \"{k}: $GATECHECK_HEADER_{}\"", i + 1));
            }
        }
        match &self.body {
            Body::Empty => {}
            Body::Json(v) => {
                cmd.push_str(" -H 'Content-Type: application/json' --data-binary ");
                cmd.push_str(&shell_quote(&redactor.json(v).to_string()));
            }
            Body::Form(fields) => {
                for (k, v) in fields {
                    cmd.push_str(" --data-urlencode ");
                    cmd.push_str(&shell_quote(&redactor.text(&format!("{k}={v}"))));
                }
            }
            Body::Multipart(parts) => {
                for p in parts {
                    cmd.push_str(" -F ");
                    cmd.push_str(&form_arg(p, redactor));
                }
            }
            Body::Raw {
                content_type,
                bytes,
            } => {
                cmd.push_str(&format!(
                    " -H {} --data-binary ",
                    shell_quote(&format!("Content-Type: {content_type}"))
                ));
                match std::str::from_utf8(bytes) {
                    Ok(s) if bytes.len() <= 4096 => cmd.push_str(&shell_quote(&redactor.text(s))),
                    _ => cmd.push_str(&format!("@body.bin  # {} bytes", bytes.len())),
                }
            }
        }
        // Once more as a whole: the URL (a query may hold a key) and any form the parts above
        // did not see whole.
        redactor.text(&cmd)
    }
}

/// The file name a repro gives a file part under `$GATECHECK_UPLOADS`: the hash of its bytes
/// (two parts with the same name and other bytes stay apart), then its name made safe for a
/// shell and a file system. `None` for a text field.
pub fn upload_name(p: &Part) -> Option<String> {
    let f = p.filename.as_deref()?;
    let safe: String = f
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let safe = safe.trim_start_matches('.');
    let hash = gatecheck_schemas::rules::media::fnv1a(&p.data);
    Some(format!(
        "{hash:016x}-{}",
        if safe.is_empty() { "file" } else { safe }
    ))
}

/// One `-F` argument: a text field quoted as it is; a file part as
/// `"file=@$GATECHECK_UPLOADS/<upload name>;type=audio/wav"` (the variable expands), so the
/// repro sends the very bytes the check sent. A name or type holding anything but plain
/// characters is single-quoted beside the variable instead.
fn form_arg(p: &Part, redactor: &Redactor) -> String {
    let Some(file) = upload_name(p) else {
        let text = format!("{}={}", p.name, String::from_utf8_lossy(&p.data));
        return shell_quote(&redactor.text(&text));
    };
    let name = redactor.text(&p.name);
    let ct = p
        .content_type
        .as_ref()
        .map(|c| redactor.text(&format!(";type={c}")))
        .unwrap_or_default();
    let plain = |s: &str| {
        s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./+;=[]".contains(c))
    };
    if plain(&name) && plain(&ct) {
        return format!("\"{name}=@$GATECHECK_UPLOADS/{file}{ct}\"");
    }
    let ct = if ct.is_empty() { ct } else { shell_quote(&ct) };
    format!("{}\"=@$GATECHECK_UPLOADS/{file}\"{ct}", shell_quote(&name))
}

/// A header as one shell word with the run's credentials as the variables the repro lines
/// name (`"Authorization: Basic ${GATECHECK_API_KEY}"`), so it runs once they are exported;
/// any other secret redacted. Single-quoted when it holds none of them.
fn with_variables(text: &str, target: &Target, redactor: &Redactor) -> String {
    // Each secret with the expansion that gives it back: the key as given, and without its
    // `sk-` when sent bare (`${GATECHECK_API_KEY#sk-}`).
    let mut vars: Vec<(&str, String)> = Vec::new();
    for (secret, name) in [
        (target.api_key.as_ref(), "GATECHECK_API_KEY"),
        (target.access_token.as_ref(), "GATECHECK_ACCESS_TOKEN"),
    ] {
        let Some(secret) = secret.map(|s| s.expose()).filter(|s| !s.is_empty()) else {
            continue;
        };
        vars.push((secret, format!("${{{name}}}")));
        if let Some(bare) = secret.strip_prefix("sk-").filter(|b| !b.is_empty()) {
            vars.push((bare, format!("${{{name}#sk-}}")));
        }
    }
    // Pieces of text, each plain (false) or an expansion (true).
    let mut pieces: Vec<(bool, String)> = vec![(false, text.to_owned())];
    for (secret, expansion) in &vars {
        pieces = pieces
            .into_iter()
            .flat_map(|(var, s)| -> Vec<(bool, String)> {
                if var {
                    return vec![(var, s)];
                }
                let mut out = Vec::new();
                for (i, part) in s.split(secret).enumerate() {
                    if i > 0 {
                        out.push((true, expansion.clone()));
                    }
                    out.push((false, part.to_owned()));
                }
                out
            })
            .collect();
    }
    if !pieces.iter().any(|(var, _)| *var) {
        return shell_quote(&redactor.text(text));
    }
    let mut out = String::from("\"");
    for (var, s) in pieces {
        if var {
            out.push_str(&s);
            continue;
        }
        for c in redactor.text(&s).chars() {
            if matches!(c, '"' | '\\' | '$' | '`') {
                out.push('\\');
            }
            out.push(c);
        }
    }
    out.push('"');
    out
}

/// Quotes a string for a POSIX shell.
pub fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

#[cfg(test)]
mod tests {
    use super::{Auth, Part, RequestSpec};
    use crate::http::target::Target;
    use crate::redact::{Redactor, Secret};

    fn target() -> Target {
        let mut t = Target::new("http://127.0.0.1:3000".parse().expect("url"));
        t.api_key = Some(Secret::new("sk-0123456789abcdef"));
        t.access_token = Some(Secret::new("tok-0123456789"));
        t
    }

    #[test]
    fn a_key_sent_under_another_scheme_is_a_variable_not_redacted() {
        let r = Redactor::new();
        r.add("sk-0123456789abcdef");
        r.add("tok-0123456789");
        let t = target();
        let curl = RequestSpec::get("/v1/models")
            .auth(Auth::Raw(Secret::new("Basic sk-0123456789abcdef")))
            .to_curl(&t, &r);
        assert!(
            curl.contains(r#"-H "Authorization: Basic ${GATECHECK_API_KEY}""#),
            "{curl}"
        );
        let bare = RequestSpec::get("/v1/models")
            .auth(Auth::Raw(Secret::new("bearer 0123456789abcdef")))
            .to_curl(&t, &r);
        assert!(
            bare.contains(r#"-H "Authorization: bearer ${GATECHECK_API_KEY#sk-}""#),
            "{bare}"
        );
        assert!(
            !bare.contains("<redacted>") && !bare.contains("0123456789abcdef"),
            "{bare}"
        );
        // A value that is no credential of the run stays quoted (and redacted if secret).
        let other = RequestSpec::get("/v1/models")
            .auth(Auth::Raw(Secret::new("Bearer $(rm -rf x)")))
            .to_curl(&t, &r);
        assert!(
            other.contains("-H 'Authorization: Bearer $(rm -rf x)'"),
            "{other}"
        );
    }

    #[test]
    fn an_upload_is_named_by_its_bytes_under_the_uploads_variable() {
        let spec = RequestSpec::post("/v1/audio/translations").multipart(vec![
            Part::file("file", "speech.wav", "audio/wav", vec![1u8, 2, 3]),
            Part::text("model", "whisper-1"),
        ]);
        let curl = spec.to_curl(&target(), &Redactor::new());
        let uploads = spec.uploads();
        assert_eq!(uploads.len(), 1);
        assert!(
            uploads[0].name.ends_with("-speech.wav"),
            "{}",
            uploads[0].name
        );
        assert_eq!(uploads[0].bytes.as_ref(), [1u8, 2, 3]);
        assert!(
            curl.contains(&format!(
                r#"-F "file=@$GATECHECK_UPLOADS/{};type=audio/wav""#,
                uploads[0].name
            )),
            "{curl}"
        );
        assert!(curl.contains("-F 'model=whisper-1'"), "{curl}");
    }
}
