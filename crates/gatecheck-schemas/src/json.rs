//! Hand-written JSON writers for the records a mock answers most often, byte for byte what
//! `serde_json` writes for the same value (a property test compares the two on arbitrary
//! records, so the serde derive in [`crate::types`] stays the one definition of the shape).
//!
//! `serde_json` looks up every byte of every string, field names included, in its escape
//! table; these writers copy the field names as constants and check a string for bytes that
//! need escaping before copying it in one go. A `PUT /api/token/` answer spends about a
//! quarter of the instructions it did.
//!
//! ```
//! use gatecheck_schemas::types::KeyRecord;
//! let record: KeyRecord = serde_json::from_str(r#"{"id":7,"user_id":1,"key":"abc",
//!     "status":1,"name":"ci","created_time":1,"accessed_time":1,"expired_time":-1,
//!     "remain_quota":5,"unlimited_quota":false,"model_limits_enabled":false,
//!     "model_limits":"","allow_ips":null,"used_quota":0,"group":"",
//!     "cross_group_retry":false}"#).unwrap();
//! let mut out = Vec::new();
//! record.write_json(&mut out);
//! assert_eq!(out, serde_json::to_vec(&record).unwrap());
//! ```

use crate::types::{ImageUsage, KeyRecord, TokenDetails, VideoTask};
use gatecheck_codecs::json::{push_bool, push_i64, push_str};

impl KeyRecord {
    /// Appends this record as JSON: the bytes `serde_json::to_writer` writes.
    ///
    /// ```
    /// # let record: gatecheck_schemas::types::KeyRecord = serde_json::from_str(r#"{"id":7,
    /// #   "user_id":1,"key":"abc","status":1,"name":"ci","created_time":1,"accessed_time":1,
    /// #   "expired_time":-1,"remain_quota":5,"unlimited_quota":false,
    /// #   "model_limits_enabled":false,"model_limits":"","allow_ips":"10.0.0.1",
    /// #   "used_quota":0,"group":"","cross_group_retry":false}"#).unwrap();
    /// let mut out = Vec::new();
    /// record.write_json(&mut out);
    /// assert_eq!(out, serde_json::to_vec(&record).unwrap());
    /// ```
    pub fn write_json(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(b"{\"id\":");
        push_i64(out, self.id);
        out.extend_from_slice(b",\"user_id\":");
        push_i64(out, self.user_id);
        out.extend_from_slice(b",\"key\":");
        push_str(out, &self.key);
        out.extend_from_slice(b",\"status\":");
        push_i64(out, self.status);
        out.extend_from_slice(b",\"name\":");
        push_str(out, &self.name);
        out.extend_from_slice(b",\"created_time\":");
        push_i64(out, self.created_time);
        out.extend_from_slice(b",\"accessed_time\":");
        push_i64(out, self.accessed_time);
        out.extend_from_slice(b",\"expired_time\":");
        push_i64(out, self.expired_time);
        out.extend_from_slice(b",\"remain_quota\":");
        push_i64(out, self.remain_quota);
        out.extend_from_slice(b",\"unlimited_quota\":");
        push_bool(out, self.unlimited_quota);
        out.extend_from_slice(b",\"model_limits_enabled\":");
        push_bool(out, self.model_limits_enabled);
        out.extend_from_slice(b",\"model_limits\":");
        push_str(out, &self.model_limits);
        out.extend_from_slice(b",\"allow_ips\":");
        match &self.allow_ips {
            Some(ips) => push_str(out, ips),
            None => out.extend_from_slice(b"null"),
        }
        out.extend_from_slice(b",\"used_quota\":");
        push_i64(out, self.used_quota);
        out.extend_from_slice(b",\"group\":");
        push_str(out, &self.group);
        out.extend_from_slice(b",\"cross_group_retry\":");
        push_bool(out, self.cross_group_retry);
        out.push(b'}');
    }
}

impl TokenDetails {
    fn write_json(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(b"{\"image_tokens\":");
        push_i64(out, self.image_tokens);
        out.extend_from_slice(b",\"text_tokens\":");
        push_i64(out, self.text_tokens);
        out.push(b'}');
    }
}

impl ImageUsage {
    /// Appends this usage as JSON: the bytes `serde_json::to_writer` writes.
    ///
    /// ```
    /// let usage = gatecheck_schemas::types::ImageUsage { input_tokens: 3, ..Default::default() };
    /// let mut out = Vec::new();
    /// usage.write_json(&mut out);
    /// assert_eq!(out, serde_json::to_vec(&usage).unwrap());
    /// ```
    pub fn write_json(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(b"{\"input_tokens\":");
        push_i64(out, self.input_tokens);
        out.extend_from_slice(b",\"output_tokens\":");
        push_i64(out, self.output_tokens);
        out.extend_from_slice(b",\"total_tokens\":");
        push_i64(out, self.total_tokens);
        out.extend_from_slice(b",\"input_tokens_details\":");
        self.input_tokens_details.write_json(out);
        out.extend_from_slice(b",\"output_tokens_details\":");
        self.output_tokens_details.write_json(out);
        out.push(b'}');
    }
}

impl<S: AsRef<str>> VideoTask<S> {
    /// Appends this task as JSON: the bytes `serde_json::to_writer` writes (the fields that
    /// are `None` left out, or `null` for OpenAI's nullable keys under `openai_nulls`).
    ///
    /// ```
    /// use gatecheck_schemas::types::{VideoStatus, VideoTask};
    /// let task: VideoTask<&str> = VideoTask {
    ///     id: "task_1", task_id: "task_1", object: "video", model: "sora-2",
    ///     status: VideoStatus::Queued, progress: 0, created_at: 0, completed_at: None,
    ///     expires_at: None, prompt: None, remixed_from_video_id: None,
    ///     video_url: None, seconds: Some("4"), size: Some("720x1280"), error: None,
    ///     metadata: None, openai_nulls: true,
    /// };
    /// let mut out = Vec::new();
    /// task.write_json(&mut out);
    /// assert_eq!(out, serde_json::to_vec(&task).unwrap());
    /// ```
    pub fn write_json(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(b"{\"id\":");
        push_str(out, self.id.as_ref());
        // new-api's `task_id,omitempty`: the plugin era's host leaves it empty.
        if !self.task_id.as_ref().is_empty() {
            out.extend_from_slice(b",\"task_id\":");
            push_str(out, self.task_id.as_ref());
        }
        out.extend_from_slice(b",\"object\":");
        push_str(out, self.object.as_ref());
        out.extend_from_slice(b",\"model\":");
        push_str(out, self.model.as_ref());
        out.extend_from_slice(b",\"status\":");
        push_str(out, self.status.as_str());
        out.extend_from_slice(b",\"progress\":");
        push_i64(out, self.progress);
        out.extend_from_slice(b",\"created_at\":");
        push_i64(out, self.created_at);
        let nulls = self.openai_nulls;
        for (name, at) in [
            (&b",\"completed_at\":"[..], self.completed_at),
            (b",\"expires_at\":", self.expires_at),
        ] {
            match at {
                Some(at) => {
                    out.extend_from_slice(name);
                    push_i64(out, at);
                }
                None if nulls => {
                    out.extend_from_slice(name);
                    out.extend_from_slice(b"null");
                }
                None => {}
            }
        }
        let texts = [
            (&b",\"prompt\":"[..], &self.prompt, true),
            (
                b",\"remixed_from_video_id\":",
                &self.remixed_from_video_id,
                true,
            ),
            (b",\"video_url\":", &self.video_url, false),
            (b",\"seconds\":", &self.seconds, false),
            (b",\"size\":", &self.size, false),
        ];
        for (name, text, nullable) in texts {
            match text {
                Some(text) => {
                    out.extend_from_slice(name);
                    push_str(out, text.as_ref());
                }
                None if nullable && nulls => {
                    out.extend_from_slice(name);
                    out.extend_from_slice(b"null");
                }
                None => {}
            }
        }
        match &self.error {
            Some(e) => {
                out.extend_from_slice(b",\"error\":{\"code\":");
                push_str(out, &e.code);
                out.extend_from_slice(b",\"message\":");
                push_str(out, &e.message);
                out.push(b'}');
            }
            None if nulls => out.extend_from_slice(b",\"error\":null"),
            None => {}
        }
        if let Some(metadata) = &self.metadata {
            out.extend_from_slice(b",\"metadata\":");
            // Any JSON: serde_json writes it (writing to a `Vec` cannot fail).
            let _ = serde_json::to_writer(&mut *out, metadata);
        }
        out.push(b'}');
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn any_record() -> impl Strategy<Value = KeyRecord> {
        let text = || any::<String>();
        (
            (any::<i64>(), any::<i64>(), text(), any::<i64>(), text()),
            (any::<i64>(), any::<i64>(), any::<i64>(), any::<i64>()),
            (
                any::<bool>(),
                any::<bool>(),
                text(),
                proptest::option::of(text()),
            ),
            (any::<i64>(), text(), any::<bool>()),
        )
            .prop_map(|(a, b, c, d)| KeyRecord {
                id: a.0,
                user_id: a.1,
                key: a.2,
                status: a.3,
                name: a.4,
                created_time: b.0,
                accessed_time: b.1,
                expired_time: b.2,
                remain_quota: b.3,
                unlimited_quota: c.0,
                model_limits_enabled: c.1,
                model_limits: c.2,
                allow_ips: c.3,
                used_quota: d.0,
                group: d.1,
                cross_group_retry: d.2,
            })
    }

    fn any_task() -> impl Strategy<Value = VideoTask> {
        use crate::types::{VideoStatus, VideoTaskError};
        let text = || any::<String>();
        let opt = || proptest::option::of(any::<String>());
        let status = prop_oneof![
            Just(VideoStatus::Queued),
            Just(VideoStatus::InProgress),
            Just(VideoStatus::Completed),
            Just(VideoStatus::Failed),
            Just(VideoStatus::Error),
        ];
        let error = proptest::option::of(
            (text(), text()).prop_map(|(code, message)| VideoTaskError { code, message }),
        );
        let metadata = proptest::option::of(opt().prop_map(|url| serde_json::json!({"url": url})));
        (
            (text(), text(), text(), text(), status),
            (
                any::<i64>(),
                any::<i64>(),
                proptest::option::of(any::<i64>()),
            ),
            (opt(), opt(), opt(), error, metadata),
            (
                proptest::option::of(any::<i64>()),
                opt(),
                opt(),
                any::<bool>(),
            ),
        )
            .prop_map(|(a, b, c, d)| VideoTask {
                id: a.0,
                task_id: a.1,
                object: a.2,
                model: a.3,
                status: a.4,
                progress: b.0,
                created_at: b.1,
                completed_at: b.2,
                video_url: c.0,
                seconds: c.1,
                size: c.2,
                error: c.3,
                metadata: c.4,
                expires_at: d.0,
                prompt: d.1,
                remixed_from_video_id: d.2,
                openai_nulls: d.3,
            })
    }

    proptest! {
        #[test]
        fn image_usages_are_written_as_serde_json_writes_them(n in any::<[i64; 7]>()) {
            let usage = ImageUsage {
                input_tokens: n[0],
                output_tokens: n[1],
                total_tokens: n[2],
                input_tokens_details: TokenDetails { image_tokens: n[3], text_tokens: n[4] },
                output_tokens_details: TokenDetails { image_tokens: n[5], text_tokens: n[6] },
            };
            let mut out = Vec::new();
            usage.write_json(&mut out);
            prop_assert_eq!(&out, &serde_json::to_vec(&usage).unwrap());
        }

        #[test]
        fn video_tasks_are_written_as_serde_json_writes_them(task in any_task()) {
            let mut out = Vec::new();
            task.write_json(&mut out);
            prop_assert_eq!(&out, &serde_json::to_vec(&task).unwrap());
        }

        /// The oracle: serde_json on the derived `Serialize`.
        #[test]
        fn key_records_are_written_as_serde_json_writes_them(record in any_record()) {
            let mut out = b"[".to_vec();
            record.write_json(&mut out);
            prop_assert_eq!(&out[1..], &serde_json::to_vec(&record).unwrap()[..]);
        }

        #[test]
        fn strings_are_escaped_as_serde_json_escapes_them(s in any::<String>()) {
            let mut out = Vec::new();
            push_str(&mut out, &s);
            prop_assert_eq!(out, serde_json::to_vec(&s).unwrap());
        }
    }

    #[test]
    fn every_escape_class_matches() {
        let all: String = (0u8..0x80).map(char::from).chain("é€😀".chars()).collect();
        for s in [all.as_str(), "", "\"", "\\", "\u{7f}", "\u{1f}x", "plain"] {
            let mut out = Vec::new();
            push_str(&mut out, s);
            assert_eq!(out, serde_json::to_vec(s).unwrap(), "{s:?}");
        }
    }
}
