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
    // The stream and media surface (issue 37 part A, `planted_streams.rs`).
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
    /// Jimeng's `CVSync2AsyncGetResult` answers a new create object (a submit).
    JimengGetResultSubmits,
    /// A Jimeng request without `Action` is accepted.
    JimengActionOptional,
    /// The unified fetch answers another task's record (issue 37, D-TASK-10).
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
}

/// Every planted bug: (bug, the check that catches it, its verdict, the rule it breaks).
pub(crate) fn planted() -> Vec<(Bug, &'static str, Status, &'static str)> {
    vec![
        (
            Bug::NameCountedInBytes,
            "token.update.name-50-chars",
            Status::Failed,
            "token::name_too_long (MAX_NAME_LEN characters)",
        ),
        (
            Bug::DisabledKeyAccepted,
            "key.disabled-rejected",
            Status::Failed,
            "key::admit (KeyRejection::Disabled)",
        ),
        (
            Bug::ExpiredKeyAccepted,
            "key.expired-time-past-rejected",
            Status::Failed,
            "key::admit (is_past_expiry)",
        ),
        (
            Bug::Status401To403,
            "auth.v1.missing-key-401",
            Status::Failed,
            "Rejection::MissingKey",
        ),
        (
            Bug::ProgressRegresses,
            "video.progress.monotone",
            Status::Failed,
            "video::check_transition",
        ),
        (
            Bug::CompletedAt99,
            "video.completed.progress-100",
            Status::Failed,
            "video::check_task (progress_100_iff_completed)",
        ),
        (
            Bug::WrongSpeechContentType,
            "audio.speech.mp3",
            Status::Failed,
            "types::SpeechFormat content type",
        ),
        (
            Bug::MissingText,
            "audio.translation.json-text",
            Status::Failed,
            "schemas translation-result",
        ),
        (
            Bug::UncheckedTemperature,
            "audio.translation.temperature-range",
            Status::Failed,
            "media::temperature_ok (TEMPERATURE)",
        ),
        (
            Bug::StatusNotApplied,
            "token.update.status-applied",
            Status::Failed,
            "token::apply_update",
        ),
        (
            Bug::StatusDroppedEverywhere,
            "key.disabled-rejected",
            Status::Failed,
            "token::apply_update",
        ),
        (
            Bug::CatalogWithoutTotal,
            "catalog.envelope-schema",
            Status::Failed,
            "schemas catalog-envelope",
        ),
        (
            Bug::ImageSizeUnchecked,
            "images.size-must-match-model",
            Status::Failed,
            "media image sizes (capabilities)",
        ),
        (
            Bug::UnknownTask400,
            "video.poll.unknown-id-404",
            Status::Failed,
            "Rejection::TaskNotFound",
        ),
        (
            Bug::TaskIdMismatch,
            "video.create.queued",
            Status::Failed,
            "video::check_task_decisions (task_id)",
        ),
        (
            Bug::WrongTokenSucceeds,
            "auth.token.wrong-token-rejected",
            Status::Failed,
            "auth::AccessRefusal::Invalid",
        ),
        (
            Bug::IpAllowlistIgnored,
            "key.ip-allowlist",
            Status::Failed,
            "ip::allows",
        ),
        (
            Bug::ModelLimitsIgnored,
            "key.model-limits",
            Status::Failed,
            "key::model_allowed (model_limits)",
        ),
        (
            Bug::EmptyPromptAccepted,
            "video.create.empty-prompt-400",
            Status::Failed,
            "Rejection::Validation",
        ),
        (
            Bug::NoRequestId,
            "v1.request-id-header",
            Status::Deviation,
            "D-ERR REQUEST_ID_HEADER (X-Oneapi-Request-Id)",
        ),
        (
            Bug::TextIsJson,
            "audio.translation.format-bodies",
            Status::Failed,
            "TranscriptFormat (json vs text)",
        ),
        (
            Bug::BrokenSrtCue,
            "audio.translation.format-bodies",
            Status::Failed,
            "media::parse_srt",
        ),
        (
            Bug::NoVttHeader,
            "audio.translation.format-bodies",
            Status::Failed,
            "media::parse_vtt",
        ),
        (
            Bug::B64NotPng,
            "images.png-matches-size",
            Status::Failed,
            "media::parse_png",
        ),
        (
            Bug::PngOffByOne,
            "images.png-matches-size",
            Status::Deviation,
            "media::parse_png (size, D-MEDIA)",
        ),
        (
            Bug::ZeroQuotaAccepted,
            "key.zero-quota-rejected",
            Status::Failed,
            "key::admit (quota)",
        ),
        (
            Bug::UsedQuotaNotCharged,
            "quota.charged",
            Status::Deviation,
            "quota::check_charge (key::charge)",
        ),
        (
            Bug::InsufficientAs402,
            "quota.insufficient-403",
            Status::Deviation,
            "Rejection::InsufficientQuota (key::charge: ChargeOutcome::Insufficient)",
        ),
        (
            Bug::UnknownPathDashboard,
            "v1.unknown-path-404",
            Status::Failed,
            "Rejection::UnknownPath",
        ),
        (
            Bug::MediaValidation422,
            "v1.validation-status-400",
            Status::Failed,
            "Rejection::MediaValidation",
        ),
        (
            Bug::Mp3Garbage,
            "audio.speech.mp3",
            Status::Failed,
            "media::parse_mp3",
        ),
        (
            Bug::ContentNotMp4,
            "video.content.mp4",
            Status::Deviation,
            "media::parse_mp4",
        ),
        (
            Bug::ContentServedEarly,
            "video.content.not-ready-400",
            Status::Deviation,
            "video::content_rejection",
        ),
        (
            Bug::CreatedInProgress,
            "video.create.queued",
            Status::Failed,
            "video::check_created",
        ),
        (
            Bug::CompletedBeforeCreated,
            "video.completed.timestamps",
            Status::Failed,
            "video::check_task (completed_at)",
        ),
        (
            Bug::ProgressOver100,
            "video.progress.range",
            Status::Failed,
            "video::check_task (progress_range)",
        ),
        (
            Bug::CompletedWithoutUrl,
            "video.task.decided-fields",
            Status::Deviation,
            "video::check_task_decisions",
        ),
        (
            Bug::UnknownModelAccepted,
            "video.create.unknown-model-rejected",
            Status::Failed,
            "Rejection::ModelNotFound",
        ),
        (
            Bug::NegativeQuotaStored,
            "token.update.negative-quota-rejected",
            Status::Deviation,
            "token::check_request (quota, MSG_QUOTA_NEGATIVE)",
        ),
        (
            Bug::IpRefusal401,
            "key.ip-refusal-403",
            Status::Deviation,
            "Rejection::IpNotAllowed",
        ),
        (
            Bug::UploadLimit400,
            "audio.upload.too-large-413",
            Status::Deviation,
            "Rejection::BodyTooLarge / media::MAX_UPLOAD_BYTES",
        ),
        (
            Bug::MissingTokenAs200,
            "auth.token.missing-token-401",
            Status::Deviation,
            "auth::AccessRefusal::Missing",
        ),
        (
            Bug::StatusOutOfEnumStored,
            "token.update.status-enum",
            Status::Deviation,
            "token::is_valid_status (UpdateFailure::StatusInvalid, MSG_STATUS_INVALID)",
        ),
        (
            Bug::ExpiredTimeOutOfRangeStored,
            "token.update.expired-time-range",
            Status::Deviation,
            "token::is_valid_expired_time (MSG_EXPIRED_TIME_INVALID)",
        ),
        (
            Bug::NameTooLongMessageChanged,
            "token.update.name-51-chars-rejected",
            Status::Failed,
            "token::MSG_NAME_TOO_LONG",
        ),
        (
            Bug::GroupNoAccessAccepted,
            "token.update.group-no-access",
            Status::Failed,
            "token::check_request (group, MSG_NO_ACCESS_TO_GROUP)",
        ),
        (
            Bug::EnableExpiredAccepted,
            "token.update.enable-expired-rejected",
            Status::Deviation,
            "token::apply_update (check 5, MSG_EXPIRED_CANNOT_ENABLE)",
        ),
        (
            Bug::UnknownIdAccepted,
            "token.update.unknown-id-rejected",
            Status::Deviation,
            "token::MSG_NOT_FOUND (check 3)",
        ),
        (
            Bug::DoubleCharged,
            "quota.charged",
            Status::Deviation,
            "quota::price_quota (QUOTA_PER_USD, key::charge)",
        ),
        (
            Bug::CatalogTotalOffByOne,
            "catalog.paging",
            Status::Deviation,
            "catalog::page (total)",
        ),
        (
            Bug::WavGarbage,
            "audio.speech.formats",
            Status::Deviation,
            "media::parse_wav / wav_header",
        ),
        (
            Bug::ImageAs201,
            "images.result",
            Status::Failed,
            "rejection::ACCEPTED",
        ),
        (
            Bug::NewApiNameMessage,
            "token.update.name-51-chars-rejected",
            Status::Failed,
            "token::MSG_NAME_TOO_LONG_NEW_API (NA12)",
        ),
        (
            Bug::StreamNoTerminal,
            "stream.speech",
            Status::Failed,
            "D-STREAM-1 (StreamEvent::is_terminal: exactly one speech.audio.done, last)",
        ),
        (
            Bug::StreamDeltaAfterDone,
            "stream.transcription",
            Status::Failed,
            "D-STREAM-2 (StreamEvent::is_terminal: nothing after transcript.text.done)",
        ),
        (
            Bug::DoneTextDiffers,
            "stream.transcription",
            Status::Failed,
            "D-STREAM-2 (transcript.text.done text is the deltas concatenated)",
        ),
        (
            Bug::PartialNotPng,
            "stream.images",
            Status::Failed,
            "D-STREAM-3 (media::parse_png on every partial image)",
        ),
        (
            Bug::SseOnTts1,
            "stream.speech.unsupported-model",
            Status::Deviation,
            "media::speech_sse_supported (D-STREAM-1: tts-1 may not stream)",
        ),
        (
            Bug::EditNotPng,
            "images.edits.result",
            Status::Failed,
            "media::parse_png on edited images (D-EDIT-3)",
        ),
        (
            Bug::EditMissingImageAccepted,
            "images.edits.missing-image",
            Status::Deviation,
            "image_edit::missing_image (D-EDIT-2)",
        ),
        (
            Bug::SpeechDeltaDuplicated,
            "stream.speech",
            Status::Failed,
            "D-STREAM-6, D-STREAM-8 (the deltas join to the file)",
        ),
        (
            Bug::SpeechDeltaAltered,
            "stream.speech",
            Status::Failed,
            "D-STREAM-8 (the deltas join to the deterministic file)",
        ),
        (
            Bug::SpeechUsageZero,
            "stream.speech",
            Status::Failed,
            "D-STREAM-6 (usage 0 for a request answered with media)",
        ),
        (
            Bug::StreamCutMidEvent,
            "stream.speech",
            Status::Failed,
            "D-STREAM-6 (SseParser: the stream ends inside an event)",
        ),
        (
            Bug::EventNameDisagrees,
            "stream.images",
            Status::Failed,
            "D-STREAM-6 (the `event:` name is the data's type)",
        ),
        (
            Bug::StreamLabelledJson,
            "stream.speech",
            Status::Failed,
            "D-STREAM-6 (a stream is text/event-stream)",
        ),
        (
            Bug::PartialTruncatedPng,
            "stream.images",
            Status::Failed,
            "D-STREAM-6 (every image decodes whole)",
        ),
        (
            Bug::PartialWrongSize,
            "stream.images",
            Status::Failed,
            "D-STREAM-6 (an image is the size its event declares)",
        ),
        (
            Bug::TooManyPartials,
            "stream.images",
            Status::Failed,
            "D-STREAM-6 (no more partials than partial_images)",
        ),
        (
            Bug::ImageUsageUnderReported,
            "usage.charged",
            Status::Failed,
            "D-STREAM-7 (quota::price_quota of the usage is the key::charge)",
        ),
        (
            Bug::EditIgnoresMask,
            "images.edits.result",
            Status::Failed,
            "D-EDIT-6 (MASK_PART: only the mask's transparent area changes)",
        ),
        (
            Bug::MjSecretIgnored,
            "mj.auth.mj-api-secret",
            Status::Deviation,
            "midjourney::effective_key (MJ_SECRET_HEADER; CODE_SUBMITTED of the accepted submit, D-MJ-1)",
        ),
        (
            Bug::MjUnknownTask404,
            "mj.task.unknown-id",
            Status::Deviation,
            "midjourney::TASK_NO_FOUND, REFUSAL_STATUS, CODE_REQUEST_ERROR (D-MJ-3)",
        ),
        (
            Bug::MjSuccessAt99,
            "mj.task.lifecycle",
            Status::Failed,
            "midjourney::check_result (100% on SUCCESS, D-TASK-12)",
        ),
        (
            Bug::MjListRepeats,
            "mj.task.list-by-condition",
            Status::Deviation,
            "midjourney::LIST_BODY_REFUSED with the list's records, each once (D-MJ-8)",
        ),
        (
            Bug::MjUploadNoUrls,
            "mj.submit.upload",
            Status::Deviation,
            "midjourney::ACTION_UPLOAD (model_for: mj_upload), CODE_SUBMITTED with one URL per image (D-MJ-8)",
        ),
        (
            Bug::TaskStatusLowercase,
            "task.unified.envelope",
            Status::Deviation,
            "task::TaskStatus (check_envelope: task.status, SUCCESS_CODE envelope)",
        ),
        (
            Bug::TaskSuccessWithoutResultUrl,
            "task.unified.envelope",
            Status::Failed,
            "task::check_envelope (task.result, D-TASK-12)",
        ),
        (
            Bug::TaskUnknownId404,
            "task.unified.unknown-id",
            Status::Deviation,
            "task::TASK_NOT_EXIST (D-TASK-3)",
        ),
        (
            Bug::UnifiedCreateVideoId,
            "task.unified.create",
            Status::Deviation,
            "video::is_task_id (D-TASK-1)",
        ),
        (
            Bug::RemixWithoutSource,
            "task.remix.completed",
            Status::Deviation,
            "D-TASK-4 (remixed_from_video_id)",
        ),
        (
            Bug::RemixUnfinishedAccepted,
            "task.remix.not-completed",
            Status::Deviation,
            "task::FAIL_TO_FETCH_TASK (D-TASK-5)",
        ),
        (
            Bug::RemixUnknownSource404,
            "task.remix.unknown-source",
            Status::Deviation,
            "task::TASK_REFUSAL_STATUS, TASK_NOT_EXIST, TASK_ORIGIN_NOT_EXIST (D-TASK-4)",
        ),
        (
            Bug::RemixBlankPromptAccepted,
            "task.remix.blank-prompt",
            Status::Deviation,
            "task::INVALID_REQUEST, REMIX_PROMPT_REQUIRED (D-TASK-4)",
        ),
        (
            Bug::TaskProgressNumber,
            "task.unified.envelope",
            Status::Deviation,
            "task::progress_text / parse_progress (task.progress_text)",
        ),
        (
            Bug::KlingRawEnvelope,
            "task.kling.create",
            Status::Deviation,
            "D-TASK-6 (new-api's create object, video::is_task_id)",
        ),
        (
            Bug::KlingRawFetch,
            "task.kling.envelope",
            Status::Deviation,
            "task::check_envelope (D-TASK-6)",
        ),
        (
            Bug::JimengGetResultSubmits,
            "task.jimeng.submit-and-fetch",
            Status::Deviation,
            "task::JIMENG_GET_RESULT (D-TASK-7)",
        ),
        (
            Bug::JimengActionOptional,
            "task.jimeng.action-required",
            Status::Deviation,
            "task::MSG_ACTION_REQUIRED (D-TASK-7)",
        ),
        (
            Bug::TaskFetchOtherRecord,
            "task.unified.envelope",
            Status::Failed,
            "D-TASK-10 (the fetched task_id is the one asked)",
        ),
        (
            Bug::KlingSuccessRegresses,
            "task.kling.envelope",
            Status::Failed,
            "task::check_envelope_transition (D-TASK-11)",
        ),
        (
            Bug::JimengProgressDecreases,
            "task.jimeng.submit-and-fetch",
            Status::Failed,
            "task::check_envelope_transition (D-TASK-11)",
        ),
        (
            Bug::MjFetchOtherRecord,
            "mj.task.lifecycle",
            Status::Failed,
            "D-TASK-10 (the fetched record's id is the one asked)",
        ),
        (
            Bug::MjProgressDecreases,
            "mj.task.lifecycle",
            Status::Failed,
            "midjourney::status_rank, parse_progress (D-TASK-11)",
        ),
        (
            Bug::MjListMissesTask,
            "mj.task.list-by-condition",
            Status::Failed,
            "D-TASK-10 (the list holds the task asked for)",
        ),
        (
            Bug::RemixAnswersSource,
            "task.remix.completed",
            Status::Failed,
            "D-TASK-10 (a remix is a new task)",
        ),
        (
            Bug::KlingSuccessWithoutResultUrl,
            "task.kling.envelope",
            Status::Failed,
            "task::RULE_RESULT (D-TASK-12)",
        ),
        (
            Bug::UnknownPathOtherBody,
            "v1.unknown-path-404",
            Status::Deviation,
            "schemas v1-error on the not-found body (D-ROUTE-3)",
        ),
        (
            Bug::SubpathServedAsPoll,
            "v1.unknown-subpath-404",
            Status::Failed,
            "Rejection::UnknownPath under a task (D-TASK-15)",
        ),
        (
            Bug::FailedTaskChargeKept,
            "task.refund.failed",
            Status::Deviation,
            "refund::judge_refund (RefundSeen::Kept, D-ROUTE-5, D-TASK-13)",
        ),
        (
            Bug::RefundOnlyRemain,
            "task.refund.failed",
            Status::Failed,
            "refund::judge_refund (RefundSeen::Unbalanced, D-TASK-13)",
        ),
    ]
}
