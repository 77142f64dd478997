//! Body selectors: JSON Pointer (RFC 6901) with wildcards.
//!
//! Syntax, rooted at the response body:
//!
//! - `/data/0/id`: a plain pointer (`~1` is `/`, `~0` is `~` inside a segment).
//! - `*`: any one object key or array index (`/data/*/id`).
//! - `**`: zero or more segments (`**/created_at` matches that field at any depth).
//! - A segment holding `*` among other characters is a glob on key names (`/*_at`).
//! - `""` or `/` selects the root.

use std::fmt;

/// One segment of a compiled selector.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Seg {
    /// Exactly this key (or this array index, written as digits).
    Exact(String),
    /// Any single key or index.
    Any,
    /// Zero or more segments.
    AnyDepth,
    /// A glob on the key: the literal parts between `*`.
    Glob(Vec<String>),
}

/// A compiled body selector. See the module documentation for the syntax.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selector {
    source: String,
    segs: Vec<Seg>,
}

/// A selector that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad selector `{selector}`: {reason}")]
pub struct SelectorError {
    /// The selector as written.
    pub selector: String,
    /// Why it was refused.
    pub reason: &'static str,
}

impl Selector {
    /// Parses a selector.
    ///
    /// ```
    /// use gatecheck_conformance::normalize::Selector;
    /// let s = Selector::parse("**/created_at").unwrap();
    /// assert!(s.matches(&["data", "0", "created_at"]));
    /// assert!(!Selector::parse("/data/*/id").unwrap().matches(&["data", "id"]));
    /// ```
    pub fn parse(source: &str) -> Result<Self, SelectorError> {
        let err = |reason| SelectorError {
            selector: source.to_owned(),
            reason,
        };
        let trimmed = source.trim();
        if trimmed.is_empty() || trimmed == "/" {
            return Ok(Self {
                source: source.to_owned(),
                segs: Vec::new(),
            });
        }
        // `**/x` may be written without the leading slash.
        let body = trimmed.strip_prefix('/').unwrap_or(trimmed);
        if !trimmed.starts_with('/') && !trimmed.starts_with("**") {
            return Err(err("must start with `/` or `**`"));
        }
        let mut segs = Vec::new();
        for raw in body.split('/') {
            let seg = raw.replace("~1", "/").replace("~0", "~");
            let compiled = match seg.as_str() {
                "**" => Seg::AnyDepth,
                "*" => Seg::Any,
                s if s.contains("**") => return Err(err("`**` must be a whole segment")),
                s if s.contains('*') => Seg::Glob(s.split('*').map(str::to_owned).collect()),
                s => Seg::Exact(s.to_owned()),
            };
            // `**/**` is `**`.
            if compiled == Seg::AnyDepth && segs.last() == Some(&Seg::AnyDepth) {
                continue;
            }
            segs.push(compiled);
        }
        // Each `**` multiplies the matching work by the path depth: keep it bounded.
        if segs.iter().filter(|s| **s == Seg::AnyDepth).count() > 3 {
            return Err(err("at most three `**` segments"));
        }
        Ok(Self {
            source: source.to_owned(),
            segs,
        })
    }

    /// The selector as written.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// Whether the selector selects the node at `path` (keys and indices, root first).
    pub fn matches<S: AsRef<str>>(&self, path: &[S]) -> bool {
        match_from(&self.segs, path)
    }
}

impl fmt::Display for Selector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

fn match_from<S: AsRef<str>>(segs: &[Seg], path: &[S]) -> bool {
    match segs.split_first() {
        None => path.is_empty(),
        Some((Seg::AnyDepth, rest)) => (0..=path.len()).any(|skip| match_from(rest, &path[skip..])),
        Some((seg, rest)) => match path.split_first() {
            None => false,
            Some((head, tail)) => seg_matches(seg, head.as_ref()) && match_from(rest, tail),
        },
    }
}

fn seg_matches(seg: &Seg, key: &str) -> bool {
    match seg {
        Seg::Exact(s) => s == key,
        Seg::Any | Seg::AnyDepth => true,
        Seg::Glob(parts) => glob(parts, key),
    }
}

/// `parts` are the literals between `*`s; the first is a prefix and the last a suffix.
fn glob(parts: &[String], key: &str) -> bool {
    let (Some(first), Some(last)) = (parts.first(), parts.last()) else {
        return true;
    };
    if parts.len() == 1 {
        return key == first;
    }
    if !key.starts_with(first.as_str()) {
        return false;
    }
    let mut rest = &key[first.len()..];
    for middle in &parts[1..parts.len() - 1] {
        match rest.find(middle.as_str()) {
            Some(at) => rest = &rest[at + middle.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last.as_str())
}

/// Escapes one key for a JSON Pointer.
pub fn escape_segment(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectors() {
        let s = |x| Selector::parse(x).unwrap();
        assert!(s("/").matches::<&str>(&[]));
        assert!(s("/data/id").matches(&["data", "id"]));
        assert!(s("/data/*/id").matches(&["data", "3", "id"]));
        assert!(s("**/id").matches(&["id"]));
        assert!(s("**/id").matches(&["a", "b", "id"]));
        assert!(!s("**/id").matches(&["a", "b", "idx"]));
        assert!(s("**/*_at").matches(&["x", "created_at"]));
        assert!(!s("**/*_at").matches(&["x", "at"]));
        assert!(s("/a*b*c").matches(&["abxc"]));
        assert!(!s("/a*b*c").matches(&["acb"]));
        assert!(s("/a~1b").matches(&["a/b"]));
        assert!(Selector::parse("data").is_err());
        assert!(Selector::parse("/a**").is_err());
        assert!(s("**/**/id").matches(&["id"]));
        assert!(Selector::parse("**/a/**/b/**/c/**/d").is_err());
    }
}
