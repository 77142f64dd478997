//! The throwaway platform's description: what `gatecheck-schemas`' registry holds of a
//! platform (docs/ARCHITECTURE.md, "Adding a video platform", step 1). A registered platform
//! is this file under `crates/gatecheck-schemas/src/rules/platforms/` with its key a
//! `Key::<Name>` of the registry's line; this one is added at run time, `Key::Extra`.

use gatecheck_schemas::decisions::id;
use gatecheck_schemas::rules::platforms::native::{
    Native, NativeIntent, NativeOperation, NativeRoute, NativeTask,
};
use gatecheck_schemas::rules::platforms::{
    no_ratios, CheckText, Fetch, Key, Platform, PluginFacts, Surface, UpstreamState,
};
use gatecheck_schemas::rules::task::TaskStatus::{Failure, InProgress, Queued, Success};
use serde_json::{json, Map, Value};

/// The channel type nobody else uses.
pub const CHANNEL_TYPE: &str = "9054";

/// Its model (the catalog gets one: step 3).
pub const MODEL: &str = "throwaway-video-1";

const fn state(
    word: &'static str,
    status: gatecheck_schemas::rules::task::TaskStatus,
    progress: i64,
) -> UpstreamState {
    UpstreamState {
        word,
        status,
        progress,
    }
}

/// The throwaway platform.
pub const PLATFORM: Platform = Platform {
    key: Key::Extra("throwaway"),
    channel_type: CHANNEL_TYPE,
    name: "throwaway",
    title: "Throwaway",
    fetch: Fetch::Poll,
    catalog_model: MODEL,
    models: &[MODEL],
    states: &[
        state("waiting", Queued, 10),
        state("working", InProgress, 50),
        state("done", Success, 100),
        state("broken", Failure, 100),
    ],
    other: None,
    words: ["waiting", "working", "done", "broken"],
    state_pointer: "/phase",
    url_pointer: "/result/url",
    video_has_model: true,
    decision: id::D_PLAT_1,
    data_schema: "throwaway-task-data",
    data_schema_text: include_str!("throwaway-task-data.json"),
    control_words: &[],
    refusals: None,
    check: CheckText {
        title: "A throwaway model (channel type 9054, tests/throwaway_platform) found in the catalog: as `task.platform.vidu`, with the throwaway upstream's task as `data`.",
        spec: "DECISIONS: Video platforms behind the unified route D-PLAT-1; failures D-TASK-10 to D-TASK-12, D-PLAT-7, D-PLAT-9, D-PLAT-10",
    },
    ratios: no_ratios,
    surface: Surface::Unified,
    plugins: PluginFacts {
        native: NATIVE,
        ..PluginFacts::same("tests/throwaway_platform")
    },
};

/// The native routes its (imagined) plugin declares: a submit in the vendor's `{model, text}`
/// answered `{task:{id}}`, a fetch answered `{task:{id, phase}}`, refusals `{failure:{code,
/// message}}`. The route table serves them in the plugin era with nothing else told.
const NATIVE: Native = Native {
    routes: &[
        NativeRoute {
            method: "POST",
            path: "/throwaway/v1/tasks",
            operation: NativeOperation::Submit,
            renderer: "created",
            operation_id: "throwawayCreateTask",
            decode: Some(decode),
            render: |t: &NativeTask<'_>| json!({"task": {"id": t.task_id}}),
            id_pointer: "/task/id",
            schema: task_schema,
            example: Some(|model, prompt| json!({"model": model, "text": prompt})),
        },
        NativeRoute {
            method: "GET",
            path: "/throwaway/v1/tasks/{task_id}",
            operation: NativeOperation::Query,
            renderer: "status",
            operation_id: "throwawayGetTask",
            decode: None,
            render: |t: &NativeTask<'_>| json!({"task": {"id": t.task_id, "phase": t.data["phase"]}}),
            id_pointer: "/task/id",
            schema: task_schema,
            example: None,
        },
    ],
    error: |code, message| json!({"failure": {"code": code, "message": message}}),
    error_schema: || json!({"type": "object", "required": ["failure"]}),
};

/// The vendor's `{model, text}` to the task request.
fn decode(body: &Value) -> Result<NativeIntent, String> {
    let model = body["model"].as_str().ok_or("model is required")?;
    let prompt = body["text"].as_str().unwrap_or("").to_owned();
    let mut request = Map::new();
    request.insert("model".into(), json!(model));
    request.insert("prompt".into(), json!(prompt));
    Ok(NativeIntent {
        model: model.to_owned(),
        prompt,
        body: request,
    })
}

fn task_schema() -> Value {
    json!({"type": "object", "required": ["task"], "properties": {"task": {
        "type": "object", "required": ["id"], "properties": {"id": {"type": "string"}}}}})
}
