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
    route("POST", "/v1/videos/{video_id}/remix", "remixVideo"),
    route("POST", "/v1/video/generations", "createVideoGeneration"),
    route(
        "GET",
        "/v1/video/generations/{task_id}",
        "getVideoGeneration",
    ),
    route(
        "POST",
        "/kling/v1/videos/text2video",
        "createKlingText2Video",
    ),
    route(
        "POST",
        "/kling/v1/videos/image2video",
        "createKlingImage2Video",
    ),
    route(
        "GET",
        "/kling/v1/videos/text2video/{task_id}",
        "getKlingText2Video",
    ),
    route(
        "GET",
        "/kling/v1/videos/image2video/{task_id}",
        "getKlingImage2Video",
    ),
    route("POST", "/jimeng/", "jimengAction"),
    route("POST", "/v1/images/generations", "createImage"),
    route("POST", "/v1/images/edits", "createImageEdit"),
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
    route("GET", "/media/edits/{file}.png", "getMediaEdit"),
    route("POST", "/mj/submit/imagine", "mjSubmitImagine"),
    route("POST", "/mj/submit/change", "mjSubmitChange"),
    route("POST", "/mj/submit/simple-change", "mjSubmitSimpleChange"),
    route("POST", "/mj/submit/action", "mjSubmitAction"),
    route("POST", "/mj/submit/modal", "mjSubmitModal"),
    route("POST", "/mj/submit/describe", "mjSubmitDescribe"),
    route("POST", "/mj/submit/blend", "mjSubmitBlend"),
    route("POST", "/mj/submit/shorten", "mjSubmitShorten"),
    route("POST", "/mj/submit/edits", "mjSubmitEdits"),
    route("POST", "/mj/submit/video", "mjSubmitVideo"),
    route(
        "POST",
        "/mj/submit/upload-discord-images",
        "mjSubmitUploadDiscordImages",
    ),
    route("POST", "/mj/insight-face/swap", "mjInsightFaceSwap"),
    route("POST", "/mj/task/list-by-condition", "mjListByCondition"),
    route("GET", "/mj/task/{id}/fetch", "mjFetchTask"),
    route("GET", "/mj/task/{id}/image-seed", "mjImageSeed"),
    route("GET", "/mj/image/{id}", "mjImage"),
    route("POST", "/{mode}/mj/submit/imagine", "mjModeSubmitImagine"),
    route("POST", "/{mode}/mj/submit/change", "mjModeSubmitChange"),
    route(
        "POST",
        "/{mode}/mj/submit/simple-change",
        "mjModeSubmitSimpleChange",
    ),
    route("POST", "/{mode}/mj/submit/action", "mjModeSubmitAction"),
    route("POST", "/{mode}/mj/submit/modal", "mjModeSubmitModal"),
    route("POST", "/{mode}/mj/submit/describe", "mjModeSubmitDescribe"),
    route("POST", "/{mode}/mj/submit/blend", "mjModeSubmitBlend"),
    route("POST", "/{mode}/mj/submit/shorten", "mjModeSubmitShorten"),
    route("POST", "/{mode}/mj/submit/edits", "mjModeSubmitEdits"),
    route("POST", "/{mode}/mj/submit/video", "mjModeSubmitVideo"),
    route(
        "POST",
        "/{mode}/mj/submit/upload-discord-images",
        "mjModeSubmitUploadDiscordImages",
    ),
    route(
        "POST",
        "/{mode}/mj/insight-face/swap",
        "mjModeInsightFaceSwap",
    ),
    route(
        "POST",
        "/{mode}/mj/task/list-by-condition",
        "mjModeListByCondition",
    ),
    route("GET", "/{mode}/mj/task/{id}/fetch", "mjModeFetchTask"),
    route("GET", "/{mode}/mj/task/{id}/image-seed", "mjModeImageSeed"),
    route("GET", "/{mode}/mj/image/{id}", "mjModeImage"),
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
    // once, and the templates split and grouped by their number of segments once per
    // process: this runs on every request the mock serves.
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
        .get(n)?
        .iter()
        .find(|c| {
            c.route.method.eq_ignore_ascii_case(method)
                && c.template
                    .iter()
                    .zip(segments)
                    .all(|(part, got)| part.matches(got))
        })
        .map(|c| c.route)
}

/// More path segments than any template of [`ROUTES`] has (a test checks it).
const MAX_SEGMENTS: usize = 8;

/// A route with its template split into its non-empty segments.
struct Compiled {
    route: &'static Route,
    template: Vec<Part<'static>>,
}

/// The routes whose templates have `n` segments at index `n`, in table order.
fn compiled() -> &'static [Vec<Compiled>] {
    static TABLE: std::sync::LazyLock<Vec<Vec<Compiled>>> = std::sync::LazyLock::new(|| {
        let mut by_len: Vec<Vec<Compiled>> = (0..MAX_SEGMENTS).map(|_| Vec::new()).collect();
        for route in ROUTES {
            let template: Vec<Part<'static>> = segments_of(route.path).map(Part::of).collect();
            if let Some(group) = by_len.get_mut(template.len()) {
                group.push(Compiled { route, template });
            }
        }
        by_len
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

/// Operations of [`ROUTES`] that new-api does not route (QuantumNous/new-api
/// router/video-router.go registers no video list and no video delete): in the `new-api`
/// profile they get new-api's not-found answer ([`crate::rules::route`], DECISIONS D-ROUTE-2).
pub const NOT_IN_NEW_API: &[(&str, &str)] =
    &[("GET", "/v1/videos"), ("DELETE", "/v1/videos/{task_id}")];

/// Whether `profile` serves `route` (every route but [`NOT_IN_NEW_API`] in `new-api`).
///
/// ```
/// use gatecheck_schemas::{routes::{find_route, served_in}, Profile};
/// let list = find_route("GET", "/v1/videos").unwrap();
/// assert!(served_in(Profile::Documented, list));
/// assert!(!served_in(Profile::NewApi, list));
/// ```
pub fn served_in(profile: crate::Profile, route: &Route) -> bool {
    profile != crate::Profile::NewApi
        || !NOT_IN_NEW_API
            .iter()
            .any(|(m, p)| *m == route.method && *p == route.path)
}

/// [`find_route`] in `profile`: `None` also for a route the profile does not serve.
///
/// ```
/// use gatecheck_schemas::{routes::find_route_in, Profile};
/// assert!(find_route_in(Profile::NewApi, "DELETE", "/v1/videos/task_1").is_none());
/// assert!(find_route_in(Profile::NewApi, "GET", "/v1/videos/task_1").is_some());
/// ```
pub fn find_route_in(profile: crate::Profile, method: &str, path: &str) -> Option<&'static Route> {
    find_route(method, path).filter(|r| served_in(profile, r))
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
            (Some(w), Some(g)) if Part::of(w).matches(g) => {}
            _ => return false,
        }
    }
}

/// The segments of a path or template: empty ones (a trailing or doubled `/`) are ignored.
///
/// ```
/// use gatecheck_schemas::routes::segments_of;
/// assert!(segments_of("//v1/videos/").eq(["v1", "videos"]));
/// assert_eq!(segments_of("/").next(), None);
/// ```
pub fn segments_of(path: &str) -> Segments<'_> {
    Segments { rest: path }
}

/// The iterator of [`segments_of`]: a scan for `/` eight bytes at a time (this runs on every
/// request the mock serves).
#[derive(Debug, Clone)]
pub struct Segments<'a> {
    rest: &'a str,
}

impl<'a> Iterator for Segments<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let bytes = self.rest.as_bytes();
        let start = bytes.iter().position(|&b| b != b'/')?;
        let end = crate::scan::find_byte(&bytes[start..], b'/').map_or(bytes.len(), |i| start + i);
        // `start` and `end` are at `/` or the ends: ASCII boundaries.
        let segment = self.rest.get(start..end)?;
        self.rest = self.rest.get(end..).unwrap_or("");
        Some(segment)
    }
}

/// One segment of a template: a literal, or a `{name}` parameter with an optional literal
/// suffix (`{file}.png`).
#[derive(Debug, Clone, Copy)]
enum Part<'t> {
    Literal(&'t str),
    Param { suffix: &'t str },
}

impl<'t> Part<'t> {
    fn of(template: &'t str) -> Self {
        match template.strip_prefix('{') {
            None => Part::Literal(template),
            Some(rest) => Part::Param {
                suffix: rest.split_once('}').map_or("", |(_, s)| s),
            },
        }
    }

    /// A parameter matches one segment longer than its suffix that ends with it.
    fn matches(self, segment: &str) -> bool {
        match self {
            Part::Literal(l) => l == segment,
            Part::Param { suffix } => segment.len() > suffix.len() && segment.ends_with(suffix),
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
        for r in ROUTES {
            assert!(segments_of(r.path).count() < MAX_SEGMENTS, "{r:?}");
        }
        let grouped: usize = compiled().iter().map(Vec::len).sum();
        assert_eq!(grouped, ROUTES.len());
    }

    proptest::proptest! {
        /// The byte scan splits as `str::split` with empty segments dropped.
        #[test]
        fn segments_split_as_str_split_does(path in "[/a-z.{}é]{0,24}") {
            let oracle: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
            proptest::prop_assert_eq!(segments_of(&path).collect::<Vec<_>>(), oracle);
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
