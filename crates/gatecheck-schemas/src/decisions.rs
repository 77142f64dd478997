//! Every contract decision, as data: the rows of `docs/DECISIONS.md`.
//!
//! `docs/DECISIONS.md` is generated from [`DECISIONS`] by [`markdown`]; a test fails when the
//! committed file drifts (regenerate it with `GATECHECK_UPDATE_DOCS=1 cargo test -p
//! gatecheck-schemas --lib decisions`). Runner checks cite a row by its [`Decision::id`] on
//! their deviation verdicts; `gatecheck profiles` prints the rows.
//!
//! ```
//! use gatecheck_schemas::decisions::{self, Verdict};
//! let row = decisions::get("NA5").unwrap();
//! assert_eq!(row.verdict, Verdict::Deviation);
//! assert!(decisions::get("D-VIDEO").is_some(), "a section id names its section");
//! ```

/// What the conformance runner reports when a target behaves as the `new-api` column says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// Both profiles behave alike: nothing to report.
    Same,
    /// The spec pins the documented behaviour: the other behaviour is a failure.
    Failure,
    /// The spec is silent and the target departs from the decision: a deviation citing the id.
    Deviation,
    /// The spec is silent and both behaviours are reasonable: nothing is reported.
    Accepted,
    /// The audit row was checked against new-api's code and found wrong, or is not reproduced;
    /// the row says why. Nothing is reported.
    Rejected,
}

impl Verdict {
    /// The word used in `docs/DECISIONS.md` and by `gatecheck profiles`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Same => "same",
            Self::Failure => "failure",
            Self::Deviation => "deviation",
            Self::Accepted => "accepted",
            Self::Rejected => "rejected",
        }
    }
}

/// One decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision {
    /// `D-<SECTION>-n`, a section id `D-<SECTION>`, `P1`..`P6` or `NA1`..`NA14`.
    pub id: &'static str,
    /// A short title.
    pub title: &'static str,
    /// The new-api file and function the row comes from.
    pub source: &'static str,
    /// What the `documented` profile (the spec, and the decision where it is silent) does.
    pub documented: &'static str,
    /// What the `new-api` profile (a deployed new-api) does.
    pub new_api: &'static str,
    /// What the runner reports for a target that behaves as `new_api`.
    pub verdict: Verdict,
}

const fn row(
    id: &'static str,
    title: &'static str,
    source: &'static str,
    documented: &'static str,
    new_api: &'static str,
    verdict: Verdict,
) -> Decision {
    Decision {
        id,
        title,
        source,
        documented,
        new_api,
        verdict,
    }
}

use Verdict::{Accepted, Deviation, Failure, Rejected, Same};

/// The section ids and their headings, in document order.
pub const SECTIONS: [(&str, &str); 18] = [
    ("D-AUTH", "Identity and auth"),
    ("D-ERR", "Error bodies"),
    ("D-TOKEN", "PUT /api/token/"),
    ("D-VIDEO", "Video tasks"),
    ("D-MEDIA", "Images, audio"),
    ("D-STREAM", "Streaming (SSE)"),
    ("D-CATALOG", "Catalog"),
    ("D-QUOTA", "Quota and limits"),
    ("D-OAS", "OpenAPI document and peer tools"),
    ("P", "The profile table (P1..P6)"),
    ("NA", "The audit of the new-api profile (NA1..NA14)"),
    ("D-ROUTE", "Route table and early errors"),
    ("D-EDIT", "Image edits"),
    ("D-MJ", "Midjourney task routes"),
    ("D-TASK", "Provider and unified task routes"),
    ("D-PLAT", "Video platforms behind the unified route"),
    ("D-MODELS", "Model lists in other clients' shapes"),
    ("D-ERA", "The two eras of new-api's task layer"),
];

/// Every decision, in document order.
pub const DECISIONS: &[Decision] = &[
    // Identity and auth
    row("D-AUTH-1", "API key format and the Authorization header",
        "middleware/auth.go TokenAuth",
        "`sk-` + 48 letters and digits; stored without `sk-`; sent with or without it; `Bearer ` matched case-insensitively.",
        "Same key handling; only `Bearer ` and `bearer ` are stripped (`strings.HasPrefix`), so `BEARER x` is an unknown key. The mock keeps case-insensitive matching in both profiles (not reproduced).",
        Same),
    row("D-AUTH-2", "Missing or unknown key on /v1/*",
        "middleware/auth.go TokenAuth; model/token.go ValidateUserToken",
        "401 with the /v1 error body.", "401 (`Invalid token`, see NA2).", Same),
    row("D-AUTH-3", "Disabled, expired or exhausted key",
        "model/token.go ValidateUserToken",
        "401; using a key past its expiry or out of quota stores status 3 or 4.",
        "401 and the same status writes (messages: NA2).", Same),
    row("D-AUTH-4", "IP allowlist",
        "middleware/auth.go TokenAuth; model/token.go GetIpLimits; common IsIpInCIDRList",
        "Client outside `allow_ips`: 403 `access_denied`. Entries split on newline, trimmed, empty ones skipped; the client IP is the TCP peer, `X-Forwarded-For` only with `--trust-forwarded-for`.",
        "403 `access_denied` with new-api's own message (NA13); client IP from gin's `ClientIP()` (NA14).",
        Same),
    row("D-AUTH-5", "Model limits",
        "middleware/distributor.go Distribute",
        "A model not in `model_limits` while `model_limits_enabled`: 403.",
        "403 `This token has no access to model X` (empty list: NA1).", Same),
    row("D-AUTH-6", "Quota lower than the price",
        "service pre-consume (relay quota)",
        "403 `pre_consume_token_quota_failed`.", "Same.", Same),
    row("D-AUTH-7", "Key management authentication",
        "middleware/auth.go UserAuth, authorizationToken",
        "`Authorization: <ACCESS_TOKEN>` (a `Bearer ` prefix accepted); missing token 401 envelope; `New-Api-User` optional (P6); wrong token 401 (P5).",
        "Main before 31d70fca (2026-07-20), which the frozen `new-api-adaptors` profile plays: same header parsing; `New-Api-User` required; wrong token answered 200 `success:false`. From 31d70fca on (every plugin-era version, and the adaptor-era 823e263 seen live: docs/new-api-live.md) see D-AUTH-9, which the `new-api` profile plays.",
        Accepted),
    row("D-AUTH-8", "Scoped personal access tokens (`Authorization: Bearer` without `New-Api-User`)",
        "controller/access_token.go (in no commit of upstream main to 823e263, 2026-08-08: `git log --all -- controller/access_token.go` is empty); middleware/auth.go@823e263 classifyDashboardCredential, authorizationToken; model/user.go@823e263 ValidateAccessToken",
        "One access token per account (the spec's ACCESS_TOKEN), no scopes: `Authorization: <token>` or `Bearer <token>`, `New-Api-User` optional (D-AUTH-7).",
        "Not reproduced: upstream main at 823e263 has no scoped tokens. Its `UserAuth` takes a dashboard JWT or the account's single `users.access_token` (`ValidateAccessToken`, Bearer or bare), with no scopes, no expiry and no `ACCESS_TOKEN_SCOPE_DENIED`/`ACCESS_TOKEN_ROUTE_UNDECLARED` answers; the scoped rows (`UserAccessToken`, `api_key:read`/`api_key:write`) are seen only in an unpinned copy (AUDIT-plugins.md §3.3, `controller/access_token.go@7c952af8`, not in the upstream history). The single token's own answers since 31d70fca (#6329, 2026-07-20: `New-Api-User` no longer read, a wrong token 401 `AUTH_UNAUTHORIZED`) are D-AUTH-9's.",
        Rejected),
    row("D-AUTH-9", "Dashboard auth since 31d70fca: `New-Api-User` not read, 401 `AUTH_UNAUTHORIZED`",
        "middleware/auth.go@823e263 authHelper, classifyDashboardCredential, authorizationToken, writeDashboardAuthError; model/user.go@823e263 ValidateAccessToken (an unknown token is no user: `dashboardCredentialUnmatched`); i18n/locales/en.yaml@823e263 `auth.access_token_invalid`; upstream commit 31d70fca (#6329, 2026-07-20), before PR #7076 (2026-08-29)",
        "D-AUTH-7: `New-Api-User` optional, and refused (401) when it names another user; a wrong token 401 `{success:false, message}` (P5).",
        "`UserAuth` takes `Authorization: <token>` or `Bearer <token>` (a dashboard JWT or the account's access token) and reads no `New-Api-User`: missing, another user's id or not a number, the request is the token's user's. A missing or unknown token (or a header of more than two words) is 401 `{\"success\": false, \"code\": \"AUTH_UNAUTHORIZED\", \"message\": \"Unauthorized, invalid access token\"}` (`rules::auth::stateless_refusal`). The plugin era is after 31d70fca, so the `new-api` profile plays this generation (`rules::auth::DashboardAuth::Stateless`); the adaptors' era spans the commit, and the frozen `new-api-adaptors` profile keeps the one before it (D-AUTH-7, P5, P6). The runner, under `--expect new-api`: in the plugin era `auth.token.wrong-token-rejected` deviates citing this row when a wrong token is refused otherwise than 401 `AUTH_UNAUTHORIZED` (still failing an admission), and `auth.token.user-header-ignored` deviates when the access token without `New-Api-User`, or with another user's id, is refused; in the adaptors' era both generations pass. Under the documented expectation both pass (P6 and D-AUTH-7 are accepted differences).",
        Deviation),
    // Error bodies
    row("D-ERR-1", "/v1 error body",
        "middleware/utils.go abortWithOpenAiMessage",
        "`{error:{message, type:new_api_error, param, code}}`; every answer carries `X-Oneapi-Request-Id`.",
        "See NA13: message ends in ` (request id: …)`, `code` is `\"\"` when unset, no `param`.",
        Accepted),
    row("D-ERR-2", "/api logical failures", "common ApiError",
        "HTTP 200 `{success:false, message}`.", "Same.", Same),
    row("D-ERR-3", "Request validation failures on /v1",
        "relay/helper (validation) ; controller/relay.go",
        "400.", "Audio and image routes: 500 `invalid_request` (P2).", Failure),
    // PUT /api/token/
    row("D-TOKEN-1", "Check order of PUT /api/token/",
        "controller/token.go UpdateToken",
        "Name length, negative quota, unknown id, group access, enabling an expired or exhausted key; each 200 `success:false`.",
        "Name (bytes, P1), negative quota, quota upper bound, unknown id, enabling expired/exhausted; no group check (NA12).",
        Deviation),
    row("D-TOKEN-2", "Omitted fields reset to zero values",
        "controller/token.go UpdateToken; model/token.go Update",
        "An omitted field is written as its zero value; `?status_only=1` changes `status` alone.",
        "Same (gorm `Select(...).Updates`).", Same),
    row("D-TOKEN-3", "`status` without `status_only`",
        "controller/token.go UpdateToken", "Applied.", "Ignored (P4).", Failure),
    row("D-TOKEN-4", "Success envelope", "controller/token.go UpdateToken, buildMaskedTokenResponse",
        "`{success:true, message:\"\", data:<key record>}`.", "Same, key masked (NA6).", Accepted),
    row("D-TOKEN-5", "Tooling extensions (list, get, create, delete)",
        "controller/token.go GetAllTokens, GetToken, AddToken, DeleteToken",
        "`GET /api/token/?p=&size=`, `GET/DELETE /api/token/{id}`, `POST /api/token/` in new-api's shapes.",
        "Same.", Same),
    // Key search and batch routes
    row("D-TOKEN-6", "GET /api/token/search", "router/api-router.go@002f9122 SetApiRouter (`/search` before `/:id`); controller/token.go@0533f389 SearchTokens; model/token.go@0067bd93 SearchUserTokens, sanitizeLikePattern; common GetPageQuery",
        "Routed before `GET /api/token/{id}`. `keyword` matches the name, `token` the key (its `sk-` dropped); each empty one filters nothing. A value without `%` is an exact match; `%` is a wildcard, at most two, never doubled, and with at least 2 bytes besides them (`!` and `_` are escaped first, so `_` matches itself); ASCII letters match without case (SQLite's and MySQL's default `LIKE`; PostgreSQL's is case-sensitive, so the runner never judges case). A refused pattern is 200 `{success:false}` with new-api's message (`rules::token_batch`). Paging as `GET /api/token/` (`p`, `page_size`/`size`/`ps`, 10 by default), a page at most 100 (`searchHardLimit`); newest first. Answer `{success:true, message:\"\", data:{page, page_size, total, items}}`, each item the record with its key masked (MaskTokenKey) in both profiles. new-api's refusal of `%` for an account over its key limit (`GetMaxUserTokens`) and its `auto_groups` item field are not reproduced. `token.batch.search-finds-key` (a failure: a search by the key's own secret that misses it, lists another key, or shows the full key breaks the service's own consistency). The refusals of a pattern are judged by the mock's tests only.",
        "Same. (The older one-api search, with a `name LIKE keyword%` and a plain array, is a fork's, not followed.)", Same),
    row("D-TOKEN-7", "POST /api/token/batch (delete)", "controller/token.go@0533f389 DeleteTokenBatch; model/token.go@0067bd93 BatchDeleteTokens; i18n/locales/en.yaml@002f9122 common.invalid_params",
        "Body `{ids:[int,...]}`; a body that does not bind or an empty `ids`: 200 `{success:false, message:\"Invalid parameters\"}`. Deletes the caller's keys among the ids and answers `{success:true, message:\"\", data:<count>}`, counting only the keys deleted: ids of other accounts and unknown ids are left alone and not counted. No upper bound. Judged by the mock's tests only: a run never deletes a key it did not make.",
        "Same.", Same),
    row("D-TOKEN-8", "POST /api/token/batch/keys (full keys)", "router/api-router.go@002f9122 (CriticalRateLimit, DisableCache); controller/token.go@0533f389 GetTokenKeysBatch; model/token.go@0067bd93 GetTokenKeysByIds, GetFullKey; i18n/locales/en.yaml@002f9122 common.batch_too_many",
        "The same body check, then more than 100 ids: 200 `{success:false, message:\"Too many items in batch request, maximum is 100\"}` (en.yaml@002f9122; the audit's `Batch size cannot exceed` is an example text of i18n/AGENTS.md, not the locale). Answers `{success:true, message:\"\", data:{keys:{\"<id>\":\"<full key>\"}}}` with only the caller's own ids (the stored key, without `sk-`, as `POST /api/token/{id}/key`). `token.batch.keys-own-only` (a failure: a key of another id, or a secret that is not the key's, discloses or lies). The refusals of an empty and a 101-id batch are judged by the mock's tests only.",
        "Same.", Same),
    row("D-TOKEN-9", "GET /api/token/auto-groups", "router/api-router.go@002f9122 SetApiRouter (no such route); controller/token.go@0533f389 GetTokenAutoGroups",
        "Not served: new-api's main router (@002f9122, the version that matches en.yaml@002f9122) has no `/auto-groups`; the routers that add it (`{groups, max_count}`) also carry fork-only routes (`/concurrency`, authz, audit middleware). `GET /api/token/auto-groups` is read as `GET /api/token/{id}`, as in new-api (a non-numeric id).",
        "Same.", Same),
    row("D-TOKEN-10", "GET /api/user/self (the logged-in user)",
        "router/api-router.go@823e263 SetApiRouter (selfRoute, UserAuth); controller/user.go@823e263 GetSelf, buildSelfUserData, calculateUserPermissions; service/authz/resolver.go@823e263 Capabilities",
        "Served in new-api's shape by the access token, as `/api/token/*`: `{success:true, message:\"\", data:{id, username, display_name (the username), role 1, status 1, group (the account's first group), quota, used_quota, request_count, the OAuth ids and affiliate fields empty or 0, setting, sidebar_modules, permissions:{sidebar_settings:true, sidebar_modules:{admin:false}, admin_permissions:{channel:{read, operate, write, sensitive_write, secret_view: all false}}}}}` (a common user). The mock keeps no wallet apart from the keys: `used_quota` is the sum of the account's keys' `used_quota`, `quota` 500 000 000 less it (never below 0), `request_count` its consume entries in the usage log (D-TOKEN-12). new-api's user quota is a balance of its own, charged beside the key's: a deployment's figures differ, and no check judges them.",
        "Same.", Same),
    row("D-TOKEN-11", "GET /api/user/self/groups, GET /api/user/models",
        "controller/group.go@823e263 GetUserGroups; controller/user.go@823e263 GetUserModels; service/group.go@823e263 GetUserUsableGroups, GetGroupsEnabledModels, GetUserGroupRatio; setting/user_usable_group.go@823e263 (default usable groups)",
        "Groups: the account's (the fixture's `groups`), each `{ratio, desc}`: the group's ratio (written as Go writes a float64, `1` not `1.0`) and new-api's default description (`default` 默认分组, `vip` vip分组; the account's own group otherwise 用户分组; any other group its name). No `auto` (new-api's default usable groups have none). Models: the catalog's names in its order (every group has every model in the mock, as an unrestricted key lists them); `?group=` naming a group the account may not use: `[]`.",
        "Same.", Same),
    row("D-TOKEN-12", "GET /api/log/self, GET /api/log/self/stat (the usage log)",
        "controller/log.go@823e263 GetUserLogs, GetLogsSelfStat; model/log.go@823e263 Log, GetUserLogs, formatUserLogs, assignDisplayLogIds, SumUsedQuota; service/task_billing.go@823e263 RefundTaskQuota",
        "The mock's usage log: a consume entry (type 2) per charge, taken back when the charge is given back before the answer (new-api logs a consume only once the request succeeded), and a refund entry (type 6, no model) per failed task's refund; at most 4096 entries (the oldest go), not in the state dump, emptied by a reset. `/api/log/self` is a page `{page, page_size, total, items}` newest first (paging as `GET /api/token/`), each item model/log.go's `Log`: `id` its place in the listing from 1 (assignDisplayLogIds), `user_id`, `username`, `created_at` (the mock's clock), `type`, `token_id`, `token_name` and `group` the key's as they are now (a deleted key's entries show neither), `model_name`, `quota`, `request_id`; tokens, channel, content, use time and IP 0 or empty (new-api's RecordIpLog is off by default), `other` `{}`, `channel_name` empty (formatUserLogs). Filters `type`, `start_timestamp`, `end_timestamp`, `token_name`, `model_name`, `group`, `request_id`, each exact. `/api/log/self/stat`: `quota` the sum of the consume entries the filters keep, `rpm` the count of those of the last 60 s on the mock's clock (without the time filters, as SumUsedQuota), `tpm` 0 (the mock counts no tokens).",
        "Same.", Same),
    row("D-TOKEN-13", "GET /api/data/self (usage by the hour)",
        "controller/usedata.go@823e263 GetUserQuotaDates; model/usedata.go@823e263 LogQuotaData (by the hour), GetQuotaDataByUserId",
        "`end_timestamp` more than 2 592 000 after `start_timestamp`: 200 `{success:false, message:\"时间跨度不能超过 1 个月\"}`. Otherwise the consume entries grouped by model and hour (`created_at` on the hour, within both bounds inclusive; an absent bound is 0, so a request without bounds lists nothing), each `{id:0, user_id, username, model_name, created_at, use_group:\"\", token_id:0, channel_id:0, node_name:\"\", token_used:0, count, quota}` (the columns GetQuotaDataByUserId does not select are zero), by hour then model.",
        "Same.", Same),
    // Video
    row("D-VIDEO-1", "POST /v1/videos bodies", "middleware/distributor.go getModelFromRequest",
        "multipart, form and JSON; fields `model`, `prompt`, `seconds`, `size`, `input_reference`.",
        "Same.", Same),
    row("D-VIDEO-2", "Empty prompt, unknown or non-video model",
        "middleware/distributor.go Distribute",
        "400.", "An unknown model is 503 `model_not_found` (NA5).", Deviation),
    row("D-VIDEO-3", "Task object on creation", "dto/openai_video.go OpenAIVideo",
        "`id` = `task_id` = `task_` + 32 alphanumerics, `object:video`, `status:queued`, `progress:0`, `created_at`, `seconds`, `size`.",
        "Same.", Same),
    row("D-VIDEO-4", "Lifecycle", "dto/openai_video.go VideoStatus*",
        "queued → in_progress → completed | failed | error; progress monotonic, 100 exactly when completed; completed has `completed_at`, `video_url` and `metadata.url`.",
        "No `error` status (NA4), no top-level `video_url` (NA3).", Accepted),
    row("D-VIDEO-5", "Clock and outcome", "(mock only)",
        "Mock clock; outcome from fixture rules or the control API.", "Same.", Same),
    row("D-VIDEO-6", "GET /v1/videos/{id} of an unknown task", "relay task fetch",
        "404.", "400 `task_not_exist` (P3).", Failure),
    row("D-VIDEO-7", "GET /v1/videos/{id}/content", "controller/video_proxy.go VideoProxy",
        "`video/mp4` bytes; not completed: 400.", "Unknown task 404, not completed 400 with new-api's messages (NA10).",
        Accepted),
    // Media
    row("D-MEDIA-1", "POST /v1/images/generations", "relay/relay-image.go; dto image request",
        "Sizes and output mode per model from fixtures; `n` defaults to 1; PNG of the requested size.",
        "See NA9.", Same),
    row("D-MEDIA-2", "Transcriptions and translations", "relay audio",
        "multipart; `file` and `model` required; nine extensions; empty file 400; `temperature` in [0,1]; json/text/srt/vtt/verbose_json.",
        "Validation failures 500 (P2).", Same),
    row("D-MEDIA-3", "POST /v1/audio/speech", "relay audio",
        "`input` 1..4096 characters; `voice` from fixtures; six formats with their content types.",
        "Validation failures 500 (P2).", Same),
    row("D-MEDIA-4", "Upload limit", "(gateway body limit)",
        "25 MiB by default; above it 413 before the whole body is read.", "Same.", Same),
    // Streaming
    row("D-STREAM-1", "POST /v1/audio/speech with `stream_format: \"sse\"`",
        "dto/audio.go AudioRequest.IsStream; relay/channel/openai/audio.go OpenaiTTSHandler (helper.StreamScannerHandler, helper.StringData)",
        "`text/event-stream`, each event `event: <type>\\ndata: <json>\\n\\n`: `speech.audio.delta` events whose `audio` (base64) are parts, in order, of the file the non-streamed answer gives (at least 4 parts, at most 16 KiB each), then one `speech.audio.done` with `usage` `{input_tokens, output_tokens, total_tokens}` (the counts charged). `stream_format` other than `audio` or `sse`: a validation failure. tts-1 and tts-1-hd may not stream: validation failure `stream_format sse is not supported for model X` (OpenAI's API reference; new-api relays the provider's refusal, which the audit does not establish).",
        "Each upstream `data:` line is re-emitted alone, `data: <json>\\n\\n` (the `event:` lines are dropped); the same events. tts-1 and tts-1-hd: the validation failure of P2 (500 `invalid_request`; the provider's own answer is not reproduced, NA8).",
        Accepted),
    row("D-STREAM-2", "POST /v1/audio/transcriptions with `stream=true`",
        "dto/audio.go AudioRequest (no `stream` field); relay/channel/openai ConvertAudioRequest (every form field forwarded), OpenaiSTTHandler (io.ReadAll, service.IOCopyBytesGracefully)",
        "Form field `stream` `true` or `false` (else a validation failure): one `transcript.text.delta` per word (with the space after it), then one `transcript.text.done` with `text` (the deltas concatenated) and `usage` `{type: tokens, input_tokens, input_token_details, output_tokens, total_tokens}`. `response_format` is ignored while streaming but for `diarized_json`: `transcript.text.segment` only for diarization models with `diarized_json` (D-STREAM-5). whisper-1 ignores `stream` and answers as without it (OpenAI's API reference). Translations have no `stream`: ignored.",
        "The same events, read whole by the gateway and sent at once, with `Content-Length` and the upstream's `text/event-stream` (no gaps between events); stream faults act on that body.",
        Accepted),
    row("D-STREAM-3", "POST /v1/images/generations with `stream: true`",
        "dto/openai_image.go ImageRequest (Stream, PartialImages); relay/channel/openai/relay_image.go OpenaiImageStreamHandler",
        "`partial_images` 0 to 3 (default 0; outside: a validation failure, streamed or not) `image_generation.partial_image` events `{b64_json, created_at, size, quality, background, output_format, partial_image_index}`, each a PNG of the requested size, then one `image_generation.completed` with the PNG of the non-streamed answer and `usage`. `stream` must be a boolean; only b64_json models stream (gpt-image-1: OpenAI streams gpt-image models only), with `n` 1 (one terminal event); otherwise a validation failure.",
        "Newer new-api re-emits each event as `event: <type>\\ndata: <json>\\n\\n` and ends with `data: [DONE]`: reproduced. Older releases (adaptor.go OpenaiHandlerWithUsage) parse the SSE body as JSON and answer 500 `bad_response_body`: not reproduced.",
        Accepted),
    row("D-STREAM-4", "Streams: charging, pacing, faults", "(mock only); relay billing as non-streamed",
        "Charged once, at admission, as the same request without streaming (same usage, same ledger); a stream cut by a fault is not refunded. Events are built one at a time (memory of one event), `stream_event_gap` apart (default 5 ms; `serve --stream-gap-ms`), in wall time or, with `serve --stream-pacing clock`, on the mock's clock (each event sent when the clock reaches its time; on a virtual clock, when an advance does). A library script (`MockServer::script_stream`) replaces the events, waits and end of the matching streamed answers; admission and charge stay as without it. Stream faults (`stream_cut`, `stream_stall`, `stream_malformed`, aimed at event N) fire on streamed answers only, drawn from the seeded fault RNG; the other faults act on streamed requests as on any.",
        "Same.", Same),
    row("D-STREAM-5", "`transcript.text.segment` (diarized transcription streams)", "OpenAI's OpenAPI document (openai/openai-openapi openapi.yaml: TranscriptTextSegmentEvent, AudioResponseFormat, TranscriptTextDeltaEvent.segment_id); new-api relay/channel/openai/audio.go OpenaiSTTHandler (io.ReadAll, service.IOCopyBytesGracefully: the body relayed as it is)",
        "Sent only where OpenAI sends it: a diarization model (`gpt-4o-transcribe-diarize`; an id ending in `-diarize`) asked for `response_format=diarized_json` with `stream=true`. Each segment of the transcript is streamed as its `transcript.text.delta` events, each with `segment_id` (`seg_001`, …), then its `transcript.text.segment` `{id, start, end, text, speaker}` (seconds; speakers `A`, `B` in turn: the mock's audio has no voices); the deltas still concatenate to the done text. `diarized_json` on another model, or on a translation: a validation failure. Without `stream=true`, `diarized_json` is not modelled: a validation failure naming it. The embedded catalog has no diarization model (add one with `--fixtures`). The audit (point 8) does not mention segments; OpenAI's document says when they are sent.",
        "The same events, read whole and sent at once with `Content-Length` (D-STREAM-2): new-api forwards `response_format` (every form field) and relays the upstream body unchanged.", Accepted),
    // Where a finding on the stream surface fails the run and where it is a
    // deviation, and the checks that compare a stream with the charge and with the file.
    row("D-STREAM-6", "Streams: what fails and what deviates",
        "WHATWG HTML \"Server-sent events\" (the event stream grammar); OpenAI's OpenAPI document (openai/openai-openapi openapi.yaml: SpeechAudioDeltaEvent, SpeechAudioDoneEvent, TranscriptTextDeltaEvent, TranscriptTextDoneEvent, ImageGenPartialImageEvent, ImageGenCompletedEvent); new-api relay/channel/openai/audio.go OpenaiTTSHandler, relay/channel/openai/relay_image.go OpenaiImageStreamHandler (the upstream events relayed)",
        "A **failure** (`stream.speech`, `stream.transcription`, `stream.images`), because every client of OpenAI's published stream protocol depends on it and it has one right answer: the framing (a stream that is cut, ends inside an event, or does not end within the stream deadline; an accepted answer whose body is an event stream under another content type); an event that is not JSON, has a type the route does not stream, is named by an `event:` line for another type, or lacks a field its type requires; the order (deltas, then exactly one terminal event, nothing after it but `data: [DONE]`, no `[DONE]` before it); the content: the deltas join to the done text, to audio of the requested format (and to the file, D-STREAM-8), every image decodes whole as a PNG of the size its event declares, each partial the size of the final image, partial indexes 0, 1, ... and no more partials than `partial_images`; a usage whose total is not input + output, or that is 0 for a request answered with media. A **deviation**, because deployments differ there for good reasons: the status and body of a refused or failed stream request (a 5xx where a stream was asked cites the route's row); a schema constraint beyond the required fields (an optional field's type or pattern); a final image of another size than requested (a model may round sizes, as D-MEDIA); the diarized segments (D-STREAM-5). A target that answers a stream request with a plain body, or refuses it, does not stream: a skip (not observed), never a pass.",
        "The same: new-api relays the upstream events (dropping the `event:` lines of speech, D-STREAM-1, which the runner accepts), so a finding is the provider's or the relay's.",
        Same),
    row("D-STREAM-7", "Usage against the charge, at the key's group ratio",
        "relay/helper/price.go HandleGroupRatio, ModelPriceHelper (`modelRatio * groupRatio` per token), ModelPriceHelperPerCall (`modelPrice * QuotaPerUnit * groupRatio`); service/quota.go PostConsumeQuota (the charge settled on the upstream usage); controller/pricing.go GetPricing (`group_ratio` of the caller's usable groups); relay/channel/openai/audio.go OpenaiTTSHandler, OpenaiSTTHandler; relay/channel/openai/relay_image.go (the usage relayed to the client)",
        "new-api charges `price x model ratio x group ratio`: a key is charged its catalog price (`rules::quota::price_quota`) times the ratio of its group (its own `group`, else its user's: `default`), `rules::quota::price_quota_at`. The usage a route reports is the usage the key is charged for at that ratio. `usage.charged` (a failure) asks each route that reports usage once, alone on the working key (exclusive phase), with the key read before and after: the speech stream's `speech.audio.done`, the transcription stream's `transcript.text.done` (`type: tokens`), the image stream's `image_generation.completed`, an image edit's `usage`, and one image generation priced per request (an anchor that reports no usage). The ratio is learnt as a client learns it: `--group-ratio`, else `group_ratio` of `GET /api/pricing` for the key's group (D-CATALOG-2); each growth of `used_quota` must then be the catalog price of what was reported times it, within 1 unit. A target that publishes no ratio is judged against one ratio inferred from the charges themselves (`rules::quota::one_ratio`: read off the dearest request, every other within rounding). A ratio that is not 1 is the deployment's published rule, never a finding; charges that no one ratio explains fail: a stream charged twice while the rest is charged once, a charge that drifts from one request to the next. A disagreement is measured once more (a refund of another request settling between the reads moves one measure). Only models priced by tokens alone are compared on their usage (a price per request or second is not in the usage); a route that does not answer or stream is noted, not judged. It needs `--access-token` and a working key. The quota checks (`quota.charged`, `quota.insufficient-403`, `quota.concurrent-atomic`) price at the learnt ratio too; without one each infers it from its own charges (`quota.charged` judges its two at the one ratio `rules::quota::one_ratio` reads; the others take the charge of one request alone on the key as its price), never a finding for a ratio that is not 1.",
        "The same: new-api settles the reserved price on the upstream usage it relays, at the group ratio of the key's group.",
        Same),
    row("D-STREAM-8", "Speech stream bytes against the file",
        "new-api relay/channel/openai/audio.go OpenaiTTSHandler (the upstream events relayed); OpenAI's API reference (speech: `stream_format: sse` streams the audio of the same request)",
        "The deltas of a speech stream join to the file the same request answers without `stream_format`, where the target proves that file deterministic: the runner asks for it twice, and only when the two answers are byte for byte the same is a difference a failure (a delta dropped, repeated or changed). A model that draws each answer anew (most real TTS models) is judged by format only (the deltas parse as the requested format), and the pass says so. The mock is deterministic: its deltas are the file's parts, in order.",
        "The same: new-api relays the upstream bytes; a provider's determinism decides whether the comparison runs.",
        Same),
    // Catalog
    row("D-CATALOG-1", "GET /api/models", "controller/model.go (customised in the seed's deployment)",
        "No auth; `p`/`page`, `page_size`, `model_type`, `provider_code`; `endpoints` in both forms.",
        "Same as documented: the deployment the spec describes is customised (NA7).", Same),
    row("D-CATALOG-2", "GET /api/pricing and GET /api/status", "router/api-router.go (TryUserAuth); controller/pricing.go GetPricing, filterPricingByUsableGroups; model/pricing.go Pricing; controller/misc.go GetStatus",
        "No key. `GET /api/pricing` answers `{success:true, data:[Pricing], vendors, group_ratio, usable_group, supported_endpoint, auto_groups, pricing_version}` (no `message`): `group_ratio` maps each group the caller may use to its ratio (a key is charged price x model ratio x its group's ratio, D-STREAM-7), `usable_group` each to its description, `supported_endpoint` each endpoint type to `{path, method}`; a `Pricing` item is `{model_name, quota_type (1 per call: model_price in USD; 0 by tokens: model_ratio = USD per million input tokens / 2, completion_ratio = output / input), enable_groups, supported_endpoint_types, ...}`. new-api reads a dashboard session only: an anonymous caller gets the usable groups of the default user. The mock takes an account's access token as its login (its groups), else every group of its fixtures' `group_ratio` (`default` 1, `vip` 2); a model priced by the second shows its price per second as `model_price`. `GET /api/status` answers `{success:true, message:\"\", data}` with `quota_per_unit` (500000: quota units per USD), the version, `server_address` and the site's switches (new-api's many UI and login keys are left out). Schemas `pricing-answer`, `status-answer`.",
        "Same.", Same),
    // Quota
    row("D-QUOTA-1", "Quota unit and charging", "service quota; model/token.go DecreaseTokenQuota",
        "500000 per USD; price per request, per second or per token; consumption atomic.", "Same.", Same),
    row("D-QUOTA-2", "Per-key rate limit", "(mock only)",
        "Off by default; 429 with `Retry-After`.", "Same.", Same),
    row("D-QUOTA-3", "Faults", "(mock only)",
        "Only from the control API or the configuration; seeded.", "Same.", Same),
    row("D-QUOTA-4", "A refused request keeps no charge",
        "controller/relay.go Relay (the request validated, helper.GetAndValidateRequest, before ModelPriceHelper and PreConsumeBilling; the deferred relayInfo.Billing.Refund when newAPIError != nil), RelayTask (the deferred Billing.Refund on a task error); service/billing_session.go Refund",
        "A request the service refuses (4xx) costs nothing: new-api rejects bad input before it charges, and refunds what it pre-consumed when a later step fails. `quota.refused-uncharged` (a failure: the client pays for nothing) reads the working key (made limited, with quota in hand) around refusals the runner already sends (a video with an empty prompt, a video of an unknown model, an image of a size no model makes): `used_quota` must not grow and `remain_quota` must not fall. A request that is not refused is noted, not judged; none refused is not observed.",
        "Same.", Same),
    // A run charged nothing, and the charge judged as a failure.
    row("D-QUOTA-5", "A run charged nothing, with no group ratio known",
        "relay/helper/price.go ModelPriceHelper, ModelPriceHelperPerCall (`GroupRatio == 0`: `freeModel`, nothing pre-consumed or charged); service/pre_consume_quota.go PreConsumeQuota (the key's quota checked only for a price over 0: 403 `pre_consume_token_quota_failed`); controller/pricing.go GetPricing (`group_ratio`, a 0 included)",
        "A group ratio of 0 is new-api's free group: every request is served and charged 0. Published (`GET /api/pricing`) or given (`--group-ratio`), `usage.charged` judges each charge at 0 and, all being 0, is `not-observed` (no usage is compared at ratio 0). With no ratio known, a run whose every priced request was charged 0 used to infer ratio 0 and pass: the checks that infer a ratio (`usage.charged`, `quota.charged`, `quota.insufficient-403`, `quota.concurrent-atomic`) now send the request once more on the working key made limited with 1 unit (`rules::quota::ZERO_CHARGE_PROBE_QUOTA`, `read_zero_charge`). Served: a free group, `not-observed`. Refused for want of quota: the service prices what it charged nothing for, a failure of `usage.charged` and `quota.charged` (`not-observed` in the two that only need a price). Any other answer: `not-observed` (give `--group-ratio`). `quota.charged` is a failure check: a charge that is not the price at the key's group ratio, or two charges of one request that no one ratio explains, are the service's books disagreeing with its own prices (as `usage.charged`); `quota.insufficient-403` (which status and code refuse a key short of the price, D-AUTH-6) and `quota.concurrent-atomic` stay deviations.",
        "Same.", Same),
    // OpenAPI document and peer tools
    row("D-OAS-1", "Peer tools: content of a task not completed yet",
        "controller/video_proxy.go VideoProxy",
        "`GET /v1/videos/{id}/content` of a queued or running task is 400 (D-VIDEO-7), declared in schemas/openapi.json. No schema can say \"a completed task\", so Schemathesis' positive-data check reports ST202 (schema-valid request rejected) on it: a known exception of `scripts/peer-check`.",
        "Same (NA10).", Same),
    row("D-OAS-2", "Peer tools: usage view of a key that does not exist",
        "middleware/auth.go@823e263 TokenAuthReadOnly; controller/token.go GetTokenUsage",
        "`GET /api/usage/token` (new-api's route, not in the spec) runs new-api's `TokenAuthReadOnly` first (router/api-router.go@823e263, middleware/auth.go@823e263): no key 401 `Token not provided`, a key no key has 401 `Invalid token`, a disabled key 401 `This token status is unavailable` (expired and exhausted keys are answered: the route is read-only); then the controller's own reading: not exactly `Bearer <key>` 401 `Invalid Bearer token`, and a key with a `-suffix` (which the middleware cuts and the controller does not) 200 `{success:false}` `Failed to get token info, please try again later`. (Before TokenAuthReadOnly, an unknown key was that 200 failure, which Schemathesis' ST401 flagged.)",
        "Same.", Same),
    row("D-OAS-3", "Peer tools: key management answers 200 to schema-violating requests",
        "controller/token.go UpdateToken, AddToken, GetToken; common ApiError",
        "`/api/token/*` answers every logical failure, including a body or id the document's schemas refuse (no `id`, a wrong type, an unknown record), with HTTP 200 `{success:false, message}` (D-ERR-2). Schemathesis' negative-data check reports ST201 (schema-violating request accepted) on them: a known exception.",
        "Same.", Same),
    row("D-OAS-4", "Peer tools: operations on a task that must exist, or be finished",
        "relay/mjproxy_handler.go RelayMidjourneyTask, RelayMidjourneyImage, RelayMidjourneySubmit (task_not_found, task_status_not_success); relay/relay_task.go videoFetchByIDRespBodyBuilder, ResolveOriginTask; middleware/jimeng_adapter.go",
        "No schema can say \"a task that exists\" or \"a finished task\": the Midjourney fetch, image and image-seed of an unknown id (400, D-MJ-3, D-MJ-5), a `change`, `simple-change`, `action`, `modal` or `video` submit naming a task that does not exist or is not SUCCESS (400 `task_not_found`, `task_status_not_success`), a remix of a source that is not completed (400, D-TASK-4, D-TASK-5), a Jimeng or Kling fetch of an unknown `task_id` (400 `task_not_exist`, D-TASK-3) and `GET /media/edits/{file}.png` of a file never made (404). Schemathesis' positive-data check reports ST202 on them and their share of accepted positive cases is low: known exceptions of `scripts/peer-check`, counted only when the refusal names one of these reasons.",
        "Same.", Same),
    row("D-OAS-5", "Peer tools: an image edit of bytes that are not a PNG",
        "relay/channel/openai (the image is relayed; the upstream decodes it)",
        "`POST /v1/images/edits` decodes each image and mask (the mock draws the edit): bytes that are not a PNG are 400 `the image is not a valid PNG file` (D-EDIT). A schema says `contentMediaType: image/png` but cannot make a generator draw a PNG, so Schemathesis' random binary parts are refused: ST202 and a low share of accepted positive cases, known exceptions when the refusal names the PNG.",
        "Same (the upstream refuses them).", Same),
    row("D-OAS-6", "Peer tools: `1.0` for a Go `int` on the Midjourney routes",
        "dto/midjourney.go MidjourneyRequest (`index int`); common.UnmarshalBodyReusable (Go's encoding/json)",
        "Go refuses a number with a fraction part, even `.0`, for an `int` field (`index: -628.0`): new-api answers 400 `bind_request_body_failed` (D-MJ-1). JSON Schema's `integer` takes `-628.0`, and no schema keyword tells `1.0` from `1`, so Schemathesis reports ST202 on such a body: a known exception when the refusal is `bind_request_body_failed`.",
        "Same.", Same),
    row("D-OAS-7", "Peer tools: an object in a multipart text field",
        "(HTTP: a multipart part is bytes; new-api reads a text field with c.PostForm)",
        "A multipart field is text on the wire: when Schemathesis' negative-data check makes a text field (`prompt`) an object, a list, a boolean, a number or null, it sends that value's JSON text, which the service reads as an ordinary string and may accept. Schemathesis reports ST201 on it (\"was string, became object\", \"became boolean\", ...): a known exception when every such case is that mutation. So is a part name the document's `propertyNames` refuses (a control character): the name travels in the part's `Content-Disposition` header, and the service ignores a part it does not know, as new-api does (ST201 \"violates `propertyNames`\" on a multipart operation).",
        "Same.", Same),
    // The profile table
    row("P1", "Key name length", "controller/token.go UpdateToken (`len(token.Name) > 50`)",
        "50 Unicode characters.", "50 UTF-8 bytes.", Failure),
    row("P2", "Validation errors on audio and image routes", "relay error wrapping (`invalid_request`)",
        "400.", "500, code `invalid_request`.", Failure),
    row("P3", "Unknown video task id", "relay task fetch (`task_not_exist`)",
        "404.", "400 `{code:task_not_exist, message:task_not_exist, data:null}`.", Failure),
    row("P4", "`status` in PUT without `status_only`", "controller/token.go UpdateToken",
        "Applied.", "Ignored.", Failure),
    row("P5", "Wrong access token on /api/token/", "middleware/auth.go writeDashboardAuthError",
        "401 envelope.", "200 `success:false`.", Accepted),
    row("P6", "`New-Api-User` header", "middleware/auth.go authHelper",
        "Optional.", "Required (401 without it).", Accepted),
    // The audit
    row("NA1", "`model_limits_enabled` with an empty `model_limits`",
        "middleware/auth.go SetupContextForToken; model/token.go GetModelLimitsMap; middleware/distributor.go Distribute",
        "No restriction (the spec: empty string means no restriction).",
        "Every model refused: 403 `This token has no access to model X` (the empty map is set, so the `no access to any models` branch is not reached). The spec pins the empty list as no restriction: a failure (`key.model-limits`; `key.state.matches-model` follows it and names the row).",
        Failure),
    row("NA2", "Messages of disabled, expired, exhausted and unknown keys",
        "model/token.go ValidateUserToken (ErrTokenInvalid); middleware/auth.go TokenAuth",
        "401, a message per state.", "401 `Invalid token` for each.", Accepted),
    row("NA3", "Top-level `video_url`", "dto/openai_video.go OpenAIVideo",
        "Completed tasks carry `video_url` and `metadata.url`.",
        "No `video_url` field; the URL is in `metadata.url` (a client reading `video_url` finds none: `video.task.decided-fields`).", Deviation),
    row("NA4", "Video statuses", "dto/openai_video.go VideoStatus*",
        "queued, in_progress, completed, failed, error.",
        "Never `error`: an erroring task reports `failed` with its `error` object.", Accepted),
    row("NA5", "Unknown or typo'd model",
        "middleware/distributor.go Distribute (CacheGetRandomSatisfiedChannel, ErrorCodeModelNotFound)",
        "400 (the spec lists an invalid model identifier under 400).",
        "503 `model_not_found`, `No available channel for model X under group default (distributor)`. The spec tells clients to retry 503, so a client with a typo retries forever (`video.create.unknown-model-503`, `audio.translation.bad-request-rejected`; the runner itself never retries this 503).",
        Deviation),
    row("NA6", "Key in the /api/token/ answers (PUT, the listing, one key)", "controller/token.go@823e263 buildMaskedTokenResponse(s) (UpdateToken, GetAllTokens, GetToken); model/token.go MaskTokenKey",
        "The full key (`POST /api/token/{id}/key` reveals it in both profiles; the search masks it in both, D-TOKEN-6).", "Masked: first 4 + `**********` + last 4, in the PUT answer, `GET /api/token/` and `GET /api/token/{id}`.", Accepted),
    row("NA7", "GET /api/models shape", "router/api-router.go; controller/model.go",
        "The spec's paged catalog, no auth.",
        "Upstream new-api serves `{success, message, data:{channelType:[names]}}` behind user auth; the spec describes the seed's customised deployment, so both profiles serve the spec's shape. Not reproduced.",
        Rejected),
    row("NA8", "500 for validations new-api never makes",
        "relay/helper/valid_request.go GetAndValidAudioRequest, GetAndValidOpenAIImageRequest",
        "400 for each validation of the mock (voice, input length, temperature, file extension, prompt, size, n, quality...).",
        "The audit is right that new-api makes few checks itself: audio requests only `model is required`; image requests `model is required`, a `×` in `size`, the DALL·E size lists (the `prompt is required` check is commented out). Every other field is relayed, and the upstream provider's own answer comes back. Not reproduced: that answer depends on the provider behind the channel, which the mock has not got, so the mock keeps one rule for its validations (P2: 500 `invalid_request`).",
        Rejected),
    row("NA9", "Image defaults", "relay/helper/valid_request.go GetAndValidOpenAIImageRequest",
        "`size` required, one of the model's sizes; `n` 1 to 10; `response_format` b64_json or url.",
        "Reproduced: `dall-e`, `dall-e-2` and `dall-e-3` without `size` get 1024x1024 (`images.missing-field-rejected` reports it). `n: 2` on dall-e-3 is relayed, as the mock already accepts it (n 1 to 10); `response_format` is relayed as sent, as the mock already honours b64_json and url for every model. A request without `quality` is billed at the quality new-api fills in (`standard` for dall-e-3, `auto` for gpt-image-1; seen on 823e263, docs/new-api-live.md).",
        Deviation),
    row("NA10", "Content of an unknown or unfinished task", "controller/video_proxy.go VideoProxy",
        "Unknown: 404 /v1 error; not completed: 400.",
        "Unknown: 404 `{error:{message:\"Task not found\", type:\"invalid_request_error\"}}`; not completed: 400 `Task is not completed yet, current status: …`.",
        Accepted),
    row("NA11", "Unknown `status` and `expired_time` below -1 in PUT", "controller/token.go UpdateToken",
        "Refused (the spec's ranges).", "Stored without checks (a status only through `status_only`): `token.update.status-enum`, `token.update.expired-time-range` (`key.state.matches-model` follows it and names the row).",
        Deviation),
    row("NA12", "Key update details", "controller/token.go UpdateToken, maxTokenQuota",
        "Group checked; `status_only` without `status` keeps the status; no quota upper bound; message `token name is too long`.",
        "No group check; `status_only` without `status` writes 0; `remain_quota` above 10^9 × 500000 refused; message `Token name is too long`. The spec pins the group refusal and the message `token name is too long`: a failure (`token.update.group-no-access`, `token.update.name-51-chars-rejected`).",
        Failure),
    row("NA13", "Error bodies on model routes", "middleware/utils.go abortWithOpenAiMessage; relaykit/types/error.go ToOpenAIError; common MessageWithRequestId",
        "`{message, type:new_api_error, param, code}` with `code` null when unset.",
        "Message ends in ` (request id: <id>)`, `code` is `\"\"` when unset; no `param` on the middleware's refusals (key, IP, model limits, no channel), `param: \"\"` on the relay's errors (validation, conversion, quota; seen on 823e263 built and run, docs/new-api-live.md); the IP refusal reads `您的 IP 不在令牌允许访问的列表中`.",
        Accepted),
    row("NA14", "Client IP for the allowlist", "middleware/auth.go TokenAuth (`c.ClientIP()`); gin Engine defaults",
        "The TCP peer; `X-Forwarded-For` only with `--trust-forwarded-for`.",
        "gin trusts every proxy unless `SetTrustedProxies` is called, so `X-Forwarded-For`/`X-Real-IP` decide. The mock keeps the peer unless `--trust-forwarded-for` (spoofable headers are not trusted by default); documented, not reproduced.",
        Rejected),
    // Route table and early errors
    row("NA15", "Audio uploads measured before the relay", "service/token_counter.go (CountToken), common/audio.go GetAudioDuration; relay/channel/openai/adaptor.go ConvertAudioRequest",
        "The nine extensions accepted; a missing file, a wrong extension or an empty file is a validation error (400).",
        "Seen on 823e263 built and run behind the mock (docs/new-api-live.md): with `CountToken` on (the default) each uploaded file is decoded by its extension to bill its duration: `.mpga` and `.mpeg` (two of the spec's nine), and any other name, answer 500 `count_token_failed` `error getting audio duration: unsupported audio format: .mpga`; a file its decoder cannot read (WAV bytes named `.flac`, an empty file) 500 `count_token_failed` too; a missing file 500 `convert_request_failed` `file is required`. The mock's new-api profile answers the missing file and the unmeasured extensions so (it does not decode); the runner names its WAV files `.wav` where the name is not the point, accepts those codes as new-api's validation refusals, reports `.mpga`/`.mpeg` by this row and leaves a measured extension's refusal of its WAV bytes unjudged (`audio.translation.file-formats`).",
        Failure),
    row("D-ROUTE-1", "A body left unread by an early answer (401, 403, 404, 405, 413, 429, injected statuses)",
        "new-api serves on Go's net/http (main.go, gin): server.go chunkWriter.writeHeader and conn.serve, transfer.go body.Close (maxPostHandlerReadBytes = 256 KiB)",
        "HTTP/1, as Go: before the answer the rest of the body is read and discarded, at most 256 KiB and one byte (within the body timeout): a body that ends within it keeps the connection open. A longer body (by `Content-Length` at once, or found by reading) gets the answer with `Connection: close`; the mock then drains the rest in the background (at most 64 MiB, 3 s) so that the connection ends with a FIN, where Go closes its write side, waits 500 ms and closes (a client still sending can then see a reset). `Expect: 100-continue` with the body never read: no `100 Continue`, nothing read, `Connection: close` (Go's closeAfterReply). Go skips the read for a request saying `Connection: close` and can reset it; the mock reads it as any other. HTTP/2: the refused stream is reset, the connection stays.",
        "The same.",
        Same),
    row("D-ROUTE-2", "new-api's route table",
        "router/video-router.go SetVideoRouter (POST /v1/videos, GET /v1/videos/:task_id, GET /v1/videos/:task_id/content, POST /v1/videos/:video_id/remix; no list, no delete); router/web-router.go NoRoute; gin's HandleMethodNotAllowed (off: main.go does not set it)",
        "Serves `GET /v1/videos` (the list) and `DELETE /v1/videos/{task_id}`; a known path asked with another method is 405 with `Allow`; on `/v1/*` the key is checked before the route table.",
        "No list and no delete: both, and any wrong method on a served path, reach gin's NoRoute, which runs before any route group's middleware: the not-found answer (D-ROUTE-3) comes before the key is looked at (a missing key gets 404, not 401). The spec does not name the list or the delete, so a target without them is not failed: the runner's discovery reads 404/405/501 as not served.",
        Accepted),
    row("D-ROUTE-3", "The not-found answer",
        "controller/relay.go RelayNotFound; router/web-router.go NoRoute (request URI prefixed `/v1`, `/api` or `/assets`)",
        "404 `{error:{message:\"Invalid URL (METHOD PATH)\", type:new_api_error, param:null, code:\"not_found\"}}` on `/v1/*`, `{success:false, message:\"Invalid URL (METHOD PATH)\"}` elsewhere; PATH without the query string.",
        "404 `{\"error\":{\"message\":\"Invalid URL (METHOD PATH)\",\"type\":\"invalid_request_error\",\"param\":\"\",\"code\":\"\"}}` for every path starting `/v1`, `/api` or `/assets` (PATH is Go's `URL.Path`: no query string, percent-escapes decoded; the mock echoes the path as sent), no request-id suffix; any other path gets the dashboard's `index.html`, 200 `text/html`. The spec pins only the 404 (`v1.unknown-path-404`); both bodies carry `error.message`.",
        Accepted),
    row("D-ROUTE-4", "The video object's OpenAI keys",
        "dto/openai_video.go OpenAIVideo (`completed_at`, `expires_at`, `remixed_from_video_id`, `error` omitempty; no `prompt`); OpenAI: openai/openai-openapi VideoResource (fixtures/openai/video-resource.schema.json)",
        "Every object of `/v1/videos*` carries every required key of OpenAI's VideoResource: `completed_at`, `expires_at`, `prompt`, `remixed_from_video_id` and `error` are `null` when unknown (the mock's content never expires: `expires_at` is always null; a prompt is kept while the store's prompts total at most 16 MiB, past that a new task shows `prompt: null`). The mock's `error` status and its sizes outside OpenAI's four stay as D-VIDEO-4 and the catalog decide.",
        "An unset key is left out (`omitempty`), and there is no `prompt` at all. The spec does not show these keys: the runner reports a missing one as a deviation (`video.task.decided-fields`).",
        Deviation),
    row("D-ROUTE-5", "Refund of a task that fails",
        "service/task_polling.go updateVideoSingleTask (FAILURE → RefundTaskQuota when task.Quota != 0, after the UpdateWithStatus compare-and-swap), sweepTimedOutTasks (unfinished after TaskTimeoutMinutes → FAILURE + refund, tasks submitted before the legacy cut-off excepted); service/task_billing.go RefundTaskQuota (the whole task.Quota back to the wallet or subscription and to the key: IncreaseTokenQuota)",
        "A `/v1/videos` task is charged at submit; when it ends `failed` or `error` the whole charge goes back to the key (remaining quota up, used quota down), once, whenever the failure is observed: the mock settles on the next request of any kind (and in `MockServer::key`/`state`), not only on a poll of that task. A completed task keeps its charge (new-api's token re-pricing on success is not reproduced). The mock's tasks always end on their schedule, so none times out; a timeout is the same edge (`gatecheck_schemas::rules::refund::refund_on_edge`). A task deleted before it ends is not refunded. (RelayTask's deferred `Billing.Refund` is another path: it gives back a submit that failed, which the mock never charges.)",
        "The same (`error` is shown as `failed`, NA4).",
        Same),
    // Image edits (POST /v1/images/edits: named by the spec, its payload "not shown")
    row("D-EDIT-1", "Image edit request",
        "relay/channel/openai/adaptor.go ConvertImageRequest (edits, multipart); middleware/distributor.go getModelRequest (model from the form field); relay/helper/valid_request.go GetAndValidOpenAIImageRequest",
        "multipart/form-data: `image` (also `image[]` or `image[<i>]`, repeatable, up to 16 PNGs; the first is edited), optional `mask` (a PNG: its fully transparent pixels mark where to edit), `prompt` (1 to 32000 characters), `model` (an image model that edits), `n` (1 to 10, default 1), `size` (one of the model's sizes or `auto`, default its first), `response_format` (`b64_json` or `url`, default the model's output). Schema `image-edit-form`.",
        "The same parts: new-api reads `model` from the form, collects `image`, `image[]` and `image[...]` files and `mask`, and relays every other field as sent.",
        Same),
    row("D-EDIT-2", "Image edit without an image",
        "relay/image_handler.go ImageHelper (`types.NewError(err, ErrorCodeConvertRequestFailed)`); relay/channel/openai/adaptor.go ConvertImageRequest (`image is required`)",
        "400 `invalid_request` (a validation failure, as OpenAI refuses it), nothing charged.",
        "500 `convert_request_failed`, `image is required (request id: …)`, type `new_api_error`: the price is reserved before the conversion fails, and given back (net nothing charged; a key short of quota gets 403 first). The audit is right. `images.edits.missing-image` reports it.",
        Deviation),
    row("D-EDIT-3", "Image edit result",
        "relay/channel/openai/adaptor.go DoResponse (images: OpenaiHandlerWithUsage relays the upstream body)",
        "200 JSON valid against `image-result` (created, data, size, usage...), `n` items each with `b64_json` or a `url`; every image a PNG of the requested size: the upload resized and changed inside the mask (everywhere without one). A `url` is `/media/edits/<id>.png` on the mock, no auth, kept for the latest 32 edits. `images.edits.result`.",
        "The upstream provider's body, relayed: the same shape from OpenAI-compatible providers.",
        Same),
    row("D-EDIT-4", "Image edit charge",
        "relay/image_handler.go ImageHelper (ModelPriceHelper, PreConsumeQuota, postConsumeQuota)",
        "Charged as a generation is: one request per output image, text tokens (a token per 4 prompt characters) plus 272 tokens per 1024×1024 of each input image as input, 272 per 1024×1024 of each output image as output (`rules::image_edit::edit_usage`); nothing for a refused request.",
        "Reserved before relaying, settled on the upstream usage; the same prices.",
        Same),
    row("D-EDIT-5", "Image edit validation",
        "relay/helper/valid_request.go GetAndValidOpenAIImageRequest (the multipart branch checks nothing)",
        "400 for a missing or blank prompt, `n` outside 1 to 10, a size the model has not got, a `response_format` other than b64_json or url, an image or mask that is not a PNG, more than 16 images, and a model that does not edit (dall-e-3).",
        "new-api checks none of these and relays the request; the provider's refusal comes back. The mock keeps one rule for its validations (P2: 500 `invalid_request`), as NA8 does for generations.",
        Accepted),
    // What an edit answer fails on.
    row("D-EDIT-6", "Image edit: what fails",
        "OpenAI's API reference (images/edits `mask`: \"an additional image whose fully transparent areas (e.g. where alpha is zero) indicate where `image` should be edited\"; `n` images); relay/channel/openai/adaptor.go ConvertImageRequest (the `mask` part relayed as sent)",
        "`images.edits.result` is a failure check: an answer with another count of images than `n`, an image that is not a PNG that decodes whole (chunks, CRCs and every pixel of its data), and an edit with a mask that changes the area the mask keeps fail the run. A mask marks where to edit by its fully transparent pixels; where it is opaque (an image without alpha is opaque everywhere), leaving out a band of an eighth of the width along its edges where a model may blend, at least 90% of the pixels must be within 24 (of 255, per channel) of the source scaled to the answer's size. Every run of `images.edits.result` sends, whatever the seed, `n` 1 and 2, a mask and none, `image` and `image[]`, and each edit model (the drawn cases come on top); its masked cases, like `usage.charged`'s, send a mask transparent on its left half. An edit that repaints everything, or drops the mask on the way, fails; so does an edit that answers the upload unchanged (pixel for pixel, at its own size), or a masked edit that changed nothing where its mask is transparent: nothing was edited where the mask asked (OpenAI's reference above: the transparent areas are where `image` should be edited). An image's `url` on another host than the target's is fetched as a client would, without the target's credentials, size-bounded, with redirects within the runner's rules; one that cannot be fetched leaves the check not observed, never passed; the mock's edit (D-EDIT-3) keeps the opaque area exactly. Deviations (D-EDIT-3): the status and body shape of the answer, its schema, a URL that does not answer, and an image of another size than requested (a model may round sizes, D-MEDIA).",
        "The same: new-api relays the mask to the provider and the provider's images back.",
        Same),
    // Midjourney task routes (provider image task routes: named by the spec, "not shown")
    row("D-MJ-1", "Midjourney routes and key",
        "router/relay-router.go registerMjRouterGroup (`/mj` and `/:mode/mj`); middleware/auth.go TokenAuth",
        "`POST /mj/submit/{imagine,change,simple-change,action,modal,describe,blend,shorten,edits,video,upload-discord-images}`, `POST /mj/insight-face/swap`, `POST /mj/task/list-by-condition`, `GET /mj/task/{id}/fetch` and `GET /mj/task/{id}/image-seed` with the key as `Authorization: Bearer` or, when `Authorization` is absent or `midjourney-proxy`, in `mj-api-secret` (`Bearer ` and `sk-` stripped); `GET /mj/image/{id}` without a key; the same under `/{mode}/mj/`. A missing or wrong key: 401. A body field of new-api's MidjourneyRequest with another JSON type than Go's (`notifyHook: {}`, `index: 1.5`) is 400 `bind_request_body_failed`, as Go's decoding refuses it.",
        "The same routes and key reading. `mj.auth.mj-api-secret`.",
        Same),
    row("D-MJ-2", "Midjourney submit answer",
        "relay/mjproxy_handler.go RelayMidjourneySubmit; dto/midjourney.go MidjourneyResponse",
        "200 `{code:1, description:\"Submit success\", result:<task id: 16 digits>, properties}` (schema `mj-submit-answer`). `change` needs `taskId`, `action` (UPSCALE, VARIATION, REROLL) and `index`; `action` a `customId` (`MJ::JOB::upsample::2::…`) and `taskId`; `simple-change` a `content` `<task id> U2`; `modal` and `video` a `taskId`; the origin task must be the key owner's and SUCCESS (a modal: any state). `mj.submit.imagine`.",
        "The upstream proxy's body, its codes 21 and 22 rewritten to 1; the same checks.",
        Same),
    row("D-MJ-3", "Midjourney refusals",
        "controller/relay.go RelayMidjourney; relay/mjproxy_handler.go; service/midjourney.go CoverPlusActionToNormalAction",
        "400 `{description:\"<reason> \", type:\"upstream_error\", code:4}` (the reason, a space and an empty result): `prompt_is_required`, `task_id_is_required`, `action_is_required`, `index_is_required`, `custom_id_is_required`, `unknown_action`, `index_parse_failed`, `invalid_request`, `task_not_found`, `task_status_not_success`, `quota_not_enough`, `bind_request_body_failed`; an unknown or another user's task on fetch: `task_no_found` (the audit is right: new-api's spelling). `mj.task.unknown-id`, `mj.submit.prompt-required`.",
        "The same body, from RelayMidjourney. The distributor refuses a body it cannot read, or a `customId`/`content` it cannot parse, before it: 400 in the OpenAI error shape; the mock answers those in the Midjourney shape.",
        Accepted),
    row("D-MJ-4", "Midjourney task record",
        "relay/mjproxy_handler.go RelayMidjourneyTask, coverMidjourneyTaskDto; dto/midjourney.go MidjourneyDto",
        "200 `{id, action, customId, botType, prompt, promptEn, description, state, submitTime, startTime, finishTime, imageUrl, videoUrl, videoUrls, status, progress, failReason, buttons, maskBase64, properties}` (schema `mj-task`; times in ms, 0 until reached). `status` SUBMITTED, IN_PROGRESS, then SUCCESS or FAILURE, never back, on the video plan and clock (the prompt rules of `fixtures/video.json`, `/__mock/mj/{id}/outcome`); `progress` `NN%`, `100%` exactly on SUCCESS; `imageUrl` `<base>/mj/image/{id}` once SUCCESS, `failReason` on FAILURE; a finished grid lists U1-U4, V1-V4 and reroll buttons. `mj.task.lifecycle`.",
        "The proxy's states as reported to new-api; `imageUrl` is `ServerAddress/mj/image/{id}` (with `?rand=` while not SUCCESS when the proxy has a preview).",
        Same),
    row("D-MJ-5", "Midjourney image",
        "relay/mjproxy_handler.go RelayMidjourneyImage",
        "No key. A SUCCESS task: 200 image/png, 1024×1024. Unknown id: 400 `{error:\"midjourney_task_not_found\"}`. Not SUCCESS yet: 404 `{error:\"midjourney_image_not_ready\"}`.",
        "Unknown id: the same 400. Otherwise new-api fetches the proxy's stored image URL and relays it; with none yet the fetch fails: 500 `{error:\"http_get_image_failed\"}`.",
        Accepted),
    row("D-MJ-6", "Midjourney billing",
        "relay/mjproxy_handler.go RelayMidjourneySubmit (user quota check, PostConsumeQuota in a defer after an upstream 200); controller/midjourney.go UpdateMidjourneyTaskBulk (a failed task: model.IncreaseUserQuota only)",
        "The model `mj_<action>` (`mj_imagine`, `mj_upscale`...) is charged its per-request price once the submit is accepted, never before; a refused submit charges nothing; a key short of the price gets 400 `quota_not_enough` and no task. A task that ends FAILURE leaves the key charged: new-api gives a failed Midjourney task's quota back to the account's wallet (`IncreaseUserQuota`), not to the key (unlike video tasks, D-ROUTE-5, whose refund also raises the key's quota), and the mock keeps no wallet. Each stored task keeps what it was charged.",
        "Charged after the proxy accepted (codes 1, 21, 22); INPAINT and CUSTOM_ZOOM free.",
        Same),
    row("D-MJ-7", "Midjourney models",
        "service/midjourney.go CovertMjpActionToModelName; setting/ratio_setting model prices",
        "The catalog lists `mj_imagine`, `mj_upscale`, `mj_variation`, `mj_reroll`, `mj_modal`, `mj_describe`, `mj_blend`, `mj_shorten`, `mj_edits`, `mj_video`, `mj_upload` and `swap_face` (type image, per request: 0.1 USD; upscale, describe, upload and face swap 0.05: new-api's default prices). A face swap is charged as `swap_face`, not `mj_swap_face`.",
        "The same names, priced by the operator.",
        Same),
    row("D-MJ-8", "Midjourney upload, face swap, list and seed",
        "relay/mjproxy_handler.go RelayMidjourneySubmit (UPLOAD: stored SUCCESS), RelaySwapFace, RelayMidjourneyTask (TaskFetchByCondition), RelayMidjourneyTaskImageSeed; service/midjourney.go DoMidjourneyHttpRequest (an upload answer's array `result`); midjourney-proxy SubmitController.uploadDiscordImages",
        "`upload-discord-images` `{base64Array}`: 200 `{code:1, description:\"success\", result:[url...]}`, one Discord-CDN-shaped URL per image (the mock keeps no upload and serves none of them), charged `mj_upload`; no images, or one that is not a `data:<type>;base64,` URL, is midjourney-proxy's answer relayed with HTTP 200: `{code:4, description:\"base64Array不能为空\"}` or `\"base64格式错误\"`, charged nothing. `insight-face/swap` `{sourceBase64, targetBase64}`: both needed (else 400 `sour_base64_and_target_base64_is_required`, new-api's spelling), then a `SWAP_FACE` task (prompt `InsightFace`) like an imagine: the submit answer, charged `swap_face`, fetched and finished on the clock. `task/list-by-condition` `{ids:[...]}`: 200, the records of the key's user among `ids`, each once, oldest first, `[]` when none; a body that is not `{ids:[string]}` is 400 `do_request_failed`. `task/{id}/image-seed`: 200 `{code:1, description:\"success\", properties:null, result:<decimal seed>}` once SUCCESS, `{code:4, description:\"task_status_not_success\", result:\"\"}` before (the mock's stand-in for the upstream's answer); an unknown id 400 `task_no_found`. `mj.task.list-by-condition`, `mj.submit.upload`.",
        "The same checks and bodies; the upload URLs, the seed and a not-finished seed answer are the upstream's.",
        Same),
    // Provider and unified task routes (the spec: "provider-specific video ... task routes
    // exist; their paths and payloads: not shown"). Both profiles follow new-api; a target
    // that lacks a route skips with `route-not-served`, one that answers otherwise deviates.
    row("D-TASK", "Provider and unified task routes (section)",
        "router/video-router.go SetVideoRouter; controller/relay.go RelayTask, RelayTaskFetch; relay/relay_task.go",
        "The rows below: new-api's behaviour in both profiles (the spec names these routes without describing them).",
        "Same.", Same),
    row("D-TASK-1", "POST /v1/video/generations", "router/video-router.go; relay/relay_task.go RelayTaskSubmit; relay/channel/task/sora/adaptor.go DoResponse; model/task.go GenerateTaskID",
        "The same controller and adaptor as POST /v1/videos: the same bodies, validation, errors and charge at submit (D-VIDEO rows); the answer is the OpenAI video object of the new task, `id` = `task_id` = `task_` + 32 letters and digits, `queued`, progress 0. The task is one of the /v1/videos tasks (same clock, outcome controls, faults) and is also read by GET /v1/videos/{id}.",
        "Same.", Same),
    row("D-TASK-2", "GET /v1/video/generations/{task_id}: the task envelope", "relay/relay_task.go videoFetchByIDRespBodyBuilder, TaskModel2Dto; dto/task.go TaskResponse, TaskDto; model/task.go Task, Properties, GetResultURL; relay/channel/task/taskcommon BuildProxyURL, ProgressComplete; service/task_polling.go updateVideoSingleTask (FAILURE: Progress = ProgressComplete)",
        "200 `{\"code\":\"success\",\"message\":\"\",\"data\":TaskDto}` (a RequestURI that is not /v1/videos/ gets the TaskDto, never the video object): `id` (row id; the mock derives a positive number from the task id), `created_at`, `updated_at`, `task_id`, `platform` (the channel type as text: `55` Sora), `user_id`, `group`, `channel_id`, `quota` (charged at submit), `action` (`textGenerate`; `remixGenerate` for a remix; the mock never reports `generate`: it reads no image input), `status` upper case (`QUEUED`, `IN_PROGRESS`, `SUCCESS`, `FAILURE`: what the poller stores; new-api shows `NOT_START` until its first poll, the mock's tasks are polled at once), `fail_reason` (the error message of a failed task, else empty), `result_url` only once `SUCCESS` (`<base>/v1/videos/{task_id}/content`), `submit_time`, `start_time`, `finish_time` (0 until reached), `progress` `\"NN%\"` (`\"100%\"` when `SUCCESS`), `properties` `{input:\"\", upstream_model_name, origin_model_name}`, `data` (the upstream's last answer: the video object as GET /v1/videos/{id} shows it; new-api's carries the upstream's own id). A failed task is `FAILURE` at `\"100%\"`: new-api's poller writes `ProgressComplete` on `FAILURE` as on `SUCCESS` (service/task_polling.go updateVideoSingleTask; taskcommon's default progress table), and the OpenAI video object of GET /v1/videos/{id} copies it (the mock's new-api profile; its documented profile's video object keeps the progress the task had). The runner accepts either: the spec's \"100 when completed\" does not forbid 100 on a failure (`video.completed.progress-100`, `video.task.decided-fields`).",
        "Same.", Same),
    row("D-TASK-3", "Unknown task id on the task routes", "relay/relay_task.go videoFetchByIDRespBodyBuilder; service/error.go TaskErrorWrapperLocal; dto/task.go TaskError",
        "400 `{\"code\":\"task_not_exist\",\"message\":\"task_not_exist\",\"data\":null}` for an id that does not exist or belongs to another user (GetByTaskId is scoped by user), in both profiles.",
        "Same.", Same),
    row("D-TASK-4", "POST /v1/videos/{video_id}/remix", "relay/relay_task.go ResolveOriginTask; relay/channel/task/sora/adaptor.go validateRemixRequest, BuildRequestURL, EstimateBilling, DoResponse; controller/relay.go RelayTask",
        "JSON `{prompt}` (not blank, else 400 `{code:\"invalid_request\", message:\"field prompt is required\", data:null}`). The source is looked up for the key's user: unknown or another user's is 400 `{code:\"task_not_exist\", message:\"task_origin_not_exist\", data:null}`. The new task takes the source's model, seconds and size, is charged at submit like a create of that model and duration (OtherRatios from the source's billing context), runs on the same clock, and is answered as the video object (`queued`, progress 0, a new `task_` id) with `remixed_from_video_id` = the source's id, shown on later polls too. new-api relays the upstream's `remixed_from_video_id`, the upstream id of the source, which the client never saw; the mock has no separate upstream id and shows the public one. Action `remixGenerate`. A remix of a source the service has no record of is refused before any charge (controller/relay.go RelayTask runs ResolveOriginTask before RelayTaskSubmit's PreConsumeBilling): another refusal of it (a 404, another body) deviates, but a remix accepted (2xx: a task made and charged) while the target's own fetch of the source (`GET /v1/videos/{id}`) says there is no such task (404, or 400 `task_not_exist`) is D-TASK-10's failure (`task.remix.unknown-source`, `rules::task::says_no_such_task`): the service's own records say there is no such source.",
        "Same.", Same),
    row("D-TASK-5", "Remix of a source that is not completed", "relay/relay_task.go RelayTaskSubmit (non-200 upstream: TaskErrorWrapper `fail_to_fetch_task`); controller/relay.go RelayTask (defer Billing.Refund)",
        "new-api does not check the source's status: it forwards, and the upstream (OpenAI) refuses a remix of a video that is not completed. new-api relays that refusal with the upstream's status: 400 `{\"code\":\"fail_to_fetch_task\",\"message\":<the upstream's error body>,\"data\":null}`, and refunds the quota it pre-consumed (net charge 0). The mock answers the same 400 for a queued, running, failed or error source and charges nothing. The audit's remark that remix needs no channel selection holds (the origin task's channel is locked).",
        "Same.", Same),
    row("D-TASK-6", "Kling: POST /kling/v1/videos/{text2video|image2video}, GET .../{task_id}", "middleware/kling_adapter.go KlingRequestConvert; relay/channel/task/kling/adaptor.go ValidateRequestAndSetAction, convertToRequestPayload, DoResponse, ParseTaskResult; relay/common/relay_utils.go validatePrompt; relay/relay_task.go videoFetchByIDRespBodyBuilder",
        "JSON; the model is `model_name`, else `model` (missing: 400 as on POST /v1/videos; unknown: as D-VIDEO-2); a blank `prompt` is 400 `{code:\"invalid_request\", message:\"prompt is required\", data:null}`; `duration` (\"5\", \"10\") must be one of the model's (else Kling refuses: 400 `task_failed`, charged nothing); `aspect_ratio` 16:9, 9:16, 1:1 picks the size (the model's default otherwise); an `image` (or `image_tail`) makes the action `generate` (image to video) whatever the path, none `textGenerate`. Charged at submit like a video create. The answer is new-api's own create object, not Kling's envelope: `{id, task_id (both the public task_ id), object:\"video\", model, status:\"queued\", progress:0, created_at}` (older adaptors, before the public ids, showed Kling's id). The fetch (either path, any task of the key's user) is the task envelope of D-TASK-2 with `platform` `50`, status `SUBMITTED` while Kling says `submitted` (then `IN_PROGRESS`, `SUCCESS`, `FAILURE`), and `data` = Kling's own task `{code:0, message, request_id, data:{task_id, task_status, task_status_msg, task_result:{videos:[{id,url,duration}]}, created_at, updated_at}}` (ms). The audit is right that new-api converts nothing back to Kling's format on the wire.",
        "Same.", Same),
    row("D-TASK-7", "Jimeng: POST /jimeng/?Action=...&Version=...", "middleware/jimeng_adapter.go JimengRequestConvert (GetResult: GET /v1/video/generations/<task_id>, relay mode VideoFetchByID); relay/channel/task/jimeng/adaptor.go DoResponse, ParseTaskResult, FetchTask (a new-api upstream is asked `/jimeng/?Action=CVSync2AsyncGetResult` and its answer read as that task); router/video-router.go SetVideoRouter (POST /jimeng/ -> controller.RelayTask); controller/relay.go RelayTask (@009910b9 taskRelayHandler: VideoFetchByID -> relay.RelayTaskFetch)",
        "Before the key: no `Action` is 400 `Action query parameter is required`, a body that is not a JSON object 400 `Invalid request body`, `CVSync2AsyncGetResult` without `task_id` 400 `task_id is required for CVSync2AsyncGetResult` (`/v1` error bodies, new_api_error). `CVSync2AsyncGetResult` answers the task envelope of `task_id` (D-TASK-2, `platform` `51`, `data` = Volcengine's `{code:10000, message:\"Success\", data:{status: in_queue|generating|done, video_url}}`; unknown: D-TASK-3). Any other action submits: `req_key` is the model, `prompt` required (400 `invalid_request`), charged at submit, answered with new-api's create object (as D-TASK-6), not Volcengine's `{code:10000, data:{task_id}}`. `Version` is not read. The audit's caveat holds for the router: the newest one sends POST /jimeng/ to controller.RelayTask, whose newest form has no fetch branch (older ones sent relay mode VideoFetchByID to RelayTaskFetch; forks add RelayTaskOrFetch), so a newest deployment may run GetResult as a submit. new-api means the fetch: its middleware makes GetResult the fetch of `task_id`, and its own Jimeng adaptor reads an upstream new-api's GetResult as that task. So a GetResult answered with another task, in whatever form (a new task, submitted and charged: a create object with another `task_` id) is D-TASK-10's failure; a GetResult refused (a 4xx, such as the submit's `prompt is required`) or answered in another shape of the task asked deviates. The mock answers the fetch.",
        "Same.", Same),
    row("D-TASK-8", "The models of the provider routes", "relay/channel/task/kling/adaptor.go GetModelList; relay/channel/task/jimeng (req_key)",
        "The catalog lists `kling-v2-master` (durations 5 and 10, 1280x720) and `jimeng_vgfm_t2v_l20` (5 s, 1280x720, per request), both video models that POST /v1/videos takes too (new-api routes a model to its channel whatever the route).",
        "Same.", Same),
    row("D-TASK-9", "Kling callback_url", "relay/channel/task/kling/adaptor.go convertToRequestPayload (the client's callback_url and external_task_id are forwarded to Kling, which POSTs there)",
        "new-api forwards the client's `callback_url` to Kling, and Kling POSTs its task object to it when the task ends; new-api itself sends nothing. The mock plays Kling's part: when a Kling task created with a `callback_url` reaches a terminal state on the mock's clock it POSTs Kling's task object (`{task_id, task_status, task_status_msg, task_result, created_at, updated_at}`) once, with a 3 s timeout per attempt, at most 3 attempts 200 ms then 400 ms apart; at most 1000 wait, the last 256 outcomes are kept (MockServer::callbacks) and every outcome is journaled (`POST <path>`, fault text `callback ... delivered|failed|refused`). Only loopback hosts and the `--allow-callbacks-to CIDR|HOST` list receive them; any other URL (or https) is refused, logged and journaled, never contacted. With `--state-file` the callbacks still waiting are part of the state and are sent after a restart; the file is written before each send, so none is sent twice. Polling stays the source of truth: the runner does not judge callbacks.",
        "Same.", Same),
    // The line between failure and deviation on the task surface: what clients
    // depend on with one right answer fails; new-api's forms, statuses and policies deviate.
    row("D-TASK-10", "Task identity: a fetch answers the task asked about", "relay/relay_task.go videoFetchByIDRespBodyBuilder (model.GetByTaskId(userId, taskId)), ResolveOriginTask (a remix's source: GetByTaskId, `task_origin_not_exist` before any charge); middleware/jimeng_adapter.go JimengRequestConvert (GetResult is the fetch of `task_id`); relay/mjproxy_handler.go RelayMidjourneyTask (GetByMJId; TaskFetchByCondition: GetByMJIds(userId, ids))",
        "A failure, on every task family (`/v1/videos`, the unified route, remix, Kling, Jimeng, Midjourney) and on the lists: the record a fetch answers is the task asked for (`task_id`, the Midjourney `id`, the video object's `id`); a remix answers a new task, not its source, and polling that new id answers it; `list-by-condition` lists the task asked for (submitted just before) and no task not asked for. Identity is judged before the form, in whatever form the answer comes (`rules::task::other_task_named`: a public `task_` id other than the one asked at `task_id`, `id`, `data.task_id` or `data.id`): a Jimeng `CVSync2AsyncGetResult` answered with a new task's create object (run as a submit, made and charged, D-TASK-7) fails, not deviates, and so does one after a submit whose own form deviates (Jimeng's `{code:10000, data:{task_id}}`): the task it names is fetched once and judged for identity, the submit's deviation standing otherwise. A remix names its source: accepted (2xx) for a source the target's own fetch says it has no record of (`rules::task::says_no_such_task`, D-TASK-4), it is a task made and charged from nothing the service holds, a failure. Reason: a client that follows another task's record shows or bills the wrong work, and no reasonable deployment differs here: new-api looks every record up by the id asked. `video.poll.id-matches`, `task.unified.envelope`, `task.kling.envelope`, `task.jimeng.submit-and-fetch`, `task.remix.completed`, `task.remix.unknown-source`, `mj.task.lifecycle`, `mj.task.list-by-condition`.",
        "Same.", Same),
    row("D-TASK-11", "Task states never go back", "service/task_polling.go updateVideoSingleTask (only unfinished tasks are polled; the edge into SUCCESS or FAILURE is a compare-and-swap, UpdateWithStatus); controller/midjourney.go UpdateMidjourneyTaskBulk",
        "A failure on every task family: between two fetches of one task its status never goes back (Kling `SUCCESS` then `IN_PROGRESS`, a Midjourney `IN_PROGRESS` then `SUBMITTED`), an ended task never changes, and its progress never decreases (`rules::task::check_envelope_transition`, `rules::video::check_transition`, `rules::midjourney::status_rank`). Reason: clients stop polling at a terminal state and show progress as it comes (the spec: polling stops at completed, failed, error), so a state that goes back is a lie one of the two answers told; no deployment's choice. `video.progress.monotone`, `video.terminal.stable`, and the envelope and lifecycle checks above.",
        "Same.", Same),
    row("D-TASK-12", "A finished task carries its result", "service/task_polling.go updateVideoSingleTask (SUCCESS: progress `100%`, ResultURL set, the proxy URL when the upstream gives none); relay/mjproxy_handler.go coverMidjourneyTaskDto (imageUrl)",
        "A failure: a task envelope at `SUCCESS` shows `\"100%\"` and a non-empty `result_url`; a Midjourney record at `SUCCESS` shows `100%` and an `imageUrl` (`rules::task::RULE_RESULT`, `rules::midjourney::check_result`). Reason: `SUCCESS` tells the client to stop polling and fetch the result; without its URL there is nothing to fetch, and new-api always sets one. The other terminal fields (a `fail_reason`, the times, no `result_url` before the end) stay deviations of D-TASK-2 and D-MJ-4: optional or decided fields. The OpenAI object of `/v1/videos` keeps its own rows: `video_url` is optional in the spec (its content route serves the result), so a completed task without it is D-VIDEO's deviation.",
        "Same.", Same),
    row("D-TASK-13", "Refund of a failed task: kept charge and unbalanced books", "service/task_billing.go RefundTaskQuota (taskAdjustFunding, taskAdjustTokenQuota: the whole task.Quota); model/token.go IncreaseTokenQuota (remain_quota + q, used_quota - q), DecreaseTokenQuota",
        "`task.refund.failed` (Exclusive, the proven mock only: it alone can be asked for a task that fails, the fixture rule `[fail]`) reads the key before the submit, after it and after the failure. Refunded in full (D-ROUTE-5): passes. The whole charge kept (both fields as after the submit): a deviation, because a refund is billing policy the spec does not state (new-api itself refunds a failed video task to the key but a failed Midjourney task only to the wallet, D-MJ-6). A part of the charge, more than the charge, or one field given back without the other: a failure, because a charge and a refund each move `remain_quota` and `used_quota` by the same amount and books that do not balance are wrong under any policy.",
        "Same.", Same),
    row("D-TASK-14", "The forms of the task routes stay deviations", "router/video-router.go; router/relay-router.go registerMjRouterGroup; relay/relay_task.go ResolveOriginTask, videoFetchByIDRespBodyBuilder; relay/mjproxy_handler.go",
        "Deviations, each citing its row, where a deployment has a true choice of form and only there: which error status and body a refusal has (D-TASK-3, D-TASK-4, D-TASK-5, D-MJ-3), the shape of the create object and the envelope of the task asked (D-TASK-1, D-TASK-2, D-TASK-6, D-TASK-7, D-MJ-2, D-MJ-4), optional and decided fields (`fail_reason`, `platform`, the times, `remixed_from_video_id`), the image and upload answers (D-MJ-5, D-MJ-8), and the routes beyond the spec's (D-ROUTE-2). Not a form: an answer about another task in whatever shape (a fetch answered with a new task's create object, a remix answered with its source), and an acceptance where the service's own records call for a refusal (a remix of a source its fetch says does not exist, made and charged): those are D-TASK-10's failures, judged before the form. Reason: the spec names these routes without their payloads (\"not shown\"), and reasonable deployments answer them differently; what clients depend on with one right answer is D-TASK-10 to D-TASK-12 and D-TASK-15.",
        "Same.", Same),
    row("D-TASK-15", "Unrouted paths under a task", "router/video-router.go SetVideoRouter (no wildcard under /v1/videos/:task_id); router/web-router.go NoRoute; controller/relay.go RelayNotFound",
        "`GET /v1/videos/{task_id}/<unknown>` (and under `/content/`) for a task that exists is 404 with a not-found body of D-ROUTE-3, never the poll of `{task_id}`: a failure (`v1.unknown-subpath-404`), as the spec's 404 for a wrong path pins the status. A 404 whose body is not a `/v1` error (`{error:{message, type}}`, D-ROUTE-3's two shapes) deviates, here and in `v1.unknown-path-404`: the spec leaves the body of model-route errors \"not shown\".",
        "Same.", Same),
    // Video platforms behind the unified route (rules::platforms, the mock's
    // tasks/platforms/, checks/platforms.rs).
    row("D-PLAT-1", "The channel picks the platform", "relay/relay_adaptor.go@a05b3643 GetTaskAdaptor, GetTaskPlatform; relay/relay_task.go@14639a76 RelayTaskSubmit (invalid_api_platform, PublicTaskID, X-New-Api-Other-Ratios); relay/channel/task/{vidu,hailuo,doubao,ali}/adaptor.go GetModelList",
        "`POST /v1/video/generations` runs the adaptor of the channel that serves the model to the key's group, by the channel's type, never by the model's name: the fixture `channels.json` lists the deployment's channels (`{id, type, name, models, model_mapping, group}`; by default one channel per platform with its adaptor's default models, group `default`). Types 52 Vidu, 35 MiniMax, 54 Doubao video, 17 Ali (D-PLAT-8), 24 Gemini and 41 Vertex (D-PLAT-20 to D-PLAT-22) are served as below; 1, 55, 50 and 51 run as OpenAI-video tasks (D-TASK-1); a channel of any other type answers 400 `{code:\"invalid_api_platform\", message:\"invalid api platform: <type>\", data:null}`, charged nothing. A model no channel lists runs as an OpenAI-video task, as before. The model must be in the catalog (else D-VIDEO-2's refusal); a blank prompt is 400 `{code:\"invalid_request\", message:\"prompt is required\", data:null}`. Charged at submit (the price times the adaptor's ratios, D-PLAT-9; refunded if the task fails). The answer is new-api's common create object (`{id, task_id (the public task_ id), object:\"video\", model:<origin model>, status:\"queued\", progress:0, created_at}`) with `X-New-Api-Other-Ratios`, the adaptor's billing ratios (`{}` for Vidu and MiniMax, per call; Doubao's `video_input` and Ali's are D-PLAT-9's and D-PLAT-8's, Gemini's and Vertex's `seconds` D-PLAT-20's). `model_mapping` gives the upstream model (`properties.upstream_model_name`, and the model inside `data`). `relay_adaptor.go@053f9ded` also sends types 45 and VolcAdapter to Doubao; that version is marked (fork?) in the audit and is not followed (45 answers invalid_api_platform here).",
        "Same.", Same),
    row("D-PLAT-2", "Vidu (channel type 52)", "relay/channel/task/vidu/adaptor.go@0830dc7b ValidateRequestAndSetAction, convertToRequestPayload, DoResponse, ParseTaskResult, ConvertToOpenAIVideo (@fcd21b76 older)",
        "Reads `images` (1: `generate`, 2: `firstTailGenerate`, more: `referenceGenerate`, none: `textGenerate`; `metadata.action` first), `duration` (default 5), `size` as the resolution (default `1080p`), `metadata` over them. The record: `platform` `52`; Vidu's `state` `created`/`queueing` are `SUBMITTED` 10%, `processing` `IN_PROGRESS` 30%, `success` `SUCCESS` 100% with `result_url` = `creations[0].url`, `failed` `FAILURE` 100% with `fail_reason` = `err_code`; `data` = Vidu's task `{id, state, err_code, credits, payload, creations:[{id, url, cover_url}]}`. The mock's upstream shows `queueing`, `processing`, `success`, `failed`. Versions: both read versions share this core; `@0830dc7b` (the newest, marked (fork?) for its per-second billing) answers the public task id, `@fcd21b76` Vidu's own id: the public id is followed, as relay_task.go@14639a76 makes it once for every adaptor; per-second billing exists only with an administrator's price rules and is not modelled (per call, D-PLAT-9).",
        "Same.", Same),
    row("D-PLAT-3", "MiniMax / Hailuo (channel type 35)", "relay/channel/task/hailuo/adaptor.go@14639a76 convertToRequestPayload, DoResponse, ParseTaskResult, ConvertToOpenAIVideo; constants.go@5cb8f6a2; models.go@5cb8f6a2",
        "Reads `duration` (default 6) and the resolution from `size` (`1080`, `768`, `720`, `512` in it; else 720P); top-level `images` are not read, the action is `generate`. The record: `platform` `35`; MiniMax's `status` `Preparing`/`Queueing` are `IN_PROGRESS` 30% (there is no queued state: a Hailuo task shows `in_progress` from its first fetch), `Processing` `IN_PROGRESS` 50%, `Success` `SUCCESS` 100% with the file's `download_url`, `Fail` `FAILURE` 100% with `status_msg` (else `task failed`), any other `IN_PROGRESS` 30%; `data` = MiniMax's `{task_id, status, file_id, video_width, video_height, base_resp:{status_code, status_msg}}` plus, on success, the retrieved `file:{file_id, download_url}`. The mock's upstream shows `Queueing`, `Processing`, `Success`, `Fail` (`status_code` 1026 on a failure).",
        "Same.", Same),
    row("D-PLAT-4", "Doubao Seedance (channel type 54)", "relay/channel/task/doubao/adaptor.go@035aa734 (fork?) and @c37eb33e; constants.go@2f95f708",
        "Reads `duration`, else `seconds` (default 5), and `metadata` (`resolution`, `duration`, ...); the action is `generate`. The record: `platform` `54`; Ark's `status` `pending`/`queued` are `QUEUED` 10%, `processing`/`running` `IN_PROGRESS` 50%, `succeeded` `SUCCESS` 100% with `content.video_url`, `failed` `FAILURE` 100% with `error.message`, any other `IN_PROGRESS` 30%; `data` = Ark's `{id, model, status, content:{video_url}, seed, resolution, duration, ratio, framespersecond, service_tier, usage, error?, created_at, updated_at}`. Versions: the audit marks `@035aa734` (fork?) and `@c37eb33e` answered the upstream id and mapped only `processing`; `@035aa734` is followed for the submit answer (the common create object, as relay_task.go@14639a76 builds it for every adaptor) and the status map; the mock's upstream shows `queued` and `processing`, which both versions map alike, and `running` only when chosen. `EstimateBilling`'s `video_input` ratio and the charge are D-PLAT-9's.",
        "Same.", Same),
    row("D-PLAT-5", "`GET /v1/videos/{id}` of a platform's task", "relay/relay_task.go@14639a76 videoFetchByIDRespBodyBuilder; relay/channel/task/vidu ConvertToOpenAIVideo; relay/channel/task/hailuo ConvertToOpenAIVideo (model/task.go@01d7dcfd ToOpenAIVideo); relay/channel/task/doubao ConvertToOpenAIVideo",
        "The adaptor's conversion: `{id, object:\"video\", status (QUEUED/SUBMITTED queued, IN_PROGRESS in_progress, SUCCESS completed, FAILURE failed), progress, created_at, completed_at (the record's updated_at), metadata.url}`, `error:{message, code}` when failed. new-api's Vidu conversion sets no `model` (and `metadata` only with a URL), MiniMax's and Doubao's do; Doubao adds `task_id` and always `metadata.url`. The mock shows `model` on every platform's object, in both profiles: the OpenAPI document and the SDKs require the video object's `model`, and a client that reads it must not break on one platform; the runner does not judge its presence. Another task's id fails (D-TASK-10, `task.platform.*`).",
        "Same.", Same),
    row("D-PLAT-6", "Driving a platform's task", "service/task_polling.go@14639a76 updateVideoSingleTask (the poller stores what the adaptor parses)",
        "The mock: a platform's task follows the video clock (D-VIDEO; queued, running, then the outcome), the fixture's outcome rules and `POST /__mock/videos/{id}/outcome` choose a failure and its reason (the reason is Vidu's `err_code`, MiniMax's `status_msg`, Ark's `error.message`), and `POST /__mock/videos/{id}/upstream {\"status\": word}` chooses which of the upstream's states that map to the task's status now the record shows (Vidu `created`/`queueing`, MiniMax `Preparing`/`Queueing`, Ark `pending`/`queued` and `processing`/`running`); a word of another status is 400 naming the choices. The choice is kept in the state dump.",
        "Same.", Same),
    row("D-PLAT-7", "A record whose status its own data contradicts", "service/task_polling.go@14639a76 updateVideoSingleTask (status, progress and data are written from one upstream answer); the adaptors' ParseTaskResult",
        "A failure (`task.platform.*`): the record's `status` is what the platform's adaptor maps the upstream state in its own `data` to (a `data` Vidu `state` `success` with `IN_PROGRESS`, or Hailuo `Queueing` shown `QUEUED`). Reason: new-api writes both from the same upstream answer in one poll, in every version read, so a record contradicting itself is wrong under any version, and clients reading either field would disagree. A `platform` other than the channel type of the platform whose default model was asked for, a missing `platform`, or a progress other than the adaptor's for that state deviate, citing the platform's row (a deployment may route a model elsewhere; adaptor versions differ in progress).",
        "Same.", Same),
    // Ali Wan (rules::platforms::ali, the mock's tasks/platforms/ali.rs).
    row("D-PLAT-8", "Ali Wan (channel type 17)", "relay/channel/task/ali/adaptor.go@9ba13cd0 (QuantumNous/new-api) ValidateRequestAndSetAction, convertToAliRequest, EstimateBilling, ProcessAliOtherRatios, DoResponse, ParseTaskResult, ConvertToOpenAIVideo, convertAliStatus (@61589f6c, @075be928 older); constants.go@10d43aa5 ModelList (per the audit)",
        "Channel type 17 serves the Wan models of the adaptor's `ModelList` (`wan2.7-t2v`, `wan2.7-i2v`, `wan2.5-i2v-preview`, `wan2.2-i2v-flash`, `wan2.2-i2v-plus`, `wanx2.1-i2v-plus`, `wanx2.1-i2v-turbo`); the HappyHorse models are D-PLAT-11's; Bailian-Kling is not served. Reads `images`/`image`/`input_reference` (`generate` with one, else `textGenerate`), `duration`, else `seconds`, else 5, `size` (`W*H` a DashScope size, else a resolution word upper-cased with `P`), the defaults by the client's model (t2v `wan2.5`/`wan2.2` `1920*1080`, other t2v `1280*720`; i2v `wan2.6`/`wan2.5`/`wan2.2-i2v-plus` 1080P, else 720P) and `metadata.parameters` over them. The submit answers the common create object with `status` from DashScope's own `output.task_status` through `convertAliStatus` (`PENDING` `queued`, `RUNNING` `in_progress`, another word `unknown`; the mock's upstream answers `PENDING`) and `X-New-Api-Other-Ratios` = `EstimateBilling`: `{\"seconds\": <duration>}` plus `resolution-<R>` where `ProcessAliOtherRatios`' table has the upstream model (e.g. `wan2.5-i2v-preview` 480P 1, 720P 2, 1080P 3.33); the mock charges the catalog price of those seconds times that ratio. The record: `platform` `17`; `task_status` `PENDING` `QUEUED` 20%, `RUNNING` `IN_PROGRESS` 30%, `SUCCEEDED` `SUCCESS` 100% with `output.video_url`, `FAILED`/`CANCELED`/`UNKNOWN` `FAILURE` 100% with the reason `task failed, code: <C> , message: <M>` from `output` (top-level `message` first, else `task failed`), any other `QUEUED` 20%; `data` = DashScope's `{request_id, output:{task_id, task_status, submit_time, scheduled_time?, end_time?, video_url?, code?, message?}, usage:{duration, video_count, SR}}`. `/v1/videos/{id}`: `status` from the stored `task_status` (convertAliStatus, not the row), `model`, `progress`, `created_at`, `completed_at`, `metadata.url` always (empty until it succeeds), `error:{code, message}` from the top-level `code`/`message`, else `output`'s, whenever there is a code (a failure, or DashScope's error answer to a poll, D-PLAT-11). Versions: `@9ba13cd0` is followed (the public task id as `id`; `@61589f6c`/`@075be928` answered Ali's own id and put no `progress` but `orig_prompt`/`actual_prompt`/`duration`/`resolution` in `metadata`). Not settled from the code read, following the audit: the progress of each state (ParseTaskResult sets none; the audit's 20%/30% are followed), the ModelList (constants.go@10d43aa5 as the audit lists it; the indexed copy is @61589f6c). Not modelled: a t2v model with a size lacking `*` (500 `build_request_failed`), a metadata `model` change (`can't change model with metadata`). DashScope's own refusals (`fail_to_fetch_task`, `ali_api_error`, `invalid_response`, and its error answers to polls) are D-PLAT-11's.",
        "Same.", Same),
    // The platforms' billing and data shapes (rules::platforms,
    // rules::quota::task_quota, checks/platforms.rs). D-PLAT-9..19 are this block's.
    row("D-PLAT-9", "A platform's billing ratios and charge", "relay/relay_task.go@14639a76 RelayTaskSubmit (EstimateBilling's OtherRatios multiplied into the quota, then X-New-Api-Other-Ratios); relay/channel/task/vidu/adaptor.go@0830dc7b EstimateBilling, SecondBillingRatios (QuantumNous/new-api); relay/channel/task/hailuo/adaptor.go@14639a76 (BaseBilling); relay/channel/task/doubao/adaptor.go@035aa734 EstimateBilling, hasVideoInMetadata; constants.go@2f95f708 (the 2.0 price table); relay/channel/task/ali/adaptor.go EstimateBilling, ProcessAliOtherRatios",
        "Each submit's `X-New-Api-Other-Ratios` is its adaptor's `EstimateBilling` (`rules::platforms::Platform::ratios`), and the quota charged (the record's `quota`) is the catalog price times the group ratio times every one of those ratios (`rules::quota::task_quota`: a `seconds` ratio is the usage's seconds for a price per second and multiplies a price per call, as new-api multiplies its model price). Vidu: `{}`, per call. `@0830dc7b`'s EstimateBilling always returns nil; its per-second price comes only from an administrator's `billing_setting_video.video_price_rules` (SecondBillingRatios, none by default; the audit marks this version (fork?)), so a default deployment bills Vidu per call, as the mock does; the configured path is not modelled. MiniMax: `{}`, per call (BaseBilling). Doubao: `{\"video_input\": r}` where `r` is `GetVideoInputRatio(origin model, metadata.resolution, a video input)` and is not 1: the tier's price over the model's 480p/720p-without-video price, for `doubao-seedance-2-0-260128` (46; 28 with a video input, 51 at 1080p, 31 at 1080p with one) and `-2-0-fast-260128` (37; 22 with one; no 1080p tier, so 1); a video input is a `metadata.content` item of type `video_url` (or with a `video_url` field); other models `{}`. `GetVideoInputRatio`'s body was not read in the version `@035aa734` calls (three arguments); the tiers are constants.go@2f95f708's table, whose own `ResolveBillingRatios` splits the same total into `resolution` and `video_input` (not followed: the adaptor read names only `video_input`). The settlement of a Doubao success from `usage.total_tokens` (service/task_polling.go settleTaskBillingOnComplete) is not modelled: the mock keeps the submit's charge. Ali: D-PLAT-8's `seconds` and `resolution-<R>`. The runner (`task.platform.*`): a missing header or one that is not a JSON object deviates (D-PLAT-1); ratios other than the adaptor's for the request it sent deviate (a deployment may configure other ratio tables, e.g. Ali's VideoResolutionRatio setting, or map the model to another upstream); a first, not yet terminal record whose `quota` is not the catalog price times the announced ratios at the known group ratio fails: the charge contradicts the service's own billing statement of the same request (not judged when the group ratio is unknown, nor once the task ended: a success may be settled again, a failure refunded). Gemini and Vertex (`task.platform.gemini`/`vertex`, D-PLAT-20 to D-PLAT-22): the header and its ratios are judged as above at the first real-time answer; the charge is not, their real-time answer shows no `quota`.",
        "Same.", Same),
    row("D-PLAT-10", "A platform's `data` is its upstream's own task", "service/task_polling.go@14639a76 updateVideoSingleTask (data = the last upstream body); the adaptors' ParseTaskResult and ConvertToOpenAIVideo (the fields they read)",
        "The record's `data` of a platform's task matches the schema of its upstream's task (`schemas/vidu-task-data.json`, `hailuo-task-data.json`, `doubao-task-data.json`, `ali-task-data.json`, declared in the OpenAPI document): required are the fields new-api's adaptor reads to make the record (Vidu `state`, `creations`; MiniMax `task_id`, `status`, `base_resp`; Ark `id`, `status`, `content.video_url`; DashScope `request_id`, `output.task_id`, `output.task_status`), and the types of the other fields the adaptor's struct reads; any other upstream field may appear or not. A `data` that is not that shape fails (`task.platform.*`, `rules::platforms::RULE_DATA_SHAPE`, judged before the status map): new-api stores the upstream's answer as it came and reads these fields from it, so a record whose `data` lacks them could not have been made from it, and a client that reads `data` as the platform's task breaks. Kling's and Jimeng's tasks run as OpenAI-video tasks here (D-PLAT-1), whose `data` is the video object (`video-task`), so they take no schema of their own.",
        "Same.", Same),
    row("D-PLAT-11", "Ali's HappyHorse and Bailian-Kling models; DashScope's refusals", "relay/channel/task/ali/constants.go@10d43aa5 ModelList; relay/channel/task/ali/adaptor.go (QuantumNous/new-api, the version with buildWan27Request) validateAndInferAliAction, inferHappyHorseAction, isHappyHorseModel, isBailianKlingModel, convertToAliRequest, EstimateBilling, DoResponse, FetchTask, ParseTaskResult, ConvertToOpenAIVideo; relay/relay_task.go RelayTaskSubmit (an upstream non-200: `fail_to_fetch_task`); controller/relay.go RelayTask (the task error as `c.JSON(status, err)`, a 429's message replaced); service/task_polling.go updateVideoSingleTask (the poll's body read whatever its status) and service's TaskErrorWrapper (masking); happyhorse.go@13aa481a buildHappyHorseRequest; kling_bailian.go@e29744ca buildKlingRequest",
        "Channel type 17's default models are constants.go@10d43aa5's `ModelList` in its order: `happyhorse-1.1-{t2v,i2v,r2v}`, `happyhorse-1.0-{t2v,i2v,r2v,video-edit}`, then the Wan models (D-PLAT-8). A HappyHorse model is served once the deployment's catalog lists it (the embedded catalog lists `wan2.7-t2v` only). Its validation is `inferHappyHorseAction`'s, each refusal 400 `{code:\"invalid_request\", message, data:null}`: t2v needs a prompt (`textGenerate`); i2v exactly one image (`images`, else `image`/`input_reference`; no prompt needed; `generate`; else `happyhorse i2v requires exactly 1 first-frame image, got N`); r2v a prompt and 1 to 9 images (`referenceGenerate`; `happyhorse r2v requires 1-9 reference images, got N`); video-edit a prompt, exactly one of `videos` (`happyhorse video-edit requires exactly 1 video, got N`) and at most 5 images (`remixGenerate`). Its ratios: `seconds` (duration, else `seconds`, else 5) and no `resolution-<R>` (ProcessAliOtherRatios' table has no HappyHorse model); a video edit carries no duration (buildHappyHorseRequest sets none), so `{\"seconds\": 0}`, and RelayTaskSubmit multiplies that 0 into the quota: charged 0, reproduced as read. The rendered resolution defaults to 1080P. Its task, record and status map are DashScope's (D-PLAT-8). Not modelled: Bailian-Kling (`kling/kling-v3-*` upstream models, reached only by a channel's model mapping; not in ModelList); the Wan 2.7 request checks of `buildWan27Request`/`validateWan27Parameters` (500 `build_request_failed`); and the per-second price rules of `billing_setting` that the stored `second_billing_test.go` exercises (an administrator's configuration, as Vidu's, D-PLAT-9). DashScope's refusals, as the code read relays them (the audit's `fail_to_fetch_task`/`ali_api_error` are the submit's; new-api's poller answers the client no upstream error): (1) the submit, after validation, the charge and the ratios, gets DashScope's answer: a non-200 is `{code:\"fail_to_fetch_task\", message:<DashScope's body as sent>, data:null}` with DashScope's status (a 429's message replaced by `当前分组上游负载已饱和，请稍后再试`); a 200 with a `code` is `ali_api_error` `<code>: <message>` answered **200**; a 200 without `output.task_id` is 500 `invalid_response` `task_id is empty`; the charge is given back, no task is made, no `X-New-Api-Other-Ratios` is sent (`rules::platforms::ali::submit_refusal`). One attempt is modelled (controller/relay.go shouldRetryTaskRelay retries a 429 or a 5xx other than 504/524 on another channel while RetryTimes allows); a message naming `post`, `dial` or `http` is masked by TaskErrorWrapper and not modelled. The mock: an upstream fault, `POST /__mock/faults {\"route\":\"POST /v1/video/generations\",\"kind\":\"upstream\",\"status\":400,\"body\":{...}}`, fired by an Ali submit only (the other adaptors' DoResponse is not modelled; a fault new-api would accept or mask is refused, 400). (2) A poll DashScope answers with an error body (a `code`, no `output.task_status`), whatever its HTTP status, is stored as `data`; ParseTaskResult maps the missing state to QUEUED and the record shows QUEUED 20% (even after IN_PROGRESS) until DashScope answers again, and `/v1/videos/{id}` `status` `unknown` with `error:{code, message}` (`rules::platforms::ali::fetch_refusal`). The mock: `POST /__mock/videos/{id}/upstream {\"status\":500,\"body\":{...}}` on an Ali task not ended (409 otherwise), until the task ends or a state word is chosen; kept in the state dump. A body that is not JSON leaves the task unchanged in new-api (ParseTaskResult fails) and is refused. The runner's `task.platform.ali` skips (not observed, with the exchange) a submit refused in either form and a record showing such an error as new-api stores it: the upstream's failure, not the deployment's bug.",
        "Same.", Same),
    // Gemini and Vertex Veo (rules::platforms::{veo, gemini, vertex}, the mock's
    // tasks/platforms/{veo, gemini, vertex}.rs and routes/platform_veo.rs, checks/platforms_veo.rs).
    row("D-PLAT-20", "Gemini Veo (channel type 24)", "relay/channel/task/gemini/adaptor.go@14639a76 (QuantumNous/new-api) ValidateRequestAndSetAction, BuildRequestBody, DoResponse, GetModelList, ParseTaskResult, ConvertToOpenAIVideo, extractModelFromOperationName; relay/channel/task/gemini/billing.go (ResolveVeoDuration, SizeToVeoResolution, SizeToVeoAspectRatio; the uncapped version, e.g. @3d382714); dto.go@0fc1489e (OperationError); service/task_polling.go redactVideoResponseBody; controller/video_proxy.go@05393ffc VideoProxy, videoProxyError; controller/video_proxy_gemini.go@10a80865 getGeminiVideoURL (@22ad9442 the same with i18n messages)",
        "Channel type 24 serves `veo-3.0-generate-001`, `veo-3.1-generate-preview`, `veo-3.1-fast-generate-preview` (GetModelList; the catalog fixture lists `veo-3.1-fast-generate-preview`, and the older catalog model `veo-3.1-fast`, which no default channel lists, still runs as an OpenAI-video task: map it to a type-24 channel in `channels.json` to run it as Gemini). Reads the Veo parameters from `metadata` (`durationSeconds`, `resolution`, `aspectRatio`, `negativePrompt`, `personGeneration`), then `duration`/`seconds` and `size` (SizeToVeo*); the action is always `textGenerate` (@14639a76 reads no image). The submit answers the common create object; `X-New-Api-Other-Ratios` is `{\"seconds\": ResolveVeoDuration(metadata.durationSeconds, duration, seconds)}` (default 8), and the mock charges the catalog price of those seconds. The upstream task is the Gemini API's operation `{name:\"models/<upstream model>/operations/<id>\", done?, response:{\"@type\", generateVideoResponse:{generatedSamples:[{video:{uri}}]}}, error?:{code, message, status}}` kept as `data` (base64 video fields removed or cut to 256 characters, as redactVideoResponseBody does); its state is read from `error.message` (FAILURE 100%, the reason that message), then `done` (false or absent: IN_PROGRESS 50%, true: SUCCESS 100%): there is no queued state. `result_url` is new-api's proxy URL `<server>/v1/videos/<task_id>/content`, which downloads the operation's `uri` with the key stored on the task (InitTask); the mock serves its MP4 there. The content route's errors are `{error:{message, type:\"server_error\"}}` (videoProxyError), in both profiles, each reached through `POST /__mock/videos/{id}/upstream` once the task succeeded: a task stored without its key 500 `API key not stored for task` (the condition `no_key`, checked before any URL); getGeminiVideoURL reads the `uri` from the stored operation first, then from a new fetch, so an operation done without a sample (the safety filter: `generateVideoResponse:{raiMediaFilteredCount, raiMediaFilteredReasons}`, SUCCESS 100% by the map; the state `filtered`) is 502 `Failed to resolve Gemini video URL`, while an upstream that is down (the condition `unreachable`) leaves the stored `uri` resolved and fails its download: 502 `Failed to fetch video content`. `/v1/videos/{id}`: `{id, object, model (parsed from the operation name, default `veo-3.0-generate-001`), status, progress, created_at, completed_at}` with `completed_at` = `finish_time`, else `updated_at`; no `metadata`, no `error`. Versions: @14639a76 has no EstimateBilling (BaseBilling: `{}`); the later versions indexed under the same name share Veo's billing with Vertex and add a `resolution` ratio (1 but at 4k) and newer models (`veo-3.1-lite-generate-preview`, `gemini-omni-flash-preview`; fork? unsettled): the `seconds` ratio of Vertex@0fc1489e is followed for both, the `resolution` ratio is not modelled. Not modelled: a blank operation name at submit (500 `invalid_response`, `missing operation name`: a submit refusal, with no task for the control API to name), a download answered with another status than 200/206 (502 `Upstream service returned status N`).",
        "Same.", Same),
    row("D-PLAT-21", "Vertex AI Veo (channel type 41)", "relay/channel/task/vertex/adaptor.go@0fc1489e (QuantumNous/new-api) BuildRequestBody, EstimateBilling, DoResponse, GetModelList, ParseTaskResult, ConvertToOpenAIVideo; relay/channel/task/gemini/image.go ParseImageInput (indexed copy from a fork, warjiang/new-api imports); controller/video_proxy.go@05393ffc VideoProxy; controller/video_proxy_gemini.go@10a80865 getVertexVideoURL, getVertexTaskKey (a non-proxy result URL, then the data's video, then a new fetch)",
        "Channel type 41 serves Gemini's three models and `veo-3.0-fast-generate-001` (the catalog fixture lists it; the shared models go to the first channel listing them, Gemini's by default). Reads as D-PLAT-20 and `images[0]` (a `data:` URI with a payload or standard base64: `generate`; a URL is not read, `textGenerate`). Billing as D-PLAT-20: `{\"seconds\": N}`. The upstream task is Vertex's `fetchPredictOperation` answer `{name:\"projects/<p>/locations/<r>/publishers/google/models/<m>/operations/<id>\", done?, response:{\"@type\", raiMediaFilteredCount, videos:[{mimeType}]}, error?}`, `bytesBase64Encoded` removed as new-api stores it; the same state and status map as D-PLAT-20. The poller stores the proxy URL as `result_url` (the video is a `data:` URL); a real-time fetch that first sees success keeps the `data:` URL in `data` and stores none, so its real-time answer's `url` is empty (D-PLAT-22); the content route serves the video from `data` or a new fetch (getVertexVideoURL), the mock its MP4. `/v1/videos/{id}`: as D-PLAT-20 with `completed_at` = `updated_at`, and `metadata.url` only for a `data:` result URL, which a stored task never has. A stored task's video always needs that new fetch (its result URL is the proxy's own, its `data` has no base64), so an upstream that is down (the condition `unreachable`) or an operation done without a video (the state `filtered`: `raiMediaFilteredCount`, `raiMediaFilteredReasons`, no `videos`; SUCCESS 100%) answers 502 `{error:{message:\"Failed to resolve Vertex video URL\", type:\"server_error\"}}`, in both profiles; there is no `no_key` (getVertexTaskKey falls back to the channel's key). Not modelled: the service-account key and token exchange, the region in the URL.",
        "Same.", Same),
    row("D-PLAT-22", "The real-time fetch of Gemini and Vertex tasks", "relay/relay_task.go@14639a76 videoFetchByIDRespBodyBuilder, tryRealtimeFetch, detectVideoFormat, mapTaskStatusToSimple",
        "Every `GET /v1/video/generations/{task_id}` of a Gemini or Vertex task first asks the upstream and saves a change of status, progress or result URL (not `data`, not `fail_reason`), then answers `{code:\"success\", message:\"\", data:{error:null, format:\"mp4\" (or the video's MIME type), metadata:null, status, task_id, url}}` with `status` `succeeded`, `failed`, `queued` (QUEUED, SUBMITTED) or `processing`, and `url` the stored result URL (a failure's `fail_reason` on an old row; empty for a failure the real-time fetch saw first). If that upstream call fails, the record answers as on every other platform (D-TASK-2). `/v1/videos/{id}` asks too and then converts the saved task. The mock's upstream is its clock, so a fetch shows the state at the mock's now in both profiles; `POST /__mock/videos/{id}/upstream {\"status\":\"unreachable\"}` makes the real-time fetch fail (the record then answers, `data` the operation as the poller stores it; the content route fails as D-PLAT-20/21 say); `unreachable` and Gemini's `no_key` are conditions kept beside the chosen state (`running`, `done`, `filtered`, `error`), so a filtered operation's record can be shown, and choosing a state clears them; all kept in the state dump. The mock's other platforms also show the clock's state at each fetch (it models no 15 s polling delay), so the difference the mock shows is the answer's form. `task.platform.gemini`/`vertex` follow the real-time answer: another task, a status going back, or a `succeeded` task whose content is no MP4 fails; the record instead is judged by D-PLAT-7 (a contradiction fails) and then deviates citing this row: new-api itself answers the record whenever the upstream call fails, so a deployment updating only on its polling loop is a choice the contract leaves, not a wrong answer; a real-time `succeeded` without `url` is not judged (Vertex, D-PLAT-21); a content route answering new-api's 502 for a failing upstream (`Failed to resolve Gemini|Vertex video URL`, `Failed to fetch video content`, `Upstream service returned status N`, type `server_error`) is not observed, with that cause (the upstream failed it, not the deployment), and its 500 `API key not stored for task` deviates citing the platform's row (a version that keeps no key on the task). Not modelled: a failure first seen by the real-time fetch is not refunded by new-api@14639a76 (the poller skips ended rows); the mock refunds every failed task (D-TASK-13).",
        "Same.", Same),
    // The plugin era's platform facts (rules::platforms::PluginFacts).
    row("D-PLAT-23", "The video platforms' facts in the plugin era",
        "plugins/tasks/doubao/plugin.js@2f6bf06b (meta.models, meta.channelTypes [54, 45], parseTaskResult, videoInputRatio, extractUsage billing_ratios); plugins/tasks/alibaba/plugin.js@2f6bf06b, plugins/tasks/hailuo/plugin.js@2f6bf06b (meta.models); plugins/tasks/google/plugin.js@b30dbffe, plugins/tasks/vertex-ai/plugin.js@b30dbffe (decodeRequest `seconds must be one of 4, 6, or 8`); plugins/tasks/vidu/plugin.js@2f6bf06b",
        "The adaptors' facts (D-PLAT-1 to D-PLAT-22): `documented` plays the Go adaptors' era.",
        "In the plugin era (the `new-api` profile; `new-api-adaptors` keeps D-PLAT-1 to D-PLAT-22 as they are) each platform's description carries what its plugin changed, and the mock and the runner read the era's facts. Doubao: channel types 54 and 45 (a type-45 channel runs Doubao, its tasks' `platform` \"45\"; 45 stays `invalid_api_platform` in the adaptors' era); default models add `doubao-seedance-2-0-mini-260615` and `doubao-seedance-2-5-260628`; `expired` and `cancelled` are FAILURE 100% like `failed` (the adaptors' era maps them as any other state, IN_PROGRESS 30%); the submit's `X-New-Api-Other-Ratios` is `{\"video_input_ratio\": r}` (not `video_input`) with the plugin's `videoInputRatio` of the client's model, `metadata.resolution` and a video in `metadata.content`: 2-0 1 (28/46 with a video), 1080p 51/46 (31/46), 4k 26/46 (16/46); 2-0-fast 22/37 with a video; 2-0-mini 14/23 with a video; 2-5 1080p 11.7/10.7 (7.0/10.7), else 1 (42/70); none when r is 1 (`rules::platforms::doubao::plugin_ratios`). Ali's default models are the plugin's (no HappyHorse; `wan2.5-t2v-preview` added) and Hailuo's drop `MiniMax-H3`; a default channel serves both eras' models (a channel's models are its own list), so the lists change only what the runner looks for in the catalog. Gemini and Vertex: a duration (`metadata.durationSeconds`, `duration`, `seconds`; 8 when none) other than 4, 6 or 8 is refused 400 `plugin_request_invalid` `seconds must be one of 4, 6, or 8` (D-ERA-4's envelope), on the unified route too (where `decodeRequest` runs for a pinned plugin endpoint: medium), charged nothing; the runner's `task.platform.gemini`/`vertex` first send 5 seconds, which must be answered 400 with a plugin's refusal (anything else deviates citing this row), then submit 8 seconds. Vidu: no fact changed here (its decoder, actions and render: D-ERA-8 to D-ERA-10, which hold the renamed actions, the JSON-only decoders and the renders the plugins own). Not modelled: Gemini's `veo-3.0-fast-generate-001` (it stays Vertex's by default, the model both list), Kling, Jimeng and Suno; the native Doubao and Ali routes: D-ERA-15. The runner judges each record by its era's status map and channel types (`rules::platform_record::check_record_in`) and the submit's ratios by its era's; a Doubao record showing `expired` while IN_PROGRESS 30% fails in the plugin era (`task.status_map`) and passes in the adaptors'.",
        Same),
    // Model lists in other clients' shapes
    row("D-MODELS-1", "GET /v1/models for Anthropic's clients", "router/relay-router.go@01f6839b SetRelayRouter; controller/model.go@053f9ded ListModels; dto/pricing.go AnthropicModel; middleware/auth.go TokenAuth (x-api-key on /v1/models)",
        "With `x-api-key` and `anthropic-version` both non-empty (the key read from `x-api-key`), `GET /v1/models` answers the key's models of the OpenAI list, in its order, as `{data:[{id, created_at, display_name, type:\"model\"}], first_id, has_more:false, last_id}`: `created_at` the RFC 3339 UTC time of the model's `created`, `display_name` the id (`rules::model_lists`). Both profiles (the spec does not speak of other clients). `models.anthropic-list` (a failure: a list that disagrees with the OpenAI list of the same key, or an item that disagrees with its model, is the service contradicting itself; a target answering the OpenAI shape to these headers is a deviation citing this row).",
        "Same.", Same),
    row("D-MODELS-2", "Anthropic list of no models; Gemini credentials on /v1/models", "controller/model.go@053f9ded ListModels (`useranthropicModels[0]`), RetrieveModel; router/relay-router.go@01f6839b",
        "An empty Anthropic list answers `first_id` and `last_id` `\"\"` (the guarded versions of ListModels; @053f9ded indexes element 0 and panics, recovered as a 500). `x-goog-api-key` or `?key=` on `GET /v1/models` (without the Anthropic pair) is new-api's `RetrieveModel` of the empty id: HTTP 200 `{error:{message:\"The model '' does not exist\", type:\"invalid_request_error\", param:\"model\", code:\"model_not_found\"}}`, reproduced in both profiles. The runner does not judge either.",
        "Same.", Same),
    row("D-MODELS-3", "GET /v1beta/models (Gemini's list)", "router/relay-router.go@01f6839b SetRelayRouter (geminiRouter); controller/model.go@053f9ded ListModels(Gemini); dto/pricing.go GeminiModel; middleware/auth.go TokenAuth (x-goog-api-key, ?key= on /v1beta/models)",
        "The key from `x-goog-api-key`, else `?key=`, else `Authorization`; refused as on `/v1/*`. Answers `{models:[...], nextPageToken:null}`, one per model of the OpenAI list for the same key, in its order: `name` and `displayName` the bare id (no `models/` prefix, unlike Google's API) and every other field of dto.GeminiModel null. `models.gemini-list` (a failure when it disagrees with the OpenAI list; a `models/` prefix is a deviation citing this row, as Google's own clients expect it).",
        "Same.", Same),
    // The two eras of new-api's task layer (rules::era, the runner's run/era.rs).
    row("D-ERA-1", "Which era a target runs, and how the runner tells it",
        "QuantumNous/new-api PR #7076 (merged 2026-08-29: task adaptors replaced by JS plugins); issues #6358 (v1.0.0-rc.21, 2026-07-20, pre-plugin), #7194 (v1.0.0-rc.30, 2026-09-03: the plugin artifacts route; \"rc.24\" still the adaptors'), #7251 (v1.0.0-rc.34, 2026-09-07, plugins); controller/misc.go GetStatus `version`; pkg/jsplugin/routing.go@2f6bf06b; middleware/cache.go@823e263",
        "The spec's letter, which is the adaptor era's wherever the two differ: `documented` has no era (the mock reports `adaptors`).",
        "Two named profiles: `new-api` plays the task plugins, `new-api-adaptors` the Go adaptors (frozen). The runner (`--era auto`, the default) takes the era from the mock's signature; else from `GET /api/status` `data.version` (`v0.*` and `v1.0.0-rc.1` to `rc.24`: adaptors; `rc.30` on and `v1.0.0` on: plugins; rc.25 to rc.29, a dev build's `v0.0.0` or no version: not told); else from the routes only the plugins serve (an unauthenticated `POST /doubao/api/v3/contents/generations/tasks` answered JSON and not 404: plugins) and the plugin era's no-store not-found headers; else the adaptors' (a pre-plugin deployment stays judged as before). `--era plugins|adaptors` overrides. The era and its source are in the terminal notes, the JSON, Markdown and HTML reports.",
        Accepted),
    row("D-ERA-2", "The create answer of POST /v1/videos in the plugin era",
        "controller/relay.go presentTaskSubmission (plugin era; medium: not pinned to a main commit, AUDIT-plugins §2.1); model/task.go ToOpenAIVideo and ToVideoStatus (variants ids 66267507275 and 56744216951)",
        "The task with `task_id` equal to `id` (the spec's letter).",
        "`Task.ToOpenAIVideo()`: no `task_id`, and `completed_at` is the row's `updated_at` on every answer (creation, start or finish time). The status of a just-inserted `NOT_START` row: gatecheck follows the variant that maps it to `queued` (`case TaskStatusNotStart, TaskStatusQueued, TaskStatusSubmitted`); the other variant shows `unknown`, which no client of the spec expects, and which is unpinned: a target that shows it fails `video.create.queued` as before. Judged only under `--expect new-api` in the plugin era: a missing `task_id` is what new-api does; a `task_id` that differs from `id` still fails.",
        Accepted),
    row("D-ERA-3", "GET /v1/videos/{id} in the plugin era: the fields the host owns",
        "relay/channel/task/jsplugin/adaptor.go@60a13c2e TaskAdaptor.ConvertToOpenAIVideo (host overwrites id, object, status, progress, created_at, model, completed_at; `TaskID = \"\"`; every `metadata` key equal to `url` deleted); another variant (id 69497782665) keeps `metadata` (medium)",
        "The documented task object (D-VIDEO-4: `video_url` and `metadata.url` on a completed task).",
        "As the create answer (D-ERA-2): no `task_id`, `completed_at` the last update, and no `metadata.url`: the result is reached only through `GET /v1/videos/{id}/content`. The mock renders its generic tasks so; a platform's own render (the plugin's `protocols.openai_video.render`) is the platform registry's. `video.task.decided-fields` does not ask a plugin-era completed task for `metadata.url`. The platforms' tasks: D-ERA-8.",
        Accepted),
    row("D-ERA-4", "Refusals of POST /v1/videos in the plugin era",
        "relay/channel/task/jsplugin/adaptor.go@60a13c2e ValidateRequestAndSetAction (the host's ValidateBasicTaskRequest runs only when no plugin decoder set `task_request`); plugins/tasks/sora/plugin.js@2f6bf06b buildSubmitRequest (`field prompt is required`); middleware RespondTaskPluginError and controller/relay.go respondTaskSubmissionError, respondTaskError (plugin-era variants, medium)",
        "400 `/v1` error, code `invalid_request` (D-VIDEO-2).",
        "400 with code `plugin_request_invalid` (a plugin's `decodeRequest`; `plugin_usage_invalid` for usage), written as the task error `{\"code\":\"plugin_request_invalid\",\"message\":\"field prompt is required\",\"data\":null}`, not the `/v1` envelope: `respondTaskSubmissionError` lets RespondTaskPluginError render only a pinned native route, so a protocol endpoint falls through to `respondTaskError` (`c.JSON(status, taskErr)`), in every plugin-era controller/relay.go variant read (index ids 57486690064, 70100446523, 71126072179, 61415522694, 69512969735, 68556634383, 68310815121; the same task error as D-TASK-3 at 823e263). The mock writes it so for every platform's refusals (`rules::era::plugin_refusal_body`). The runner fails any status but 400 (`video.create.empty-prompt-400`) and, under `--expect new-api` in the plugin era, deviates citing this row when the code is not a plugin's.",
        Deviation),
    row("D-ERA-5", "The not-found answer's cache headers in the plugin era",
        "controller/relay.go RelayNotFound, plugin-era variants (ids 69512969735, 68556634383; medium); the adaptor era: router/web-router.go SetWebRouter `middleware.Cache()` (middleware/cache.go@823e263: `Cache-Control: max-age=604800` on every path but `/`)",
        "No cache headers required.",
        "The plugin era's `RelayNotFound` sends `Cache-Control: no-store, no-cache, must-revalidate, private, max-age=0`, `Pragma: no-cache`, `Expires: 0`, body unchanged (D-ROUTE-3). The mock's plugin era sends them; `v1.unknown-path-404` deviates citing this row when a plugin-era target's not-found lets a cache store it (no `no-store`), under `--expect new-api`. The adaptor era's week-long `max-age` is not reproduced by the mock (it is not a contract a client relies on).",
        Deviation),
    row("D-ERA-6", "HEAD /v1/videos/{id}/content, and a missing artifact",
        "pkg/jsplugin/routing.go@2f6bf06b hostProtocols (`content`: GET and HEAD); router/task-plugin-protocol-router.go test id 57426056908; plugins/google_generated_samples_test.go@5f25d81d (a missing artifact: the content route answers 410)",
        "Not routed (405 with `Allow: GET`).",
        "The plugin era routes HEAD of the content route (the one route table: `routes::ONLY_IN_PLUGIN_ERA`); the adaptor era does not (gin's NoRoute: 404). HEAD answers what GET would, without the body: `video.content.head` fails a plugin-era target whose HEAD disagrees with its GET (status, `Content-Type`, `Content-Length`; RFC 9110 §9.3.2), and skips in the adaptor era. A completed task whose plugin lists no artifact (and whose row keeps no result URL) is answered 410 `artifact_gone` (D-ERA-9).",
        Failure),
    row("D-ERA-7", "POST /v1/responses for video models (openai_responses)",
        "pkg/jsplugin/routing.go@2f6bf06b hostProtocols (`openai_responses`: POST /v1/responses, GET /v1/responses/:response_id); plugins/builtin_plugins_test.go@2f6bf06b (every built-in model declares it); router/task-plugin-protocol-router.go taskPluginProtocolHandlers (variants ids 62516529944, 68329755327: `openai_responses.create` RelayTaskPluginEndpoint(Relay(RelayFormatOpenAIResponses)), `retrieve` RetrieveTaskPluginResponse; medium); the bridge (serveTaskPluginProtocol, retrieveTaskPluginResponse) read only in a fork's copy (id 69631571933, import path `pbr/`), and relay.NewPluginResponsesMachine, which builds every answer, not read at any commit",
        "Not served.",
        "Not served by the mock in either era, and not judged. What the fork's copy shows of the bridge: a create is the task submit (as `POST /v1/videos`), then, by the request, a `background` answer at once (the machine's pending response), an event stream (a created event, then the plugin's `renderEvents` at each tick, with heartbeats), or a wait until the task ends (the plugin's `renderFinal`: a message whose `output_text` is a `<video controls src=...>` of the artifact's URL, `metadata.vendor`); `GET /v1/responses/{id}` takes `resp_<x>` as task `task_<x>`. The object and event shapes are the unread machine's, so gatecheck does not guess them: a target's `/v1/responses` answers for video models are outside the checks.",
        Rejected),
    row("D-ERA-8", "The platforms' tasks on /v1/videos in the plugin era: the plugin's create and the host's render",
        "pkg/jsplugin/routing.go@2f6bf06b hostProtocols (`openai_video.create` POST /v1/videos); router/task-plugin-protocol-router.go taskPluginProtocolHandlers (variants ids 62516529944, 68329755327: `openai_video.create` RelayTaskPluginEndpoint(RelayTask), `retrieve` RelayTaskFetch; medium); controller/relay.go presentTaskSubmission (variant id 59798455945: `Task.ToOpenAIVideo()` for an `openai_video` create; medium); model/task.go ToOpenAIVideo (`SetMetadata(\"url\", GetResultURL())`, every variant read); relaykit/dto/openai_video.go@823e263 OpenAIVideo (omitempty fields); relay/channel/task/jsplugin/adaptor.go@60a13c2e ConvertToOpenAIVideo; plugins/tasks/{vidu,hailuo,doubao,alibaba}/plugin.js@2f6bf06b, {google,vertex-ai}/plugin.js@b30dbffe `legacyRenderers.openai_video`",
        "The Go adaptors (D-PLAT-5): `POST /v1/videos` of a platform's model is not modelled (400: not a video model); `GET /v1/videos/{id}` is each adaptor's conversion (Doubao's `task_id`, `metadata.url` of a result, Ali's status from `data`).",
        "`POST /v1/videos` of a model a platform's channel serves runs that platform's plugin (its `openai_video.decodeRequest`, D-ERA-10; the host's `ValidateBasicTaskRequest` does not run, so no prompt is required where the plugin asks none), is charged as on the unified route, and answers `Task.ToOpenAIVideo()` of the new row: `{id, object:\"video\", model, status:\"queued\", progress:0, created_at, completed_at, metadata:{url:\"\"}}` (no `task_id`; `completed_at` the row's `updated_at`) with `X-New-Api-Other-Ratios` (the platform's ratios, D-PLAT-23). `GET /v1/videos/{id}` of any platform's task is the plugin's render under the fields the host owns (`rules::openai_video::host_render`): `id`, `object`, `status` (`ToVideoStatus` of the row: Ali's no longer from `data`), `progress`, `created_at`, `model` (the origin model: Vidu's and Veo's too), `completed_at` (`updated_at`), no `task_id`, no `metadata` key `url`; what the plugin renders beyond them is its `error` (`PluginFacts::render_error`: Vidu's failed `err_code`, Hailuo's `base_resp` other than 0, Doubao's `failed` `error`, Ali's DashScope `code`; none for Gemini and Vertex, so a failed Veo task shows no `error`). The mock's generic tasks keep D-ERA-2's create answer (its `seconds`, `size`, and no `metadata`; not changed here). The runner (`task.platform.*`, `--expect new-api` in the plugin era) fails a `/v1/videos/{id}` status other than the row's (the record followed to its end: the service contradicting itself), and deviates citing this row on a `task_id`, a `metadata.url` or an `error` other than the plugin's render of the record's `data` (another host version keeps `metadata`: variant id 69497782665).",
        Deviation),
    row("D-ERA-9", "The content route of a platform's task in the plugin era",
        "controller/video_proxy.go VideoProxy, plugin-era variants (ids 57627849430, 58568192382; medium, not pinned to a main commit: every variant read checks `task.Status != SUCCESS` first, then `projectTaskArtifacts` and the first `video` artifact's `BuildContentRequest`, else the stored result URL, `proxyTaskMedia` answering 410 `artifact_gone` for an empty one); controller `writeTaskArtifactError` (every variant: `{error:{message, type:code, code}}`, `Cache-Control: private, no-store`); relay/channel/task/jsplugin/adaptor.go@60a13c2e ListArtifacts, BuildContentRequest; each plugin's `listArtifacts` (vidu `creations[0].url`, hailuo `file_id`, doubao `content.video_url`, alibaba `output.video_url`, google `generatedSamples` per plugins/google_generated_samples_test.go@5f25d81d, vertex-ai none)",
        "NA10 for every task: 400 `Task is not completed yet, current status: <S>` until completed; the adaptors' URL resolution for Veo (D-PLAT-20, D-PLAT-21).",
        "A platform's task that is not SUCCESS is answered 400 `{error:{message:\"Task is not completed yet, current status: <S>\", type:\"invalid_request_error\"}}` with `S` the row's own status (Vidu's queued task is `SUBMITTED`, Doubao's `QUEUED`, Hailuo's `IN_PROGRESS`, a failure `FAILURE`) and `Cache-Control: private, no-store`; a SUCCESS task's video comes from the plugin's artifact (`PluginFacts::artifact`), else the stored result URL; neither: 410 `{error:{message:\"Artifact content is no longer available\", type:\"artifact_gone\", code:\"artifact_gone\"}}` (`rules::openai_video::plugin_content`). Veo (`rules::platforms::veo::plugin_content_failure`): a `filtered` operation has no artifact, 410; Gemini's artifact is fetched with the channel's key (`no_key` no longer fails it), and an `unreachable` upstream fails its download, 502 `artifact_upstream_error` `Failed to fetch artifact content`; Vertex lists none and its stored `data:` URL is served. Not modelled: the proxied media's own headers (`Content-Security-Policy: sandbox`, `Referrer-Policy`, `X-Content-Type-Options`, seen in the same variants). The runner (`task.platform.*`, plugin era, `--expect new-api`): content served before SUCCESS fails; after the submit, a refusal naming another status than the next record's deviates citing this row; a completed task's content must be `video/mp4` (a failure otherwise), a failed task's a 400 naming `FAILURE` (a deviation otherwise); a 410 `artifact_gone` or 502 `artifact_upstream_error` of a Veo task is the upstream's failure (not observed).",
        Deviation),
    row("D-ERA-10", "The plugins' refusals, action names and billing on POST /v1/videos",
        "relay/channel/task/jsplugin/adaptor.go@60a13c2e ValidateRequestAndSetAction (a decoder's error: 400 `plugin_request_invalid`), buildSubmit (`descriptor.Action` stored as the task's action), validatedUsageRatios (an enum fact is no ratio); plugins/tasks/vidu/plugin.js, hailuo/plugin.js@2f6bf06b `protocols.openai_video.decodeRequest` (`JSON object required`, `seconds must be between 1 and 3600`), vidu `actionFor`; doubao/plugin.js, alibaba/plugin.js@2f6bf06b (multipart without files: `Doubao requires image and video references to be URLs inside metadata.content`, `Alibaba requires image references to be URLs`); sora/plugin.js@2f6bf06b decodeRequest (`unexpected file field: <f>`, `input_reference must be provided once`), buildSubmitRequest (`field prompt is required`), extractUsage (`seconds`, else `duration`, else 4; `size` an enum); google/plugin.js, vertex-ai/plugin.js@b30dbffe decodeRequest",
        "The Go adaptors' (D-PLAT-2 to D-PLAT-4, D-TASK-4): every encoding the host reads, each adaptor's action word (`textGenerate`, `generate`...), the Sora adaptor's `{seconds, size}` ratios.",
        "Declared per platform (`PluginFacts::bodies`, `refuse`, `action`): Vidu and Hailuo decode a JSON object only (a multipart or urlencoded body is 400 `plugin_request_invalid` `JSON object required`), and refuse `seconds` (else `duration`) outside 1..3600; Doubao and Ali take multipart without a file part (a file: 400 with their message), Doubao also the seconds range; Gemini, Vertex and the generic OpenAI-video task take one `input_reference` file (another file field: `unexpected file field: <f>`). Refusals use D-ERA-4's body, the task error `{code, message, data}` (`rules::era::plugin_refusal_body`). The record's `action` is the plugin's name (`text_to_video`, `image_to_video`, Vidu's `first_tail_to_video` and `reference_to_video` by image count or `metadata.action` renamed: `rules::openai_video::PLUGIN_ACTIONS`), on the unified route too. A generic OpenAI-video task (the plugin of channel types 55 and 1) announces `X-New-Api-Other-Ratios: {\"seconds\": N}` (`rules::openai_video::openai_channel_ratios`: no `size` ratio), its empty prompt refused as D-ERA-4 says. Not modelled: the host's 400 `plugin_usage_invalid` for a request value outside a plugin's `usageSchema` (Sora's `size` enum), Ali's conversion refusals (`wan2.7-i2v requires image ...`), urlencoded bodies of a generic task (the mock reads them). The runner (`--expect new-api`, plugin era): `task.platform.*` sends a multipart `POST /v1/videos` where the plugin takes JSON only (a task made deviates citing this row) and judges the record's `action` (another word deviates); `video.create.plugin-ratios` deviates when the generic create's ratios are not `{\"seconds\": N}` for the seconds sent.",
        Deviation),
    // The native vendor routes the plugins declare (rules::platforms::native, PluginFacts::native).
    row("D-ERA-15", "The plugins' native routes: Doubao's Ark and Ali's DashScope",
        "plugins/tasks/doubao/plugin.js@2f6bf06b `meta.routes` (`POST /doubao/api/v3/contents/generations/tasks` submit `createTask` `taskCreated`, `GET .../tasks/:task_id` query `taskStatus`), `native.createTask`, `taskCreated`, `taskStatus`, `parseSubmitResponse` (taskData: Ark's create answer); plugins/tasks/alibaba/plugin.js@2f6bf06b `meta.routes` (`POST /ali/api/v1/services/aigc/video-generation/video-synthesis` submit `createVideoTask` `taskCreated`, `GET /ali/api/v1/tasks/:task_id` query `taskStatus`), `native.createVideoTask`, `taskCreated`, `taskStatus`; plugins/builtin_plugins_test.go@2f6bf06b (the declared routes); middleware/task_plugin.go@3cc2a2bc `renderTaskPluginQuery` (the key's task of the plugin's platforms, 200 with the renderer's body), PrepareTaskPluginRoute (a decode error or a model outside `meta.models`: 400)",
        "Not routed: the adaptors' era (`new-api-adaptors`) and the documented profile answer these paths as any unknown path (new-api's web fallback, or the documented 404).",
        "In the plugin era (the `new-api` profile) each platform's description declares its plugin's native routes (`PluginFacts::native`: method, path, submit or query, renderer, and the renderer itself), and the route table serves every declared route (`routes::table`, `Op::Native`) through one handler in the mock (`routes/native.rs`): a submit runs the plugin's decode (Doubao: a JSON object with `model` and a `content` array of `text` items or references, `duration` the seconds; Ali: `model`, `input.prompt`, `input.img_url`, `parameters.duration`, `parameters.size` or `resolution`), requires a model of the plugin's `meta.models`, places the task as `POST /v1/videos` does (the key's limits, the channel, the charge, `X-New-Api-Other-Ratios`) and answers 200 the renderer of the new row: Doubao `{id}` (Ark's create answer with `id` the public `task_` id), Ali `{request_id, output:{task_id:<public>, task_status:\"PENDING\"}}`; a query answers 200 the row rendered now: Doubao Ark's task with `id` public, Ali DashScope's task with `output.task_id` public. The task is the key's own task of that platform (another platform's task is not found). The same task is reached on `/v1/videos/{id}` (D-ERA-8). Not modelled: `originTaskIds` (Doubao's draft tasks: the host answers 501), Ark's other content kinds beyond text and references. The runner's `task.native-routes` (plugin era; skipped in the adaptors' era with its cause) submits and fetches through every declared route of a platform the catalog serves: a route not served, an answer other than 200 JSON in the declared body (`NativeRoute::schema`), a create whose id is no public `task_` id, or a fetch answering another task fails.",
        Failure),
    row("D-ERA-16", "The refusals of the plugins' native routes",
        "middleware/task_plugin.go@3cc2a2bc RespondTaskPluginError (the plugin's `native.error` of the sanitized error, the host's status), sanitizedTaskPluginError (400 `invalid_request`/`Invalid request`, 401 `authentication_error`, 403 `permission_denied`/`Access denied`, 404 `task_not_found`/`Task not found`, 409, 429, 5xx `server_error`/`Task request failed`), renderTaskPluginQuery (a task not found: 404); the older variant (id 69536880770) passes no detail; plugins/tasks/doubao/plugin.js@2f6bf06b `native.error` (`{error:{code, message}}`), plugins/tasks/alibaba/plugin.js@2f6bf06b `native.error` (`{code, message, request_id:\"\"}`)",
        "Not routed (D-ERA-15).",
        "Every refusal past the key on a native route is the plugin's `native.error` of the host's sanitized code and message, with the host's status (`rules::platforms::native::host_error`): a body the decode refuses, a model outside `meta.models`, a refusal of the plugin's conversion: 400 `invalid_request` `Invalid request` (the variant at 3cc2a2bc may carry the hook's detail as the message; the mock gives none); an unknown task: 404 `task_not_found` `Task not found`; a charge refused keeps its status with the sanitized code. A missing or refused key is answered before the route as on `/v1` (the key middleware). The runner's `task.native-routes` asks an unknown task of each declared query route: another status than 404 or a body outside the plugin's `native.error` shape (`Native::error_schema`) deviates citing this row (the host falls back to its own `{code, message, status_code}` when the renderer fails).",
        Deviation),
    row("D-ERA-11", "Kling's and Jimeng's native routes, and the OpenAI-video task, in the plugin era",
        "plugins/tasks/kling/plugin.js@cd01ea4a meta.routes, native.decodeSubmit (decodeNativeSubmit), native.taskCreated, native.taskStatus, native.error, resolveKlingMode, validateKlingDuration, protocols.openai_video.decodeRequest and render; plugins/tasks/jimeng/plugin.js@cd01ea4a meta.routes, native.decodeRequest (decodeNativeRequest), native.renderTask (legacyRenderers.jimeng_native), native.error, validateSecondsForReqKey, legacyRenderers.openai_video; plugins/tasks/sora/plugin.js@2f6bf06b buildSubmitRequest, parseTaskResult, legacyRenderers.openai_video, protocols.openai_video.decodeRequest; controller/relay.go presentTaskSubmission (plugin era, medium: not pinned to a main commit)",
        "The Go adaptors' (D-TASK-6, D-TASK-7, D-TASK-1): new-api's create object and task envelope on Kling's and Jimeng's routes, a blank prompt refused, any Jimeng Action but GetResult a submit, `/v1` error bodies.",
        "In the plugin era (the `new-api` profile; `new-api-adaptors` keeps D-TASK-6 and D-TASK-7) the routes stay the route table's rows and answer the plugins' renders of the vendors' own bodies with the public task id. Kling: `POST /kling/v1/videos/{text2video|image2video}` needs a JSON object with `model_name` (else `model`; `model is required`), not a prompt; the mode (`mode`) is `resolveKlingMode`'s (`std` when none; `kling-v2-master` is `pro` only: `kling-v2-master does not support mode std`, another word `mode must be pro`, on other models `mode must be std or pro`; `rules::platforms::kling::native_refusal`); the action is the path's (`text_to_video`, `image_to_video`); the answer is `native.taskCreated`, Kling's submit body `{code:0, message, request_id, data:{task_id:<public>, task_status:\"submitted\", created_at, updated_at}}`, and the query `native.taskStatus`, Kling's stored poll body with `data.task_id` the public id. Jimeng: `POST /jimeng/` needs a JSON body (`JSON body required`), `?Action=` (`Action query parameter is required`), `task_id` for `CVSync2AsyncGetResult` (`task_id is required for CVSync2AsyncGetResult`), and refuses any Action but its two (`unsupported Jimeng Action`; the adaptors' era submitted); submit and GetResult answer `renderTask`, Volcengine's body `{code:10000 (the stored code, 10000 when none), ..., data:{..., task_id:<public>}}`. A decoder's or the plugin's own refusal is 400 in the plugin's `native.error`: Kling `{code, message}` (code `plugin_request_invalid`, or the host's task code: not pinned, medium), Jimeng `{code:<HTTP status>, message}`; the key's, the group's and the quota's refusals stay new-api's own (its middleware runs before the plugin), and Jimeng's checks still come before the key, as the adaptors' era's did (not pinned for the plugin era). On `POST /v1/videos`, a Kling model's plugin refuses a duration that is not a positive integer at most 3600 and the same modes, a Jimeng model's a `seconds` other than 5 (5 or 10 for a 3.0 `req_key`, one naming `v30`), both in D-ERA-4's envelope; their renders' `error` (Kling's `task_status_msg` of a failed task; Volcengine's `message` when `code` is not 10000) and artifacts are their descriptions' plugin facts. The OpenAI-video task (Sora, channel types 55 and 1): the status map adds `pending` QUEUED and `cancelled` FAILURE (another word UNKNOWN), and a failed task renders `error:{code:\"video_generation_failed\", message:\"The video generation task failed.\"}` whatever the upstream said; its empty prompt (`field prompt is required`) and multipart files other than one `input_reference` are D-ERA-4's and D-ERA-10's. The runner's `task.platform.kling`, `task.platform.jimeng` and `task.platform.sora` (under `--expect new-api` in the plugin era; skipped otherwise) judge these: a refusal not made, or made in another form, and a vendor body in another form deviate citing this row; a query answering another task fails (D-TASK-10); the adaptors era's `task.kling.*` and `task.jimeng.*` skip in the plugin era. Not modelled: a Kling or Jimeng model on `/v1/videos` recorded as its platform's task (the mock serves them on the OpenAI-video channel, so the record, its render and its content are the generic task's), Kling's `units` billing facts and `final_unit_deduction`, Jimeng's `seconds`/`product` facts, the `openai_video` render's `seconds` of a Kling video, and Jimeng's `generating` (the plugin sets no status for it: the row keeps its last).",
        Deviation),
];

/// The row with `id`, or the first row of a section id (`D-VIDEO`, `P`, `NA`).
pub fn get(id: &str) -> Option<&'static Decision> {
    DECISIONS.iter().find(|d| d.id == id).or_else(|| {
        DECISIONS.iter().find(|d| {
            d.id.starts_with(id)
                && d.id[id.len()..].starts_with(['-', '1', '2', '3', '4', '5', '6', '7', '8', '9'])
        })
    })
}

/// The rows whose `new-api` behaviour differs from `documented` (everything but [`Verdict::Same`]).
pub fn differences() -> impl Iterator<Item = &'static Decision> {
    DECISIONS.iter().filter(|d| d.verdict != Verdict::Same)
}

fn cell(s: &str) -> String {
    s.replace('|', "\\|")
}

/// `docs/DECISIONS.md`, generated from [`DECISIONS`].
pub fn markdown() -> String {
    let mut out = String::from(
        "# Contract decisions\n\n\
<!-- Generated from crates/gatecheck-schemas/src/decisions.rs; do not edit by hand. -->\n\n\
The service spec ([spec.txt](spec.txt)) is the contract. It marks many places \"not shown\"; these rows fix\n\
what the harness does there, so that the mock, the schemas and the runner agree. The reference for\n\
unstated behaviour is the gateway the service is built on, new-api (GitHub QuantumNous/new-api);\n\
each row names the new-api file and function it comes from.\n\n\
Two profiles: `documented` (the mock's default: the spec's letter, and these decisions where it is\n\
silent) and `new-api` (what a deployed new-api does). The last column is what the runner reports for\n\
a target that behaves as the `new-api` column says:\n\n\
- **failure**: the spec pins the documented behaviour;\n\
- **deviation**: the spec is silent and the target departs from the decision (a warning citing the\n  row id; it fails the run only with `--strict`);\n\
- **accepted**: both behaviours are reasonable; nothing is reported;\n\
- **same**: both profiles behave alike;\n\
- **rejected**: the audit row is not reproduced; the row says why.\n\n\
`gatecheck profiles` prints the same table.\n",
    );
    for (section, heading) in SECTIONS {
        let rows: Vec<&Decision> = DECISIONS
            .iter()
            .filter(|d| match section {
                "P" | "NA" => {
                    d.id.starts_with(section)
                        && d.id[section.len()..].starts_with(|c: char| c.is_ascii_digit())
                }
                s => d.id.starts_with(s) && d.id[s.len()..].starts_with('-'),
            })
            .collect();
        out.push_str(&format!("\n## {heading} (`{section}`)\n\n"));
        out.push_str(
            "| Id | Decision | new-api source | documented | new-api | Runner verdict |\n",
        );
        out.push_str("|---|---|---|---|---|---|\n");
        for d in rows {
            out.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} |\n",
                d.id,
                cell(d.title),
                cell(d.source),
                cell(d.documented),
                cell(d.new_api),
                d.verdict.as_str()
            ));
        }
    }
    out.push_str(
        "\n## Failures listed\n\nRows where new-api breaks a rule the spec pins (the runner reports a failure):\n\n",
    );
    for d in DECISIONS.iter().filter(|d| d.verdict == Verdict::Failure) {
        out.push_str(&format!("- `{}`: {}\n", d.id, cell(d.title)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn ids_are_unique_and_every_row_is_complete() {
        let mut seen = HashSet::new();
        for d in DECISIONS {
            assert!(seen.insert(d.id), "duplicate id {}", d.id);
            assert!(!d.title.is_empty() && !d.source.is_empty(), "{}", d.id);
            assert!(
                !d.documented.is_empty() && !d.new_api.is_empty(),
                "{}",
                d.id
            );
        }
        for i in 1..=6 {
            assert!(get(&format!("P{i}")).is_some(), "P{i}");
        }
        for i in 1..=14 {
            assert!(get(&format!("NA{i}")).is_some(), "NA{i}");
        }
        for (section, _) in SECTIONS.iter().filter(|(s, _)| s.starts_with("D-")) {
            assert!(get(section).is_some(), "{section}");
        }
    }

    #[test]
    fn section_ids_do_not_match_longer_prefixes() {
        assert_eq!(get("NA1").map(|d| d.id), Some("NA1"));
        assert_eq!(get("D-AUTH").map(|d| d.id), Some("D-AUTH-1"));
        assert!(get("D-NOPE").is_none());
    }

    #[test]
    fn docs_decisions_md_is_generated_from_the_table() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/DECISIONS.md");
        let want = markdown();
        if std::env::var_os("GATECHECK_UPDATE_DOCS").is_some() {
            std::fs::write(path, &want).expect("write docs/DECISIONS.md");
        }
        let have = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            have == want,
            "docs/DECISIONS.md drifted from decisions.rs; regenerate it with \
             GATECHECK_UPDATE_DOCS=1 cargo test -p gatecheck-schemas --lib decisions"
        );
    }
}
