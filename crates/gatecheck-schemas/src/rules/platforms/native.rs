//! The native vendor routes a platform's task plugin declares (`meta.routes`, the plugin era):
//! the declaration ([`NativeRoute`], in the platform's description, `PluginFacts::native`), what
//! the host hands a renderer ([`NativeTask`]), and the host's sanitized error
//! ([`host_error`]) that the plugin's `native.error` renders.
//!
//! The route table (`crate::routes::table`) serves every declared route beside its own rows,
//! in the `new-api` profile's plugin era only; the mock's one native handler and the runner's
//! `task.native-routes` read the same declarations. Sources: the plugins
//! (`plugins/tasks/<key>/plugin.js@2f6bf06b`, `meta.routes` and `native`) and the host
//! (`middleware/task_plugin.go@3cc2a2bc`: `renderTaskPluginQuery`, `RespondTaskPluginError`,
//! `sanitizedTaskPluginError`; DECISIONS D-ERA-11).

use super::Platform;
use crate::rules::task::TaskStatus;
use serde_json::{Map, Value};

/// What a declared route does (`meta.routes[].type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NativeOperation {
    /// `submit`: the plugin's `decode` hook reads the vendor's body into a task request, the
    /// host charges and submits it and answers the renderer of the new row.
    Submit,
    /// `query`: the host reads the key's task named by the path's `task_id` of this plugin and
    /// answers the renderer of it (404 `task_not_found` when there is none).
    Query,
}

/// The row the host hands a renderer (`service.BuildTaskPluginView`, as far as the plugins
/// read it).
#[derive(Debug, Clone, Copy)]
pub struct NativeTask<'a> {
    /// The public task id (`task_id`).
    pub task_id: &'a str,
    /// The row's status.
    pub status: TaskStatus,
    /// The row's failure reason.
    pub fail_reason: &'a str,
    /// The row's `data`: the upstream's own task (its submit answer until the first poll).
    pub data: &'a Value,
}

/// A vendor body decoded by the plugin's `decode` hook: the task request the host submits.
#[derive(Debug, Clone, PartialEq)]
pub struct NativeIntent {
    /// The model the intent names (the host refuses one outside `meta.models`).
    pub model: String,
    /// The prompt of the request body.
    pub prompt: String,
    /// The request body the plugin's `buildSubmitRequest` reads (`requestBody`).
    pub body: Map<String, Value>,
}

/// A plugin's `decode` hook: the vendor's JSON body to the intent, or the hook's error.
pub type DecodeFn = fn(&Value) -> Result<NativeIntent, String>;
/// A plugin's `native.<renderer>` of one row.
pub type RenderFn = fn(&NativeTask<'_>) -> Value;
/// A plugin's `native.error`: the host's sanitized `code` and `message` to the vendor's body.
pub type NativeErrorFn = fn(&str, &str) -> Value;
/// A vendor's own submit body for a text-to-video task of `(model, prompt)`.
pub type ExampleFn = fn(&str, &str) -> Value;

/// One native route a plugin declares (`meta.routes[]`).
#[derive(Debug, Clone, Copy)]
pub struct NativeRoute {
    /// The method (`POST`, `GET`).
    pub method: &'static str,
    /// The path as an OpenAPI template (`:task_id` written `{task_id}`).
    pub path: &'static str,
    /// `type`: submit or query.
    pub operation: NativeOperation,
    /// `render`: the name of the plugin's `native` renderer (`taskCreated`, `taskStatus`).
    pub renderer: &'static str,
    /// The OpenAPI `operationId` of the row.
    pub operation_id: &'static str,
    /// `decode` of a submit route (`None` for a query).
    pub decode: Option<DecodeFn>,
    /// The renderer, as the plugin writes it.
    pub render: RenderFn,
    /// The JSON pointer of the public task id in the rendered body.
    pub id_pointer: &'static str,
    /// The JSON Schema of the rendered body (the OpenAPI document and the runner).
    pub schema: fn() -> Value,
    /// The vendor's own body of a text-to-video submit (`None` for a query).
    pub example: Option<ExampleFn>,
}

/// A plugin's native surface: its declared routes and its `native.error`.
#[derive(Debug, Clone, Copy)]
pub struct Native {
    /// `meta.routes`.
    pub routes: &'static [NativeRoute],
    /// `native.error`.
    pub error: NativeErrorFn,
    /// The JSON Schema of [`Native::error`]'s body.
    pub error_schema: fn() -> Value,
}

impl Native {
    /// No native route (the plugin declares none, or the platform predates the plugins).
    pub const NONE: Native = Native {
        routes: &[],
        error: |_, _| Value::Null,
        error_schema: || Value::Bool(true),
    };

    /// The first declared route of `operation`, if any.
    pub fn route(&self, operation: NativeOperation) -> Option<&'static NativeRoute> {
        self.routes.iter().find(|r| r.operation == operation)
    }
}

/// `sanitizedTaskPluginError` (middleware/task_plugin.go@3cc2a2bc): the code and message the
/// host gives `native.error` for an answer of `status` (the status stays the host's).
///
/// ```
/// use gatecheck_schemas::rules::platforms::native::host_error;
/// assert_eq!(host_error(404), ("task_not_found", "Task not found"));
/// assert_eq!(host_error(400), ("invalid_request", "Invalid request"));
/// assert_eq!(host_error(502), ("server_error", "Task request failed"));
/// ```
pub fn host_error(status: u16) -> (&'static str, &'static str) {
    match status {
        401 => ("authentication_error", "Authentication failed"),
        403 => ("permission_denied", "Access denied"),
        404 => ("task_not_found", "Task not found"),
        409 => ("request_conflict", "Request conflict"),
        429 => ("rate_limit_exceeded", "Too many requests"),
        // 400 and any other 4xx.
        400..=499 => ("invalid_request", "Invalid request"),
        _ => ("server_error", "Task request failed"),
    }
}

/// The plugin's answer to the host's refusal `status` on a route of `p`: the status the host
/// keeps (a 4xx or 5xx as it is, anything else 500, as `sanitizedTaskPluginError` has it) and
/// `native.error` of its sanitized code and message.
///
/// ```
/// use gatecheck_schemas::rules::platforms::{doubao, native::refusal};
/// let (status, body) = refusal(&doubao::PLATFORM, 404);
/// assert_eq!(status, 404);
/// assert_eq!(body["error"]["code"], "task_not_found");
/// assert_eq!(refusal(&doubao::PLATFORM, 200).0, 500);
/// ```
pub fn refusal(p: &Platform, status: u16) -> (u16, Value) {
    let status = if (400..=599).contains(&status) {
        status
    } else {
        500
    };
    let (code, message) = host_error(status);
    (status, (p.plugins.native.error)(code, message))
}

/// Every declared native route of the registered platforms: the platform, the route's index
/// in its declaration, and the route.
pub fn declared() -> impl Iterator<Item = (&'static Platform, usize, &'static NativeRoute)> {
    super::all().iter().copied().flat_map(|p| {
        p.plugins
            .native
            .routes
            .iter()
            .enumerate()
            .map(move |(i, r)| (p, i, r))
    })
}

/// The text of `key` of `v`, trimmed ("" when absent or not text).
pub(crate) fn trimmed<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).map_or("", str::trim)
}

/// The broken rules of `body` against a route's inline schema (`NativeRoute::schema`,
/// `Native::error_schema`), one message each with its JSON pointer; empty: valid.
///
/// ```
/// use gatecheck_schemas::rules::platforms::{doubao, native::violations};
/// let created = &doubao::NATIVE.routes[0];
/// assert!(violations(&(created.schema)(), &serde_json::json!({"id": "task_1"})).is_empty());
/// assert_eq!(violations(&(created.schema)(), &serde_json::json!({})).len(), 1);
/// ```
#[cfg(feature = "validate")]
pub fn violations(schema: &Value, body: &Value) -> Vec<String> {
    let built = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(schema);
    match built {
        Ok(v) => v
            .iter_errors(body)
            .map(|e| format!("{}: {e}", e.instance_path().as_str()))
            .collect(),
        Err(e) => vec![format!("the schema does not compile: {e}")],
    }
}
