//! The route table: every operation the service serves, by method and OpenAPI path template.
//!
//! It is the one list both sides read: [`crate::openapi()`] documents exactly these operations,
//! and the mock resolves each request with [`find_route`] before any handler runs, answering
//! 404 for a method and path that is not here. So a route cannot be served without being
//! documented, and the document cannot list a route the mock does not serve.
//!
//! Matching is by segment: a `{name}` segment matches one non-empty segment, a `{name}.png`
//! segment one that ends in `.png`; empty segments (a trailing or doubled `/`) are ignored, as
//! the mock's handlers ignore them. The mock's control API (`/__mock/*`) and CORS preflights
//! are the mock's own and are not part of the service contract.

/// One served operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Route {
    /// The HTTP method, upper case (`GET`, `POST`, ...).
    pub method: &'static str,
    /// The OpenAPI path template (`/v1/videos/{task_id}`).
    pub path: &'static str,
    /// The OpenAPI `operationId`.
    pub operation_id: &'static str,
}

const fn route(method: &'static str, path: &'static str, operation_id: &'static str) -> Route {
    Route {
        method,
        path,
        operation_id,
    }
}

/// Every operation of the service, in the document's order.
pub const ROUTES: &[Route] = &[
    route("POST", "/v1/audio/translations", "createTranslation"),
    route("POST", "/v1/audio/transcriptions", "createTranscription"),
    route("POST", "/v1/audio/speech", "createSpeech"),
    route("POST", "/v1/videos", "createVideo"),
    route("GET", "/v1/videos", "listVideos"),
    route("GET", "/v1/videos/{task_id}", "getVideo"),
    route("DELETE", "/v1/videos/{task_id}", "deleteVideo"),
    route("GET", "/v1/videos/{task_id}/content", "getVideoContent"),
    route("POST", "/v1/images/generations", "createImage"),
    route("GET", "/v1/models", "listKeyModels"),
    route("GET", "/v1/models/{model}", "getKeyModel"),
    route("GET", "/api/models", "listModels"),
    route("GET", "/api/usage/token", "getTokenUsage"),
    route("PUT", "/api/token/", "updateToken"),
    route("GET", "/api/token/", "listTokens"),
    route("POST", "/api/token/", "createToken"),
    route("GET", "/api/token/{id}", "getToken"),
    route("DELETE", "/api/token/{id}", "deleteToken"),
    route("POST", "/api/token/{id}/key", "getTokenKey"),
    route("GET", "/media/images/{file}.png", "getMediaImage"),
    route("HEAD", "/media/images/{file}.png", "headMediaImage"),
    route("GET", "/health", "getHealth"),
    route("GET", "/", "getRoot"),
];

/// The table entry serving `method` and `path` (a request path, no query), if any.
///
/// ```
/// use gatecheck_schemas::routes::find_route;
/// assert_eq!(find_route("GET", "/v1/videos/video_1/content").unwrap().operation_id, "getVideoContent");
/// assert_eq!(find_route("GET", "/api/token").unwrap().operation_id, "listTokens");
/// assert!(find_route("PATCH", "/v1/videos").is_none());
/// assert!(find_route("GET", "/v1/chat/completions").is_none());
/// ```
pub fn find_route(method: &str, path: &str) -> Option<&'static Route> {
    // The same answer as `find_in(ROUTES, ..)` (a test compares them), with the path split
    // once and the templates split once per process: this runs on every request the mock
    // serves.
    let mut segments = [""; MAX_SEGMENTS];
    let mut n = 0;
    for segment in segments_of(path) {
        // More segments than any template has: nothing matches.
        let slot = segments.get_mut(n)?;
        *slot = segment;
        n += 1;
    }
    let segments = &segments[..n];
    compiled()
        .iter()
        .find(|c| {
            c.template.len() == n
                && c.route.method.eq_ignore_ascii_case(method)
                && c.template
                    .iter()
                    .zip(segments)
                    .all(|(w, g)| segment_matches(w, g))
        })
        .map(|c| c.route)
}

/// More path segments than any template of [`ROUTES`] has (a test checks it).
const MAX_SEGMENTS: usize = 8;

/// A route with its template split into its non-empty segments.
struct Compiled {
    route: &'static Route,
    template: Vec<&'static str>,
}

fn compiled() -> &'static [Compiled] {
    static TABLE: std::sync::LazyLock<Vec<Compiled>> = std::sync::LazyLock::new(|| {
        ROUTES
            .iter()
            .map(|route| Compiled {
                route,
                template: segments_of(route.path).collect(),
            })
            .collect()
    });
    &TABLE
}

/// The methods the table serves at `path` (empty for a path it does not know): the `Allow`
/// header of a 405 answer.
///
/// ```
/// use gatecheck_schemas::routes::allowed_methods;
/// assert_eq!(allowed_methods("/v1/videos/v1"), ["GET", "DELETE"]);
/// assert!(allowed_methods("/v1/nothing").is_empty());
/// ```
pub fn allowed_methods(path: &str) -> Vec<&'static str> {
    ROUTES
        .iter()
        .filter(|r| path_matches(r.path, path))
        .map(|r| r.method)
        .collect()
}

/// The status of a known path asked with a method the table does not serve there, in the
/// documented profile (with an `Allow` header); new-api's router answers 404.
pub const METHOD_NOT_ALLOWED: u16 = 405;

/// [`find_route`] over another table (for tests of the matcher).
pub fn find_in<'t>(table: &'t [Route], method: &str, path: &str) -> Option<&'t Route> {
    table
        .iter()
        .find(|r| r.method.eq_ignore_ascii_case(method) && path_matches(r.path, path))
}

/// Whether a request path matches an OpenAPI path template (see the module docs).
///
/// ```
/// use gatecheck_schemas::routes::path_matches;
/// assert!(path_matches("/media/images/{file}.png", "/media/images/ab_8x8.png"));
/// assert!(!path_matches("/media/images/{file}.png", "/media/images/ab_8x8.jpg"));
/// assert!(path_matches("/api/token/", "/api/token"));
/// assert!(!path_matches("/v1/videos/{task_id}", "/v1/videos"));
/// ```
pub fn path_matches(template: &str, path: &str) -> bool {
    let mut want = segments_of(template);
    let mut got = segments_of(path);
    loop {
        match (want.next(), got.next()) {
            (None, None) => return true,
            (Some(w), Some(g)) if segment_matches(w, g) => {}
            _ => return false,
        }
    }
}

/// The segments of a path or template: empty ones (a trailing or doubled `/`) are ignored.
fn segments_of(path: &str) -> impl Iterator<Item = &str> {
    path.split('/').filter(|s| !s.is_empty())
}

fn segment_matches(template: &str, segment: &str) -> bool {
    match template.strip_prefix('{') {
        None => template == segment,
        Some(rest) => {
            // `{name}` plus an optional literal suffix (`{file}.png`).
            let suffix = rest.split_once('}').map_or("", |(_, s)| s);
            segment.len() > suffix.len() && segment.ends_with(suffix)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_operation_id_and_route_is_unique() {
        for (i, a) in ROUTES.iter().enumerate() {
            for b in &ROUTES[i + 1..] {
                assert_ne!(a.operation_id, b.operation_id);
                assert!(!(a.method == b.method && a.path == b.path), "{a:?}");
            }
        }
    }

    #[test]
    fn a_route_outside_the_table_is_not_found() {
        let fake = [route("GET", "/v1/undocumented", "undocumented")];
        assert!(find_in(&fake, "GET", "/v1/undocumented").is_some());
        assert!(find_route("GET", "/v1/undocumented").is_none());
        assert!(find_route("POST", "/v1/models").is_none());
        assert!(find_route("GET", "/v1/videos/a/b/c").is_none());
        assert!(find_route("GET", "/media/images/.png").is_none());
    }

    #[test]
    fn parameters_match_one_segment() {
        let r = find_route("DELETE", "/v1/videos/video_abc/").unwrap();
        assert_eq!(r.operation_id, "deleteVideo");
        assert_eq!(
            find_route("post", "/api/token/7/key").unwrap().operation_id,
            "getTokenKey"
        );
        assert_eq!(find_route("GET", "/").unwrap().operation_id, "getRoot");
    }

    #[test]
    fn no_template_has_more_segments_than_the_fast_lookup_holds() {
        for c in compiled() {
            assert!(c.template.len() < MAX_SEGMENTS, "{:?}", c.route);
        }
    }

    /// Paths built from the templates' own segments, parameters, empty segments and others:
    /// the fast lookup answers as the plain scan of the table does.
    #[test]
    fn the_fast_lookup_agrees_with_the_table_scan() {
        let words = [
            "",
            "v1",
            "api",
            "media",
            "images",
            "videos",
            "video_1",
            "content",
            "token",
            "7",
            "key",
            "models",
            "tts-1",
            "a.png",
            ".png",
            "health",
            "usage",
            "audio",
            "speech",
            "generations",
            "x",
        ];
        let methods = ["GET", "get", "POST", "PUT", "DELETE", "HEAD", "PATCH"];
        let mut paths = vec![String::new(), "/".to_owned(), "//".to_owned()];
        for r in ROUTES {
            paths.push(r.path.replace(['{', '}'], ""));
            paths.push(format!("{}/", r.path));
        }
        for a in words {
            for b in words {
                paths.push(format!("/{a}/{b}"));
                for c in ["", "x", "content", "key", "a.png"] {
                    paths.push(format!("/{a}/{b}/{c}"));
                    paths.push(format!("/{a}/{b}/{c}/x/x/x/x/x/x"));
                }
            }
        }
        for p in &paths {
            for m in methods {
                assert_eq!(find_route(m, p), find_in(ROUTES, m, p), "{m} {p}");
            }
        }
    }
}
