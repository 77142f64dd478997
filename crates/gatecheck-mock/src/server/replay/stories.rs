//! Id remapping: a create answered from the recording hands the client its own new id (of
//! the recorded id's shape), and later requests carrying that id are matched as the recorded
//! ones, with their answers written back with the client's id. Each remapped id is one
//! story: its polls walk the recorded states in order, on the clock.

use crate::ids::Ids;
use parking_lot::Mutex;
use serde_json::Value;
use std::collections::HashMap;

/// The most stories kept (each is one created task); the oldest go first past it.
const MAX_STORIES: usize = 100_000;

/// One remapped id.
#[derive(Debug, Clone)]
pub(crate) struct Story {
    /// The id in the recording.
    pub(crate) recorded: String,
    /// The replay's clock when the client created it, Unix ms.
    pub(crate) created_ms: i64,
    /// When the create was recorded (ms after the recording started), if known.
    pub(crate) recorded_ms: Option<u64>,
}

/// The remapped ids of a replay.
#[derive(Debug, Default)]
pub(crate) struct Stories {
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    by_new: HashMap<String, Story>,
    order: std::collections::VecDeque<String>,
}

/// `(client id, story)` pairs found in a request.
pub(crate) type Found = Vec<(String, Story)>;

impl Stories {
    /// The path with every segment that is a client id replaced by its recorded id, and the
    /// stories found.
    pub(crate) fn inbound(&self, path: &str) -> (String, Found) {
        let inner = self.inner.lock();
        if inner.by_new.is_empty() {
            return (path.to_owned(), Vec::new());
        }
        let (route, query) = match path.split_once('?') {
            Some((r, q)) => (r, Some(q)),
            None => (path, None),
        };
        let mut found = Vec::new();
        let mapped: Vec<&str> = route
            .split('/')
            .map(|seg| match inner.by_new.get(seg) {
                Some(story) => {
                    found.push((seg.to_owned(), story.clone()));
                    story.recorded.as_str()
                }
                None => seg,
            })
            .collect();
        let mut out = mapped.join("/");
        if let Some(q) = query {
            out.push('?');
            out.push_str(q);
        }
        (out, found)
    }

    /// A JSON request body with every string that is a client id replaced by its recorded id
    /// (Jimeng's `CVSync2AsyncGetResult` names its task in the body), and the stories found;
    /// `None` when nothing is replaced (the body is used as it came).
    pub(crate) fn inbound_body(&self, body: &[u8]) -> Option<(Vec<u8>, Found)> {
        let inner = self.inner.lock();
        if inner.by_new.is_empty() || body.first() != Some(&b'{') {
            return None;
        }
        let mut json: Value = serde_json::from_slice(body).ok()?;
        let mut found = Vec::new();
        replace_ids(&mut json, &inner.by_new, &mut found);
        if found.is_empty() {
            return None;
        }
        Some((serde_json::to_vec(&json).ok()?, found))
    }

    /// Gives each task id in a recorded create answer a new id of the same shape; returns
    /// `(recorded, new)` pairs.
    pub(crate) fn create(
        &self,
        body: &Value,
        ids: &Ids,
        created_ms: i64,
        recorded_ms: Option<u64>,
    ) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let mut inner = self.inner.lock();
        for recorded in task_ids(body) {
            let new = fresh_like(&recorded, ids);
            inner.order.push_back(new.clone());
            inner.by_new.insert(
                new.clone(),
                Story {
                    recorded: recorded.clone(),
                    created_ms,
                    recorded_ms,
                },
            );
            out.push((recorded, new));
        }
        while inner.order.len() > MAX_STORIES {
            if let Some(old) = inner.order.pop_front() {
                inner.by_new.remove(&old);
            }
        }
        out
    }
}

/// Replaces every string of `v` that is a client id with its recorded id, noting each.
fn replace_ids(v: &mut Value, by_new: &HashMap<String, Story>, found: &mut Found) {
    match v {
        Value::String(text) => {
            if let Some(story) = by_new.get(text.as_str()) {
                found.push((
                    std::mem::replace(text, story.recorded.clone()),
                    story.clone(),
                ));
            }
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|item| replace_ids(item, by_new, found)),
        Value::Object(map) => map
            .values_mut()
            .for_each(|item| replace_ids(item, by_new, found)),
        _ => {}
    }
}

/// The ids a create answer names: string `id` or `task_id` at the top, or in `data`.
fn task_ids(body: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let mut look = |v: &Value| {
        for field in ["id", "task_id"] {
            if let Some(s) = v.get(field).and_then(Value::as_str)
                && s.len() >= 8
                && !out.iter().any(|o| o == s)
            {
                out.push(s.to_owned());
            }
        }
    };
    look(body);
    match body.get("data") {
        Some(d @ Value::Object(_)) => look(d),
        Some(Value::Array(items)) => items.iter().for_each(look),
        _ => {}
    }
    out
}

/// A new id with the shape of `recorded`: the same prefix up to its last `_` or `-`, then as
/// many random characters as it had (hex digits when it had only those).
fn fresh_like(recorded: &str, ids: &Ids) -> String {
    let cut = recorded.rfind(['_', '-']).map_or(0, |i| i + 1);
    let (prefix, rest) = recorded.split_at(cut);
    let hex = rest
        .bytes()
        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    let random = ids.alnum(rest.len());
    let body: String = if hex {
        random
            .bytes()
            .map(|b| char::from(b"0123456789abcdef"[usize::from(b % 16)]))
            .collect()
    } else {
        random
    };
    format!("{prefix}{body}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_created_id_maps_back_and_keeps_its_shape() {
        let stories = Stories::default();
        let ids = Ids::new(3);
        let body = serde_json::json!({"id": "video_0123abcd0123abcd", "status": "queued"});
        let pairs = stories.create(&body, &ids, 1000, Some(5));
        assert_eq!(pairs.len(), 1);
        let (recorded, new) = &pairs[0];
        assert_eq!(recorded, "video_0123abcd0123abcd");
        assert_ne!(new, recorded);
        assert_eq!(new.len(), recorded.len());
        assert!(new.starts_with("video_"));
        let (path, found) = stories.inbound(&format!("/v1/videos/{new}/content?variant=x"));
        assert_eq!(path, "/v1/videos/video_0123abcd0123abcd/content?variant=x");
        assert_eq!(found[0].0, *new);
        assert_eq!(found[0].1.created_ms, 1000);
        assert_eq!(stories.inbound("/v1/models").0, "/v1/models");
    }
}
