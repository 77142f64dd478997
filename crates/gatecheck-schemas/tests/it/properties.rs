//! Properties of the typed resources and their schemas, over values made by the crate's own
//! proptest strategies (`gatecheck_schemas::arbitrary`):
//!
//! - round trip: a typed value, serialized, validates against its schema, and deserializes back
//!   to the same value;
//! - agreement: when the schema accepts the value with one of its fields removed, the type
//!   accepts it too (the types are never stricter than the schemas about which fields exist);
//! - mutations: breaking one rule on a valid value is rejected at that value's path.

use gatecheck_schemas::arbitrary as arb;
use gatecheck_schemas::types::*;
use gatecheck_schemas::{is_valid, validate};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};
use std::fmt::Debug;

/// Round trip and agreement for one value.
fn check<T>(name: &str, typed: &T) -> Result<(), TestCaseError>
where
    T: Serialize + DeserializeOwned + PartialEq + Debug,
{
    let value = serde_json::to_value(typed).map_err(|e| TestCaseError::fail(e.to_string()))?;
    if let Err(e) = validate(name, &value) {
        return Err(TestCaseError::fail(format!("{e}\n{value:#}")));
    }
    let back: T = serde_json::from_value(value.clone())
        .map_err(|e| TestCaseError::fail(format!("{name} does not deserialize: {e}")))?;
    prop_assert_eq!(&back, typed);
    // The text form round-trips too.
    let text = serde_json::to_string(&value).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let reparsed: Value =
        serde_json::from_str(&text).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert!(is_valid(name, &reparsed));
    if let Value::Object(map) = &value {
        for field in map.keys() {
            let mut without = map.clone();
            without.remove(field);
            let without = Value::Object(without);
            if is_valid(name, &without) {
                prop_assert!(
                    serde_json::from_value::<T>(without).is_ok(),
                    "{} accepts a body without `{}`, but the type does not",
                    name,
                    field
                );
            }
        }
    }
    Ok(())
}

/// Asserts that `value` is rejected as `name` with a violation at `path`.
fn rejected_at(name: &str, value: &Value, path: &str) -> Result<(), TestCaseError> {
    match validate(name, value) {
        Ok(()) => Err(TestCaseError::fail(format!("{name} accepted {value}"))),
        Err(e) => {
            prop_assert!(
                e.violations().iter().any(|v| v.instance_path == path),
                "expected a violation at {}: {}",
                path,
                e
            );
            Ok(())
        }
    }
}

macro_rules! round_trip {
    ($($test:ident: $name:literal, $strategy:expr;)*) => {
        proptest! {
            #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]
            $(
                #[test]
                fn $test(value in $strategy) {
                    check($name, &value)?;
                }
            )*
        }
    };
}

round_trip! {
    key_record_round_trips: "key-record", arb::key_record();
    token_update_request_round_trips: "token-update-request", arb::token_update_request();
    token_update_envelope_round_trips: "token-update-envelope", arb::token_update_envelope();
    video_task_round_trips: "video-task", arb::video_task();
    video_create_request_round_trips: "video-create-request", arb::video_create_request();
    model_record_round_trips: "model-record", arb::model_record();
    catalog_envelope_round_trips: "catalog-envelope", arb::catalog_envelope();
    image_request_round_trips: "image-request", arb::image_request();
    image_result_round_trips: "image-result", arb::image_result();
    transcription_form_round_trips: "transcription-form", arb::transcription_form();
    translation_result_round_trips: "translation-result", arb::translation_result();
    verbose_transcription_round_trips: "verbose-transcription", arb::verbose_transcription();
    speech_request_round_trips: "speech-request", arb::speech_request();
    v1_error_round_trips: "v1-error", arb::v1_error();
    api_failure_round_trips: "api-failure", arb::api_failure();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn a_key_failure_is_also_an_api_failure(envelope in arb::token_update_envelope()) {
        let value = serde_json::to_value(&envelope).unwrap();
        prop_assert_eq!(is_valid("api-failure", &value), !envelope.success);
    }

    #[test]
    fn progress_beyond_0_100_is_rejected(task in arb::video_task(), over in 101i64..10_000, under in 1i64..10_000) {
        let mut value = serde_json::to_value(&task).unwrap();
        value["progress"] = json!(over);
        rejected_at("video-task", &value, "/progress")?;
        value["progress"] = json!(-under);
        rejected_at("video-task", &value, "/progress")?;
    }

    #[test]
    fn unknown_video_statuses_are_rejected(task in arb::video_task(), status in "[a-z_]{1,12}") {
        prop_assume!(!["queued", "in_progress", "completed", "failed", "error"].contains(&status.as_str()));
        let mut value = serde_json::to_value(&task).unwrap();
        value["status"] = json!(status);
        rejected_at("video-task", &value, "/status")?;
        prop_assert!(serde_json::from_value::<VideoTask>(value).is_err(), "the type rejects it too");
    }

    #[test]
    fn names_over_50_characters_are_rejected(key in arb::key_record(), extra in arb::nonempty_text(20)) {
        let mut value = serde_json::to_value(&key).unwrap();
        let name: String = "n".repeat(50) + &extra;
        value["name"] = json!(name);
        rejected_at("key-record", &value, "/name")?;
        let request = json!({"id": key.id, "name": name});
        rejected_at("token-update-request", &request, "/name")?;
    }

    #[test]
    fn temperatures_outside_0_1_are_rejected(form in arb::transcription_form(), t in 1.0001f64..1e6) {
        let mut value = serde_json::to_value(&form).unwrap();
        value["temperature"] = json!(t);
        rejected_at("transcription-form", &value, "/temperature")?;
        value["temperature"] = json!(-t);
        rejected_at("transcription-form", &value, "/temperature")?;
    }

    #[test]
    fn expired_times_below_minus_one_are_rejected(key in arb::key_record(), t in i64::MIN..-1) {
        let mut value = serde_json::to_value(&key).unwrap();
        value["expired_time"] = json!(t);
        rejected_at("key-record", &value, "/expired_time")?;
    }

    #[test]
    fn malformed_sizes_are_rejected(request in arb::image_request(), size in "[0-9x* ]{0,12}") {
        let well_formed = size.split_once('x').is_some_and(|(w, h)| {
            [w, h].iter().all(|s| !s.is_empty() && !s.starts_with('0') && s.bytes().all(|b| b.is_ascii_digit()))
        });
        let mut value = serde_json::to_value(&request).unwrap();
        value["size"] = json!(size);
        prop_assert_eq!(is_valid("image-request", &value), well_formed);
    }

    #[test]
    fn response_schemas_accept_unknown_fields(task in arb::video_task(), key in arb::key_record(), field in "x_[a-z]{1,10}", extra in any::<i64>()) {
        for (name, mut value) in [
            ("video-task", serde_json::to_value(&task).unwrap()),
            ("key-record", serde_json::to_value(&key).unwrap()),
        ] {
            value[&field] = json!(extra);
            prop_assert!(is_valid(name, &value), "{} rejects an unknown field", name);
        }
    }
}

/// The OpenAPI components of every resource, compiled once.
static COMPONENTS: std::sync::LazyLock<Vec<(&'static str, jsonschema::Validator)>> =
    std::sync::LazyLock::new(|| {
        let doc = gatecheck_schemas::openapi();
        gatecheck_schemas::schema_names()
            .iter()
            .map(|name| {
                (
                    *name,
                    crate::openapi::component_validator(&doc, &crate::openapi::pascal(name)),
                )
            })
            .collect()
    });

/// Asserts the OpenAPI component of `name` judges `value` as the schema file does.
fn component_agrees(name: &str, value: &Value) -> Result<(), TestCaseError> {
    let (_, component) = COMPONENTS.iter().find(|(n, _)| *n == name).unwrap();
    prop_assert_eq!(
        component.is_valid(value),
        is_valid(name, value),
        "{}: {}",
        name,
        value
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn openapi_components_agree_with_the_schema_files(
        key in arb::key_record(),
        task in arb::video_task(),
        model in arb::model_record(),
        form in arb::transcription_form(),
        junk in prop_oneof![Just(json!(null)), Just(json!(-7)), Just(json!("running")), Just(json!(101)), Just(json!("x".repeat(51))), Just(json!(1.5)), Just(json!([])), Just(json!({}))],
    ) {
        for (name, value, field) in [
            ("key-record", serde_json::to_value(&key).unwrap(), "status"),
            ("key-record", serde_json::to_value(&key).unwrap(), "name"),
            ("key-record", serde_json::to_value(&key).unwrap(), "expired_time"),
            ("video-task", serde_json::to_value(&task).unwrap(), "progress"),
            ("video-task", serde_json::to_value(&task).unwrap(), "status"),
            ("model-record", serde_json::to_value(&model).unwrap(), "pricing"),
            ("transcription-form", serde_json::to_value(&form).unwrap(), "temperature"),
        ] {
            component_agrees(name, &value)?;
            let mut mutated = value.clone();
            mutated[field] = junk.clone();
            component_agrees(name, &mutated)?;
        }
    }
}

/// The `untagged` derive that [`Endpoints`]'s own visitor replaced: the oracle.
#[derive(Debug, PartialEq, serde::Deserialize)]
#[serde(untagged)]
enum UntaggedEndpoints {
    Encoded(String),
    Formats(Vec<String>),
}

/// A JSON value of the shapes `endpoints` meets: strings, arrays (of strings or not), and
/// anything else.
fn endpoints_like() -> impl Strategy<Value = Value> {
    let scalar = prop_oneof![
        any::<String>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<bool>().prop_map(Value::from),
        Just(Value::Null),
    ];
    prop_oneof![
        any::<String>().prop_map(Value::from),
        proptest::collection::vec(any::<String>(), 0..4).prop_map(Value::from),
        proptest::collection::vec(scalar.clone(), 0..4).prop_map(Value::Array),
        scalar,
        proptest::collection::btree_map("[a-z]{1,4}", any::<String>(), 0..3).prop_map(|m| json!(m)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// `Endpoints` accepts what the `untagged` derive accepts, as the same value, from a
    /// `Value` and from text alike.
    #[test]
    fn endpoints_read_as_the_untagged_derive_reads_them(value in endpoints_like()) {
        let text = value.to_string();
        let ours = serde_json::from_str::<Endpoints>(&text).ok();
        let oracle = serde_json::from_str::<UntaggedEndpoints>(&text).ok();
        let oracle = oracle.map(|e| match e {
            UntaggedEndpoints::Encoded(s) => Endpoints::Encoded(s),
            UntaggedEndpoints::Formats(v) => Endpoints::Formats(v),
        });
        prop_assert_eq!(&ours, &oracle);
        prop_assert_eq!(serde_json::from_value::<Endpoints>(value).ok(), oracle);
    }
}
