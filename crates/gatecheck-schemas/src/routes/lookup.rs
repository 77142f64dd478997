//! Resolving a request in the route table ([`super::table`]: `ROUTES` and the plugins' native routes): [`lookup`] splits the path once and matches it against
//! the templates grouped by their number of segments (compiled once per process), answering
//! the route with its path parameters, or the methods the path has; the other finders are thin
//! wrappers over it, and [`path_matches`]/[`find_in`] are the plain scans a test compares it with.

use super::{served_in_named, table, Route};
use crate::{Era, NamedProfile};

/// The answer of [`lookup`]: the route serving a request, or what the table knows of its path.
#[derive(Debug, Clone, Copy)]
pub enum Lookup<'p> {
    /// A route of the table serves the method and path (in the profile asked).
    Found(Found<'p>),
    /// None does: [`Miss::allowed`] are the methods served at the path (empty for an unknown
    /// path), the `Allow` header of a 405.
    Miss(Miss),
}

/// A matched route and the request's path segments, its parameters read from them.
#[derive(Debug, Clone, Copy)]
pub struct Found<'p> {
    /// The row of [`table`](super::table).
    pub route: &'static Route,
    template: &'static [Part<'static>],
    segments: [&'p str; MAX_SEGMENTS],
}

impl<'p> Found<'p> {
    /// The value of the path parameter `name` (`task_id` of `/v1/videos/{task_id}`; `file` of
    /// `{file}.png` without its `.png`), a slice of the request path; empty for a name the
    /// template does not have.
    ///
    /// ```
    /// use gatecheck_schemas::{routes::{lookup, Lookup}, Profile};
    /// let Lookup::Found(found) = lookup(Profile::Documented, "GET", "/media/images/ab_8x8.png") else {
    ///     panic!("served")
    /// };
    /// assert_eq!(found.param("file"), "ab_8x8");
    /// assert_eq!(found.param("task_id"), "");
    /// ```
    pub fn param(&self, name: &str) -> &'p str {
        self.template
            .iter()
            .zip(self.segments)
            .find_map(|(part, got)| match *part {
                Part::Param { name: n, suffix } if n == name => got.strip_suffix(suffix),
                _ => None,
            })
            .unwrap_or("")
    }
}

/// More methods than one path of [`table`](super::table) is served with (a test checks it).
pub(super) const MAX_ALLOWED: usize = 4;

/// A request the table does not serve: the methods it serves at that path.
#[derive(Debug, Clone, Copy, Default)]
pub struct Miss {
    allowed: [&'static str; MAX_ALLOWED],
    len: usize,
}

impl Miss {
    /// The methods the table serves at the path, in table order (empty: an unknown path).
    pub fn allowed(&self) -> &[&'static str] {
        &self.allowed[..self.len]
    }

    fn push(&mut self, method: &'static str) {
        if let Some(slot) = self.allowed.get_mut(self.len) {
            *slot = method;
            self.len += 1;
        }
    }
}

/// Resolves `method` and `path` (a request path, no query) in [`table`](super::table) for `profile`, once:
/// the first row serving both, with the path's parameters, or the methods served at the path.
/// A route the profile does not serve ([`crate::routes::served_in`]) is a miss. Nothing is allocated: this
/// runs on every request the mock serves.
///
/// ```
/// use gatecheck_schemas::{routes::{lookup, Lookup, Op}, Profile};
/// match lookup(Profile::Documented, "DELETE", "/v1/videos/video_1") {
///     Lookup::Found(found) => {
///         assert_eq!(found.route.op, Op::DeleteVideo);
///         assert_eq!(found.param("task_id"), "video_1");
///     }
///     Lookup::Miss(_) => panic!("served"),
/// }
/// let Lookup::Miss(miss) = lookup(Profile::Documented, "PUT", "/v1/videos/video_1") else {
///     panic!("not served")
/// };
/// assert_eq!(miss.allowed(), ["GET", "DELETE"]);
/// ```
pub fn lookup<'p>(profile: crate::Profile, method: &str, path: &'p str) -> Lookup<'p> {
    lookup_named(NamedProfile::new(profile, Era::Adaptors), method, path)
}

/// [`lookup`] for a named profile: the plugin era (`new-api`) also serves the rows only it
/// routes ([`super::ONLY_IN_PLUGIN_ERA`]); [`lookup`] is the adaptor era's.
///
/// ```
/// use gatecheck_schemas::{routes::{lookup_named, Lookup}, NamedProfile};
/// let head = "/v1/videos/video_1/content";
/// assert!(matches!(lookup_named(NamedProfile::NEW_API, "HEAD", head), Lookup::Found(_)));
/// assert!(matches!(lookup_named(NamedProfile::NEW_API_ADAPTORS, "HEAD", head), Lookup::Miss(_)));
/// let Lookup::Miss(miss) = lookup_named(NamedProfile::DOCUMENTED, "HEAD", head) else {
///     panic!("not served")
/// };
/// assert_eq!(miss.allowed(), ["GET"]);
/// ```
pub fn lookup_named<'p>(named: NamedProfile, method: &str, path: &'p str) -> Lookup<'p> {
    // The same answer as a scan of `ROUTES` with `path_matches` (a test compares them), with
    // the path split once, and the templates split and grouped by their number of segments
    // once per process.
    let mut segments = [""; MAX_SEGMENTS];
    let mut n = 0;
    for segment in segments_of(path) {
        // More segments than any template has: nothing matches.
        let Some(slot) = segments.get_mut(n) else {
            return Lookup::Miss(Miss::default());
        };
        *slot = segment;
        n += 1;
    }
    let rows = compiled().get(n).map_or(&[][..], Vec::as_slice);
    let at_path = |c: &Compiled| {
        c.template
            .iter()
            .zip(&segments[..n])
            .all(|(part, got)| part.matches(got))
    };
    // A hit: the first row of this method at this path (the method is compared first: it is
    // the cheap test, and a hit is what every served request is). When that row is not served
    // in this profile, the request is a miss.
    if let Some(c) = rows
        .iter()
        .find(|c| c.route.method.eq_ignore_ascii_case(method) && at_path(c))
        && served_in_named(named, c.route)
    {
        return Lookup::Found(Found {
            route: c.route,
            template: &c.template,
            segments,
        });
    }
    // A miss: the methods served at the path (the `Allow` of a 405).
    let mut miss = Miss::default();
    for c in rows.iter().filter(|c| at_path(c)) {
        if !super::only_in_plugin_era(c.route) || served_in_named(named, c.route) {
            miss.push(c.route.method);
        }
    }
    Lookup::Miss(miss)
}

/// The table entry serving `method` and `path` (a request path, no query), if any: [`lookup`]
/// in the documented profile, which serves every row.
///
/// ```
/// use gatecheck_schemas::routes::find_route;
/// assert_eq!(find_route("GET", "/v1/videos/video_1/content").unwrap().operation_id, "getVideoContent");
/// assert_eq!(find_route("GET", "/api/token").unwrap().operation_id, "listTokens");
/// assert!(find_route("PATCH", "/v1/videos").is_none());
/// assert!(find_route("GET", "/v1/chat/completions").is_none());
/// ```
pub fn find_route(method: &str, path: &str) -> Option<&'static Route> {
    find_route_in(crate::Profile::Documented, method, path)
}

/// More path segments than any template of [`table`](super::table) has (a test checks it).
pub(super) const MAX_SEGMENTS: usize = 8;

/// A route with its template split into its non-empty segments.
pub(super) struct Compiled {
    route: &'static Route,
    template: Vec<Part<'static>>,
}

/// The routes whose templates have `n` segments at index `n`, in table order.
pub(super) fn compiled() -> &'static [Vec<Compiled>] {
    static TABLE: std::sync::LazyLock<Vec<Vec<Compiled>>> = std::sync::LazyLock::new(|| {
        let mut by_len: Vec<Vec<Compiled>> = (0..MAX_SEGMENTS).map(|_| Vec::new()).collect();
        for route in table() {
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
    // No method is empty: the lookup misses, and says which methods are served at `path`.
    match lookup(crate::Profile::Documented, "", path) {
        Lookup::Found(found) => vec![found.route.method],
        Lookup::Miss(miss) => miss.allowed().to_vec(),
    }
}

/// [`find_route`] in `profile`: `None` also for a route the profile does not serve.
///
/// ```
/// use gatecheck_schemas::{routes::find_route_in, Profile};
/// assert!(find_route_in(Profile::NewApi, "DELETE", "/v1/videos/task_1").is_none());
/// assert!(find_route_in(Profile::NewApi, "GET", "/v1/videos/task_1").is_some());
/// ```
pub fn find_route_in(profile: crate::Profile, method: &str, path: &str) -> Option<&'static Route> {
    match lookup(profile, method, path) {
        Lookup::Found(found) => Some(found.route),
        Lookup::Miss(_) => None,
    }
}

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
        let end = gatecheck_codecs::scan::find_byte(&bytes[start..], b'/')
            .map_or(bytes.len(), |i| start + i);
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
    Param { name: &'t str, suffix: &'t str },
}

impl<'t> Part<'t> {
    fn of(template: &'t str) -> Self {
        match template.strip_prefix('{') {
            None => Part::Literal(template),
            Some(rest) => {
                let (name, suffix) = rest.split_once('}').unwrap_or((rest, ""));
                Part::Param { name, suffix }
            }
        }
    }

    /// A parameter matches one segment longer than its suffix that ends with it.
    fn matches(self, segment: &str) -> bool {
        match self {
            Part::Literal(l) => l == segment,
            Part::Param { suffix, .. } => segment.len() > suffix.len() && segment.ends_with(suffix),
        }
    }
}
