//! Structural JSON diff: the paths (JSON Pointers) where two values differ.

use crate::normalize::escape_segment;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One place where two values differ.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Difference {
    /// JSON Pointer of the place (`/body/data/0/status`).
    pub path: String,
    /// The left value there (`None`: absent on the left).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub left: Option<Value>,
    /// The right value there (`None`: absent on the right).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub right: Option<Value>,
    /// The docs/DECISIONS.md row that explains this difference (`NA13`...), when one does
    /// (see [`super::known_row`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub known: Option<String>,
}

impl Difference {
    /// `path: left → right`, with `(absent)` for a missing side.
    pub fn describe(&self) -> String {
        let show = |v: &Option<Value>| match v {
            Some(v) => crate::redact::truncate(&v.to_string(), 120),
            None => "(absent)".to_owned(),
        };
        format!(
            "{}: {} → {}",
            self.path,
            show(&self.left),
            show(&self.right)
        )
    }
}

/// Every place where `left` and `right` differ, in document order. Arrays are compared index by
/// index; objects key by key (left's keys first, then right-only keys).
///
/// ```
/// use gatecheck_conformance::diff::diff_values;
/// use serde_json::json;
/// let d = diff_values(&json!({"a": [1, 2], "b": 1}), &json!({"a": [1, 3], "c": 1}));
/// let paths: Vec<_> = d.iter().map(|d| d.path.as_str()).collect();
/// assert_eq!(paths, ["/a/1", "/b", "/c"]);
/// ```
pub fn diff_values(left: &Value, right: &Value) -> Vec<Difference> {
    let mut out = Vec::new();
    walk(left, right, &mut String::new(), &mut out);
    out
}

fn walk(left: &Value, right: &Value, path: &mut String, out: &mut Vec<Difference>) {
    match (left, right) {
        (Value::Object(l), Value::Object(r)) => {
            for (k, lv) in l {
                let len = path.len();
                path.push('/');
                path.push_str(&escape_segment(k));
                match r.get(k) {
                    Some(rv) => walk(lv, rv, path, out),
                    None => out.push(Difference {
                        path: path.clone(),
                        left: Some(lv.clone()),
                        right: None,
                        known: None,
                    }),
                }
                path.truncate(len);
            }
            for (k, rv) in r {
                if !l.contains_key(k) {
                    out.push(Difference {
                        path: format!("{path}/{}", escape_segment(k)),
                        left: None,
                        right: Some(rv.clone()),
                        known: None,
                    });
                }
            }
        }
        (Value::Array(l), Value::Array(r)) => {
            for i in 0..l.len().max(r.len()) {
                let len = path.len();
                path.push('/');
                path.push_str(&i.to_string());
                match (l.get(i), r.get(i)) {
                    (Some(lv), Some(rv)) => walk(lv, rv, path, out),
                    (lv, rv) => out.push(Difference {
                        path: path.clone(),
                        left: lv.cloned(),
                        right: rv.cloned(),
                        known: None,
                    }),
                }
                path.truncate(len);
            }
        }
        (l, r) if l == r => {}
        (l, r) => out.push(Difference {
            path: if path.is_empty() {
                "/".to_owned()
            } else {
                path.clone()
            },
            left: Some(l.clone()),
            right: Some(r.clone()),
            known: None,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn differences() {
        assert!(diff_values(&json!({"a": 1}), &json!({"a": 1})).is_empty());
        let d = diff_values(&json!([1]), &json!([1, {"x": 2}]));
        assert_eq!(d[0].path, "/1");
        assert_eq!(d[0].left, None);
        let d = diff_values(&json!({"a/b": 1}), &json!({"a/b": 2}));
        assert_eq!(d[0].path, "/a~1b");
        let d = diff_values(&json!(1), &json!("1"));
        assert_eq!(d[0].path, "/");
    }
}
