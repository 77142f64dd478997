//! JSON writers for hand-written serializers, byte for byte what `serde_json` writes for the
//! same value: a string is checked for bytes that need escaping in one pass
//! ([`crate::scan::needs_json_escape`]) and copied in one go.

/// Appends `s` as a JSON string, escaped as `serde_json` escapes it.
///
/// ```
/// let mut out = Vec::new();
/// gatecheck_codecs::json::push_str(&mut out, "a \"quoted\"\n é");
/// assert_eq!(out, serde_json::to_vec("a \"quoted\"\n é").unwrap());
/// ```
pub fn push_str(out: &mut Vec<u8>, s: &str) {
    // serde_json escapes the control characters, `"` and `\` only (checked eight bytes at a
    // time).
    if !crate::scan::needs_json_escape(s.as_bytes()) {
        out.reserve(s.len() + 2);
        out.push(b'"');
        out.extend_from_slice(s.as_bytes());
        out.push(b'"');
    } else {
        // The rare string that needs escapes takes serde_json's own path (writing to a `Vec`
        // cannot fail).
        let _ = serde_json::to_writer(&mut *out, s);
    }
}

/// Appends `n` as a JSON number.
///
/// ```
/// let mut out = Vec::new();
/// gatecheck_codecs::json::push_i64(&mut out, -42);
/// assert_eq!(out, b"-42");
/// ```
pub fn push_i64(out: &mut Vec<u8>, n: i64) {
    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}

/// Appends `b` as a JSON boolean.
///
/// ```
/// let mut out = Vec::new();
/// gatecheck_codecs::json::push_bool(&mut out, true);
/// assert_eq!(out, b"true");
/// ```
pub fn push_bool(out: &mut Vec<u8>, b: bool) {
    out.extend_from_slice(if b { b"true" } else { b"false" });
}
