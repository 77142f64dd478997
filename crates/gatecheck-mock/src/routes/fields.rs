//! The top-level fields of a JSON request body, borrowed from the body.
//!
//! The JSON model routes (speech, image generation) read a handful of top-level fields and
//! check their types themselves. Parsing the body into a `serde_json::Value` built an ordered
//! map with a `String` per key and per string value (ten allocations for a four-field image
//! request); [`Fields`] keeps each key and string borrowed from the body (copied only when it
//! has escapes) and skips nested values, with `Value`'s answers: [`Fields::get`] is `None` for
//! a missing field, a repeated field keeps its last value, and a body that is valid JSON but
//! not an object has no fields. A body that is not JSON gets `serde_json`'s own message.

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use std::borrow::Cow;
use std::fmt;

/// One top-level value, as far as the routes look at it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Field<'a> {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number.
    Number(serde_json::Number),
    /// A string, borrowed unless it had escapes.
    Str(Cow<'a, str>),
    /// An array or an object (its contents are skipped).
    Nested,
}

impl Field<'_> {
    /// The string, if this is one.
    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Field::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The boolean, if this is one.
    pub(crate) fn as_bool(&self) -> Option<bool> {
        match self {
            Field::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// Whether this is `null`.
    pub(crate) fn is_null(&self) -> bool {
        matches!(self, Field::Null)
    }

    /// The number as an `i64`, if it is an integer that fits (as `Value::as_i64`).
    pub(crate) fn as_i64(&self) -> Option<i64> {
        match self {
            Field::Number(n) => n.as_i64(),
            _ => None,
        }
    }

    /// The number as an `f64` (as `Value::as_f64`).
    pub(crate) fn as_f64(&self) -> Option<f64> {
        match self {
            Field::Number(n) => n.as_f64(),
            _ => None,
        }
    }
}

/// The top-level fields of a JSON body, in order.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct Fields<'a>(Vec<(Cow<'a, str>, Field<'a>)>);

impl<'a> Fields<'a> {
    /// Parses `body`; the error is `serde_json`'s message for a body that is not JSON.
    pub(crate) fn parse(body: &'a [u8]) -> Result<Self, serde_json::Error> {
        serde_json::from_slice(body)
    }

    /// The value of `key` (the last one when it is repeated, as `serde_json::Value`).
    pub(crate) fn get(&self, key: &str) -> Option<&Field<'a>> {
        self.0.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v)
    }
}

impl<'de> Deserialize<'de> for Field<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(FieldVisitor)
    }
}

struct FieldVisitor;

impl<'de> Visitor<'de> for FieldVisitor {
    type Value = Field<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(Field::Null)
    }
    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(Field::Null)
    }
    fn visit_bool<E>(self, v: bool) -> Result<Self::Value, E> {
        Ok(Field::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
        Ok(Field::Number(v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
        Ok(Field::Number(v.into()))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        serde_json::Number::from_f64(v)
            .map(Field::Number)
            .ok_or_else(|| E::custom("a number that is not finite"))
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Field::Str(Cow::Borrowed(v)))
    }
    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Field::Str(Cow::Owned(v.to_owned())))
    }
    fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
        Ok(Field::Str(Cow::Owned(v)))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Field::Nested)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Field::Nested)
    }
}

impl<'de> Deserialize<'de> for Fields<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(FieldsVisitor)
    }
}

struct FieldsVisitor;

/// A key, borrowed unless it had escapes.
struct Key<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match Field::deserialize(d)? {
            Field::Str(s) => Ok(Key(s)),
            _ => Err(de::Error::custom("a key that is not a string")),
        }
    }
}

impl<'de> Visitor<'de> for FieldsVisitor {
    type Value = Fields<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut fields = Vec::with_capacity(8);
        while let Some((Key(k), v)) = map.next_entry::<Key<'de>, Field<'de>>()? {
            fields.push((k, v));
        }
        Ok(Fields(fields))
    }
    // Valid JSON that is not an object has no fields (`Value::get` answers `None` on it).
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        FieldVisitor.visit_seq(seq).map(|_| Fields::default())
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(Fields::default())
    }
    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(Fields::default())
    }
    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(Fields::default())
    }
    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(Fields::default())
    }
    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(Fields::default())
    }
    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(Fields::default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::Value;

    /// What `Value` says of `key`, in `Field` terms.
    fn via_value(v: &Value, key: &str) -> Option<Field<'static>> {
        v.get(key).map(|x| match x {
            Value::Null => Field::Null,
            Value::Bool(b) => Field::Bool(*b),
            Value::Number(n) => Field::Number(n.clone()),
            Value::String(s) => Field::Str(Cow::Owned(s.clone())),
            Value::Array(_) | Value::Object(_) => Field::Nested,
        })
    }

    fn agree(body: &str) {
        let value = serde_json::from_str::<Value>(body);
        let fields = Fields::parse(body.as_bytes());
        match (value, fields) {
            (Ok(v), Ok(f)) => {
                for key in ["model", "prompt", "size", "n", "a\"b", "x"] {
                    assert_eq!(f.get(key).cloned(), via_value(&v, key), "{body} {key}");
                }
            }
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{body}"),
            (v, f) => panic!("{body}: Value {v:?}, Fields {f:?}"),
        }
    }

    #[test]
    fn fields_answer_as_value_does() {
        for body in [
            r#"{"model":"flux-schnell","prompt":"a cat","size":"512x512","n":1}"#,
            r#"{"model":"a","model":"b","n":2.0,"size":null}"#,
            r#"{"prompt":"esc\"aped \u00e9","n":-3,"x":[1,{"y":2}],"size":{"w":1}}"#,
            r#"{"a\"b":true,"n":1e400}"#,
            r#"{"n":18446744073709551615,"size":false}"#,
            "[1,2]",
            "\"model\"",
            "null",
            "12",
            "{",
            "{\"model\":}",
            "",
            "{} x",
        ] {
            agree(body);
        }
    }

    proptest! {
        /// Any JSON object of top-level scalars and nested values reads the same through both.
        #[test]
        fn any_object_reads_as_value_does(
            entries in prop::collection::vec(
                (prop::sample::select(vec!["model", "prompt", "size", "n", "x"]),
                 prop_oneof![
                    Just(Value::Null),
                    any::<bool>().prop_map(Value::from),
                    any::<i64>().prop_map(Value::from),
                    any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
                    ".{0,8}".prop_map(Value::from),
                    Just(serde_json::json!([1, {"a": "b"}])),
                 ]),
                0..8,
            )
        ) {
            let mut body = String::from("{");
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 { body.push(','); }
                body.push_str(&format!("{}:{}", Value::from(*k), v));
            }
            body.push('}');
            agree(&body);
        }
    }
}
