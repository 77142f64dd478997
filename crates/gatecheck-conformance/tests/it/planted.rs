//! The planted bugs of the mutation suite (`mutations.rs`): what each breaks, the check that
//! must catch it, the verdict it must get (`Failed` where the spec pins the rule, `Deviation`
//! where DECISIONS.md does), and the rule of `gatecheck_schemas::rules` it breaks.

use gatecheck_conformance::Status;

/// One planted bug.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Bug {
    /// No bug: the proxy forwards faithfully.
    None,
    /// Not a bug: stream requests lose what asks for a stream, so every answer is plain (a
    /// target that does not stream; `streams.rs`, not in [`planted`]).
    StreamIgnored,
    /// Not planted for a check to catch: a gateway that answers 502 wherever the mock refuses a
    /// key (401 or 403) on `POST /v1/videos` (`mutations.rs`: the key checks cannot judge it).
    KeyRefusalsAre502,
    /// Key names are limited to 50 bytes instead of 50 characters.
    NameCountedInBytes,
    /// A disabled key is let through.
    DisabledKeyAccepted,
    /// An expired key is let through.
    ExpiredKeyAccepted,
    /// Every 401 on a model route becomes 403.
    Status401To403,
    /// Video progress goes backwards every other poll.
    ProgressRegresses,
    /// A completed task reports progress 99.
    CompletedAt99,
    /// A task never reaches a terminal state.
    NeverTerminal,
    /// Speech in mp3 is served as application/octet-stream.
    WrongSpeechContentType,
    /// The translation result has no `text`.
    MissingText,
    /// Temperatures outside [0, 1] are accepted.
    UncheckedTemperature,
    /// `status` in a key update is dropped (not applied).
    StatusNotApplied,
    /// `status` is dropped from every key update, `?status_only=1` included, and the update
    /// still answers success: the key stays enabled.
    StatusDroppedEverywhere,
    /// Not planted for a check to catch (`replay_strict.rs`): `status` is dropped from every
    /// `PUT /api/token/` (`?status_only=1` included) and the answer claims it applied (the
    /// asked status written into the record, the JSON re-serialized as a proxy would: not
    /// compact, so a recording keeps it as text).
    StatusIgnoredClaimed,
    /// The catalog envelope has no `total`.
    CatalogWithoutTotal,
    /// Image sizes are not checked against the model.
    ImageSizeUnchecked,
    /// An unknown task id is answered 400.
    UnknownTask400,
    /// The create response's `task_id` differs from `id`.
    TaskIdMismatch,
    /// A wrong access token succeeds.
    WrongTokenSucceeds,
    /// The IP allowlist is ignored.
    IpAllowlistIgnored,
    /// Model limits are ignored.
    ModelLimitsIgnored,
    /// An empty prompt creates a video task.
    EmptyPromptAccepted,
    /// `/v1` errors lose `X-Oneapi-Request-Id` (a deviation).
    NoRequestId,
    /// `response_format=text` answers a JSON object (as text/plain).
    TextIsJson,
    /// SRT cues lose their `-->` timing arrow.
    BrokenSrtCue,
    /// WebVTT loses its `WEBVTT` header.
    NoVttHeader,
    /// `b64_json` decodes to bytes that are not a PNG.
    B64NotPng,
    /// The PNG is 1 pixel wider than asked (a deviation: a model may round sizes).
    PngOffByOne,
    /// An enabled key with no quota left is let through.
    ZeroQuotaAccepted,
    /// `used_quota` never grows (reads as 0).
    UsedQuotaNotCharged,
    /// A price over the remaining quota is answered 402, not 403.
    InsufficientAs402,
    /// An unknown `/v1` path is answered 200 text/html (a dashboard).
    UnknownPathDashboard,
    /// Audio and image validation errors are answered 422.
    MediaValidation422,
    /// Speech in mp3 is served as bytes that are not MPEG frames.
    Mp3Garbage,
    /// The content of a completed task is not an MP4.
    ContentNotMp4,
    /// The content of an unfinished task is served 200.
    ContentServedEarly,
    /// A created task reports `in_progress`.
    CreatedInProgress,
    /// `completed_at` is before `created_at`.
    CompletedBeforeCreated,
    /// A running task reports progress 150.
    ProgressOver100,
    /// A completed task has no `video_url` or `metadata.url`.
    CompletedWithoutUrl,
    /// A video request naming an unknown model is run with a known one.
    UnknownModelAccepted,
    /// A negative `remain_quota` in a key update is stored as 0.
    NegativeQuotaStored,
    /// A client outside `allow_ips` is answered 401, not 403.
    IpRefusal401,
    /// An upload over the limit is answered 400, not 413.
    UploadLimit400,
    /// `/api/token/` without an access token is answered 200 `{success:false}`.
    MissingTokenAs200,
    /// A `status` outside 1..=4 in a key update is stored as 1 (new-api does this: a deviation
    /// citing DECISIONS NA11, the runner's label for that known difference).
    StatusOutOfEnumStored,
    /// An `expired_time` below -1 in a key update is stored as -1 (a deviation citing NA11, as
    /// above).
    ExpiredTimeOutOfRangeStored,
    /// The refusal of a 51-character name says "invalid name", not the spec's message.
    NameTooLongMessageChanged,
    /// A group the account may not use is accepted (`success:true`).
    GroupNoAccessAccepted,
    /// Enabling an expired key succeeds.
    EnableExpiredAccepted,
    /// An update of an unknown key id succeeds.
    UnknownIdAccepted,
    /// `used_quota` reads as twice what was charged (the price counted twice).
    DoubleCharged,
    /// The catalog's `total` is one more than the models it lists.
    CatalogTotalOffByOne,
    /// Speech in wav is served as bytes that are not a RIFF/WAVE file.
    WavGarbage,
    /// A generated image is answered 201, not 200.
    ImageAs201,
    /// A 51-character name is refused with new-api's message text (NA12: the spec pins the
    /// message, a failure).
    NewApiNameMessage,
    // Key search and batch routes, model lists in other shapes (`planted_keysurface.rs`).
    /// `POST /api/token/batch/keys` discloses a key under an id the caller does not hold.
    BatchKeysDiscloseOther,
    /// `GET /api/token/search` finds nothing, even the key searched by its own secret.
    SearchMissesKey,
    /// The Anthropic list's `first_id` is not its first model.
    AnthropicFirstIdWrong,
    /// The Gemini list leaves out the key's last model.
    GeminiListDropsModel,
    /// `GET /api/token/` and `GET /api/token/{id}` show every key as another, whole key
    /// (a listing a client takes keys from must show the key's own).
    ListShowsAnotherKey,
    /// A speech stream loses its `speech.audio.done` (no terminal event).
    StreamNoTerminal,
    /// A transcription stream has a delta after its `transcript.text.done`.
    StreamDeltaAfterDone,
    /// The `transcript.text.done` text differs from the deltas concatenated.
    DoneTextDiffers,
    /// A partial image of an image stream is not a PNG.
    PartialNotPng,
    /// tts-1 streams speech (its request is served by a model that may stream).
    SseOnTts1,
    /// The images of an image edit (base64, and the files of its URLs) are not PNGs.
    EditNotPng,
    /// An image edit without an image is answered 200 with no images.
    EditMissingImageAccepted,
    // The stream and media surface (`planted_streams.rs`).
    /// A speech stream repeats its first delta.
    SpeechDeltaDuplicated,
    /// One byte of a speech delta's audio is changed (the MP3 frames still parse).
    SpeechDeltaAltered,
    /// The speech stream's `speech.audio.done` reports 0 tokens.
    SpeechUsageZero,
    /// The speech stream's body ends halfway through its last event.
    StreamCutMidEvent,
    /// A partial image event is named `image_generation.completed` by its `event:` line.
    EventNameDisagrees,
    /// A speech stream is served as `application/json`.
    StreamLabelledJson,
    /// A partial image's PNG has its image data cut short (every chunk well formed).
    PartialTruncatedPng,
    /// A partial image is a PNG of half the size its event declares.
    PartialWrongSize,
    /// An image stream sends one partial image more than `partial_images` asked.
    TooManyPartials,
    /// The image stream's usage reports half the output tokens charged.
    ImageUsageUnderReported,
    /// An image edit's mask is dropped on the way: the upstream repaints everything.
    EditIgnoresMask,
    /// The Midjourney key in `mj-api-secret` is dropped on the way (only Bearer keys work).
    MjSecretIgnored,
    /// An unknown Midjourney task is answered 404, not new-api's 400 `task_no_found`.
    MjUnknownTask404,
    /// A SUCCESS Midjourney record reports progress `99%`.
    MjSuccessAt99,
    /// `list-by-condition` lists every record twice.
    MjListRepeats,
    /// An accepted upload answers no URL.
    MjUploadNoUrls,
    /// The task envelope's status is lower case (`success`).
    TaskStatusLowercase,
    /// A `SUCCESS` task record has no `result_url`.
    TaskSuccessWithoutResultUrl,
    /// An unknown task id on the unified fetch is a 404 `/v1` error.
    TaskUnknownId404,
    /// The unified create answers an upstream-style `video_...` id.
    UnifiedCreateVideoId,
    /// A remix answer has no `remixed_from_video_id`.
    RemixWithoutSource,
    /// A remix of a task that is not completed is accepted.
    RemixUnfinishedAccepted,
    /// A remix of an unknown task is answered 404.
    RemixUnknownSource404,
    /// A remix without a prompt is accepted.
    RemixBlankPromptAccepted,
    /// The task record's progress is a number (`30`), not `"30%"`.
    TaskProgressNumber,
    /// A Kling create answers Kling's own `{code, data:{task_id}}` envelope.
    KlingRawEnvelope,
    /// A Kling fetch answers Kling's own task, not new-api's envelope.
    KlingRawFetch,
    /// Jimeng's `CVSync2AsyncGetResult` is run as a submit: the client asks for its task and
    /// gets a new one, made and charged (D-TASK-10).
    JimengGetResultSubmits,
    /// A Jimeng request without `Action` is accepted.
    JimengActionOptional,
    /// The unified fetch answers another task's record (D-TASK-10).
    TaskFetchOtherRecord,
    /// A Kling task at `SUCCESS` is fetched back at `IN_PROGRESS` (D-TASK-11).
    KlingSuccessRegresses,
    /// A Jimeng task's progress goes down between fetches (D-TASK-11).
    JimengProgressDecreases,
    /// A Midjourney fetch answers another task's record (D-TASK-10).
    MjFetchOtherRecord,
    /// A Midjourney task's progress goes down between fetches (D-TASK-11).
    MjProgressDecreases,
    /// `list-by-condition` leaves out the task just submitted (D-TASK-10).
    MjListMissesTask,
    /// A remix answers the source task's object, not a new task (D-TASK-10).
    RemixAnswersSource,
    /// A Kling task at `SUCCESS` has no `result_url` (D-TASK-12).
    KlingSuccessWithoutResultUrl,
    /// A 404 for an unknown `/v1` path has a body that is not a `/v1` error (D-ROUTE-3).
    UnknownPathOtherBody,
    /// `GET /v1/videos/{id}/<anything>` is served as the poll of `{id}` (D-TASK-15).
    SubpathServedAsPoll,
    /// A failed task's charge stays on the key, both fields (D-ROUTE-5, D-TASK-13).
    FailedTaskChargeKept,
    /// A failed task's refund raises `remain_quota` but leaves `used_quota` (D-TASK-13).
    RefundOnlyRemain,
    // Task identity before form, a remix's source (`planted_tasks.rs`).
    /// A remix of a source the service has no record of is made as a plain create: 200, a
    /// new task, charged (D-TASK-4, D-TASK-10).
    RemixUnknownSourceCreated,
    // The video platforms (`planted_platforms.rs`): each names its platform.
    /// A platform's first record shows a status its own `data` does not map to (D-PLAT-7).
    PlatformStatusMap(&'static str),
    /// A platform's fetch answers another task's record (D-TASK-10).
    PlatformFetchOther(&'static str),
    /// A platform's record has no `platform` (D-PLAT-7, a deviation).
    PlatformMissing(&'static str),
    /// A platform's record keeps only the upstream state of its `data`: not the platform's
    /// own task (D-PLAT-10).
    PlatformDataShape(&'static str),
    /// A platform's submit answers without `X-New-Api-Other-Ratios` (D-PLAT-1, a deviation).
    PlatformRatiosDropped(&'static str),
    /// A platform's submit announces a `video_input` ratio of 2 it did not charge (D-PLAT-9).
    PlatformRatiosWrong(&'static str),
    /// A platform's running record shows a state its plugin maps to FAILURE (Doubao's
    /// `expired`) while IN_PROGRESS at the adaptor's progress for an unknown state: right in
    /// the adaptors' era, wrong in the plugin era (DECISIONS D-PLAT-23).
    PlatformPluginStatusMap(&'static str),
    // Gemini and Vertex Veo (`planted_veo.rs`).
    /// A real-time platform's fetch answers the record its polling loop stored, not the
    /// real-time answer (D-PLAT-22, a deviation).
    PlatformPollingOnly(&'static str),
    // Key rules on every route family (`planted_key_routes.rs`).
    /// An expired key is served by the unified video routes.
    ExpiredKeyOnUnified,
    /// A key with no quota left is served when the request asks for a stream.
    ExhaustedKeyOnStream,
    /// A disabled key is served by Kling's routes.
    DisabledKeyOnKling,
    /// Model limits are ignored on image edits.
    ModelLimitsIgnoredOnEdits,
    /// The IP allowlist is ignored on Midjourney's routes.
    IpAllowlistIgnoredOnMidjourney,
    /// An expired key may poll a video task.
    ExpiredKeyOnVideoPoll,
    /// A disabled key may list its models.
    DisabledKeyOnModelList,
    // The images a client downloads (`planted_image_results.rs`).
    /// Not a bug: an edit's URLs point at another host (the mock itself) that serves the files.
    EditUrlElsewhere,
    /// An edit's URLs point at another host whose answer is not a PNG.
    EditUrlElsewhereNotPng,
    /// An edit answers the upload unchanged, at its own size.
    EditReturnsUpload,
    // The billing bugs (`planted_billing.rs`).
    /// Every stream request is sent upstream twice: streams are charged twice, the rest once.
    StreamChargedTwice,
    /// The k-th accepted model request is charged k x 37 units over its price.
    ChargeDrifts,
    /// A refused model request (4xx) keeps a charge of 1000 units.
    RefusalChargeKept,
    /// Every charge is hidden: the key's `used_quota` and `remain_quota` read as they did
    /// before any request (until the next key update), and `GET /api/pricing` is answered 404
    /// (no ratio published: the runner infers one, D-QUOTA-5).
    NothingCharged,
    /// Jimeng's submit answers Jimeng's own `{code:10000, data:{task_id}}` (a deviation from
    /// D-TASK-7, and only that) and its `CVSync2AsyncGetResult` is run as a submit, answered in
    /// that form: the fetch names a new task, made and charged (D-TASK-10).
    JimengNativeSubmitGetResultSubmits,
    /// Not a failure: Jimeng's submit answers Jimeng's own `{code:10000, data:{task_id}}`, and
    /// its fetch answers the task asked for (a deviation, D-TASK-7).
    JimengNativeSubmit,
    // The plugin era's host bugs (`planted_plugins.rs`: run on the `new-api` mock).
    /// `HEAD /v1/videos/{id}/content` is not routed (404), where GET serves the video.
    HeadContentNotRouted,
    /// The not-found answer loses the plugin era's no-store cache headers.
    NotFoundCacheable,
    /// A plugin's refusal of an empty prompt loses its code `plugin_request_invalid`.
    PluginRefusalCodeLost,
    /// A completed platform task's `/v1/videos/{id}` keeps a `metadata.url`.
    PluginRenderKeepsUrl,
    /// A completed task's `/v1/videos/{id}` shows `in_progress`, not the row's status.
    PluginRenderStatusNotRow,
    /// The content refusal of a Vidu task names `QUEUED`, not its row's `SUBMITTED`.
    PluginContentStatusWord,
    /// A multipart `POST /v1/videos` that a JSON-only plugin refuses makes a task.
    PluginJsonOnlyTakesMultipart,
    /// The record's action is the Go adaptor's word (`textGenerate`), not the plugin's.
    PluginActionOldWord,
    /// The generic create's `X-New-Api-Other-Ratios` carries a `size` ratio.
    PluginRatiosWithSize,
    /// `/api/token/*` without `New-Api-User` is refused (new-api before 31d70fca).
    DashboardUserHeaderRequired,
    /// A wrong access token is refused 200 `{success:false}` (new-api before 31d70fca).
    DashboardWrongToken200,
    // The plugins' native routes (`planted_native.rs`: run on the `new-api` mock).
    /// The native routes the plugins declare are not routed (404).
    NativeRoutesNotRouted,
    /// A native create answers the host's `{task_id}` in place of the vendor's body.
    NativeCreatedHostObject,
    /// A native create names the upstream's own id, not the public `task_` id.
    NativeCreatedUpstreamId,
    /// A native fetch answers another task than the one asked.
    NativeFetchOtherTask,
    /// An unknown task on a native fetch is the host's `{code, message, status_code}`.
    NativeErrorHostShape,
    /// Not a bug: `GET /api/pricing` is answered 404 (a target that does not publish its
    /// group ratios: the runner infers one; `billing.rs`, not in [`planted`]).
    PricingNotServed,
}

/// One row of the planted-bug table: (bug, the check that catches it, its verdict, the rule
/// it breaks).
pub(crate) type Planted = (Bug, &'static str, Status, &'static str);

/// Every planted bug: (bug, the check that catches it, its verdict, the rule it breaks), the
/// rows of each surface's file (`planted_keys.rs`, `planted_audio.rs`, ...) in turn.
pub(crate) fn planted() -> Vec<Planted> {
    [
        super::planted_keys::rows(),
        super::planted_audio::rows(),
        super::planted_video::rows(),
        super::planted_images::rows(),
        super::planted_routes::rows(),
        super::planted_streams::rows(),
        super::planted_tasks::rows(),
        super::planted_platforms::rows(),
        super::planted_key_routes::rows(),
        super::planted_image_results::rows(),
        super::planted_billing::rows(),
        super::planted_keysurface::rows(),
        super::planted_plugins::rows(),
        super::planted_native::rows(),
    ]
    .concat()
}
