//! Coverage of the planted-bug suite: every shared contract rule (one that `rule_users` finds
//! used by both the mock and the runner) has at least one planted bug in `planted.rs` naming
//! it, or a row in [`NOT_PLANTABLE`] saying why not and which planted bug exercises it anyway.

use super::planted::{planted, Bug};
use super::rule_users::{names, shared_rules};

const NOT_FOUND_BODY: &str = "the not-found body: both profiles' shapes are accepted \
     (DECISIONS D-ROUTE-3), so v1.unknown-path-404 judges the 404 (UnknownPathDashboard plants \
     a 200 page), notes new-api's body and deviates on a body of neither shape \
     (UnknownPathOtherBody)";

/// Why the strict replay's marker has no planted bug.
const REPLAY_MARKER: &str = "not a rule of the service: the strict replay's marker of an answer \
     that is not in the recording (skip not-in-recording); replay_roundtrip.rs replays this bug \
     and checks that a check the recording does not cover skips";

/// Why the headers gatecheck's intermediaries drop have no planted bug.
const FORWARDING: &str = "not a rule of the service: the headers gatecheck's own intermediaries \
     (the recorder, the replay front) do not pass on (RFC 9110 §7.6.1); replay_roundtrip.rs \
     records a run of this bug through the recorder and replays it";

/// The reason the rows of the actions of a request with images share.
const IMAGE_ACTIONS: &str = "an action of a request with images, which the runner's text-to-video submit does not send; the action rule is planted on ACTION_TEXT_TO_VIDEO (D-ERA-10)";

/// The reason the rows of the content failures the upstream caused share.
const VEO_UPSTREAM_FAILURE: &str = "a Veo content failure the upstream caused, which the runner takes as not observed (upstream_content_failure), not a deployment's bug; the content route's bug is planted on the row's status (D-ERA-9)";

/// The reason the rows of the refusals of bodies the runner does not send share.
const UNSENT_BODIES: &str = "a refusal of a body the runner does not send (files, urlencoded); the decoders' bodies are planted on the JSON-only refusal (D-ERA-10)";

/// The reason the rows of the decoders' seconds range share.
const DECODER_SECONDS: &str = "the decoders' seconds range, which the runner's durations (4 to 8) stay inside; the decoders' refusals are planted on the JSON-only one (D-ERA-10)";

/// The reason the rows of DashScope's refusals of a fetch share.
const DASHSCOPE_FETCH_REFUSALS: &str = "DashScope's refusals relayed as new-api does are not the deployment's bug: the runner \
         skips them (planted_platforms::a_relayed_dashscope_refusal_is_no_finding), nothing to plant";

/// The reason the rows of new-api's action words share.
const ACTION_WORDS: &str =
    "new-api's action words, read by the adaptors (Ali's action) and shown in the record's \
         `action`, which the runner does not judge per platform";

/// The reason the rows of the Veo errors of a missing key or URL share.
const VEO_KEY_ERRORS: &str =
    "new-api's Veo content-route errors (DECISIONS D-PLAT-20, D-PLAT-21): the runner never \
         fails them, so no bug plants a failure; PlatformStatusMap(gemini) drives \
         platforms_veo::content, which reads them, and the mock's tests reach each";

/// The reason the rows of DashScope's refusals of a submit share.
const DASHSCOPE_SUBMIT_REFUSALS: &str =
    "DashScope's refusals as new-api relays them (DECISIONS D-PLAT-11) are no bug: the \
         runner skips them (planted_platforms.rs a_relayed_dashscope_refusal_is_no_finding)";

/// The reason the rows of the plugin era's Doubao ratios share.
const DOUBAO_PLUGIN_RATIOS: &str =
    "the plugin era's Doubao ratios (DECISIONS D-PLAT-23): the planted suites' mock plays \
         the adaptors' era; PlatformRatiosWrong plants the ratio class there, and the runner's \
         text-only submit announces none (r is 1): not planted in the plugin era yet";

/// The reason the rows of new-api's measuring of an upload share.
const NEW_API_MEASURES_UPLOADS: &str =
    "new-api's answers to an upload it measures before the relay (DECISIONS NA15, seen on \
         823e263): the runner accepts them as new-api's validation refusals of a translation, and \
         UncheckedTemperature plants a translation refusal not made, judged through them; which \
         extensions new-api cannot measure is new-api's own failure (NA15), not a bug to plant";

/// The reason the rows of the refusals of a search pattern share.
const SEARCH_PATTERN_REFUSALS: &str = "a refusal of a search pattern: no runner check sends a refused pattern (the mock's tests judge the messages); SearchMissesKey breaks the search the runner judges";

/// The reason the rows of new-api's Veo content-route errors share.
const VEO_CONTENT_ERRORS: &str = "new-api's Veo content-route errors (DECISIONS D-PLAT-20, D-PLAT-21): the runner never fails them (an upstream's 502 is not observed, the 500 for a missing key deviates), so no bug plants a failure; PlatformStatusMap(gemini) drives platforms_veo::content, which reads them, and the mock's tests (platforms_veo.rs) reach each through the control API";

/// Shared rules with no planted bug of their own: (rule, the bug that exercises it, why).
pub(crate) const NOT_PLANTABLE: &[(&str, Bug, &str)] = &[
    // The plugins' native routes (D-ERA-15).
    (
        "decode_create",
        Bug::NativeRoutesNotRouted,
        "a plugin's decode of the vendor's body, the mock's side: the runner sends the declared example, which the decode takes (its refusals are the mock's tests); a route that takes nothing is planted as not routed",
    ),
    // The plugin era around the platforms (D-ERA-9, D-ERA-10).
    (
        "ACTION_FIRST_TAIL_TO_VIDEO",
        Bug::PluginActionOldWord,
        IMAGE_ACTIONS,
    ),
    (
        "ACTION_IMAGE_TO_VIDEO",
        Bug::PluginActionOldWord,
        IMAGE_ACTIONS,
    ),
    (
        "ACTION_REFERENCE_TO_VIDEO",
        Bug::PluginActionOldWord,
        IMAGE_ACTIONS,
    ),
    (
        "ARTIFACT_GONE",
        Bug::PluginContentStatusWord,
        VEO_UPSTREAM_FAILURE,
    ),
    (
        "ARTIFACT_GONE_STATUS",
        Bug::PluginContentStatusWord,
        "the status of ARTIFACT_GONE's answer, read with it in one comparison (upstream_content_failure): a Veo content failure the upstream caused, not a deployment's bug; the content route's bug is planted on the row's status (D-ERA-9)",
    ),
    (
        "NOT_COMPLETED_STATUS",
        Bug::PluginContentStatusWord,
        "the status of the content route's refusal, which the runner compares before the status the refusal names; PluginContentStatusWord plants a refusal naming another status, judged through both (D-ERA-9)",
    ),
    (
        "PLUGIN_REFUSAL_STATUS",
        Bug::PluginJsonOnlyTakesMultipart,
        "the status of a plugin's refusal, which the runner compares with is_plugin_refusal in one condition; PluginJsonOnlyTakesMultipart plants a refusal not made, judged through both (D-ERA-10)",
    ),
    (
        "POLL_AFTER_HEADER",
        Bug::ProgressRegresses,
        "a pacing hint, not a judged rule: the runner spaces its polls of a video task by it when no --poll-interval is given, so every lifecycle bug (ProgressRegresses among them) is polled through it",
    ),
    (
        "ARTIFACT_UPSTREAM_ERROR",
        Bug::PluginContentStatusWord,
        VEO_UPSTREAM_FAILURE,
    ),
    (
        "INPUT_REFERENCE",
        Bug::PluginJsonOnlyTakesMultipart,
        UNSENT_BODIES,
    ),
    (
        "MSG_JSON_OR_MULTIPART",
        Bug::PluginJsonOnlyTakesMultipart,
        UNSENT_BODIES,
    ),
    (
        "MSG_ONE_INPUT_REFERENCE",
        Bug::PluginJsonOnlyTakesMultipart,
        UNSENT_BODIES,
    ),
    (
        "MSG_UNEXPECTED_FILE",
        Bug::PluginJsonOnlyTakesMultipart,
        UNSENT_BODIES,
    ),
    (
        "MAX_TASK_SECONDS",
        Bug::PluginJsonOnlyTakesMultipart,
        DECODER_SECONDS,
    ),
    (
        "MSG_SECONDS_RANGE",
        Bug::PluginJsonOnlyTakesMultipart,
        DECODER_SECONDS,
    ),
    (
        "seconds_within_limit",
        Bug::PluginJsonOnlyTakesMultipart,
        DECODER_SECONDS,
    ),
    // DashScope's refusals (D-PLAT-11): not a bug to plant.
    (
        "ALI_API_ERROR",
        Bug::PlatformStatusMap("ali"),
        DASHSCOPE_FETCH_REFUSALS,
    ),
    // DashScope's refusals (D-PLAT-11): not a bug to plant.
    (
        "INVALID_RESPONSE",
        Bug::PlatformStatusMap("ali"),
        DASHSCOPE_FETCH_REFUSALS,
    ),
    // DashScope's refusals (D-PLAT-11): not a bug to plant.
    (
        "fetch_refusal",
        Bug::PlatformStatusMap("ali"),
        DASHSCOPE_FETCH_REFUSALS,
    ),
    // Ali's HappyHorse models (D-PLAT-11): validation the runner does not send.
    (
        "action",
        Bug::PlatformStatusMap("ali"),
        "Ali's validateAndInferAliAction: the runner's Ali request is a Wan text-to-video one, \
         so only the mock's tests judge HappyHorse's refusals; the Ali check's own bugs are \
         planted on its record",
    ),
    (
        "image_count",
        Bug::PlatformStatusMap("ali"),
        "the images of an Ali request, inside action (the runner sends none)",
    ),
    (
        "ACTION_REFERENCE_GENERATE",
        Bug::PlatformStatusMap("ali"),
        "HappyHorse r2v's action, inside action (the runner sends no reference images)",
    ),
    (
        "ACTION_GENERATE",
        Bug::PlatformStatusMap("ali"),
        ACTION_WORDS,
    ),
    (
        "ACTION_TEXT_GENERATE",
        Bug::PlatformStatusMap("ali"),
        ACTION_WORDS,
    ),
    (
        "ACTION_REMIX",
        Bug::PlatformStatusMap("ali"),
        "new-api's action words, read by the adaptors (HappyHorse's video edit) and shown in \
         the record's `action`; the remix checks judge a remix by its source, not its action",
    ),
    (
        "is_happyhorse",
        Bug::PlatformRatiosWrong("ali"),
        "a HappyHorse model's `seconds` (0 for a video edit) inside other_ratios; the runner's \
         catalog model is a Wan one, and PlatformRatiosWrong breaks the ratios it judges",
    ),
    (
        "not_found_message",
        Bug::UnknownPathDashboard,
        NOT_FOUND_BODY,
    ),
    (
        "NEW_API_NOT_FOUND_TYPE",
        Bug::UnknownPathDashboard,
        NOT_FOUND_BODY,
    ),
    (
        "civil_from_days",
        Bug::NoRequestId,
        "the calendar of a Unix time: the date at the head of the mock's request ids, the \
         recordings' times and the HTML report's; no verdict judges a date's text, and \
         NoRequestId drops the ids it dates",
    ),
    ("REPLAY_HEADER", Bug::DisabledKeyAccepted, REPLAY_MARKER),
    ("HOP_BY_HOP", Bug::DisabledKeyAccepted, FORWARDING),
    ("REFRAMED", Bug::DisabledKeyAccepted, FORWARDING),
    ("is_passed_on", Bug::DisabledKeyAccepted, FORWARDING),
    ("REPLAY_UNMATCHED", Bug::DisabledKeyAccepted, REPLAY_MARKER),
    (
        "REPLAY_MATCHED",
        Bug::DisabledKeyAccepted,
        "not a rule of the service: the replay's marker of an answer from the recording (the \
         runner then polls without waiting); replay_later.rs judges a replay with a deadline \
         shorter than the recorded polls took",
    ),
    (
        "REPLAY_TIME_HEADER",
        Bug::DisabledKeyAccepted,
        "not a rule of the service: the recorded time of a replayed answer, the runner's now on \
         a replay; replay_later.rs judges a recording made three hours before",
    ),
    (
        "NEW_API_USER_HEADER",
        Bug::WrongTokenSucceeds,
        "the header's name, which the runner writes on every /api/token/ call and the mock reads \
         beside the access token; the access-token bugs plant on the same reads, and a name \
         alone is no verdict (a target reading another name fails every key-management check)",
    ),
    (
        "ACTION_SWAP_FACE",
        Bug::MjUploadNoUrls,
        "the face swap's action, whose model model_for names swap_face; the runner sends no face \
         swap (it would be charged for a task no check judges), so no verdict reads it",
    ),
    (
        "edits_supported",
        Bug::EditNotPng,
        "the runner picks the models it edits with by it; a target that also edits with dall-e-3 \
         is not wrong where the spec is silent, so no verdict could catch a planted one",
    ),
    (
        "NON_EDITING_MODELS",
        Bug::EditNotPng,
        "the list behind edits_supported (above)",
    ),
    (
        "edit_usage",
        Bug::EditNotPng,
        "the runner budgets an edit with it; usage.charged compares an edit's reported usage \
         with its charge (D-STREAM-7), not with this formula, so a planted overcharge that the \
         usage reports too would go unseen: a gap, not a pass",
    ),
    (
        "image_tokens",
        Bug::EditNotPng,
        "reached through edit_usage (above)",
    ),
    (
        "PLATFORM_KLING",
        Bug::KlingRawFetch,
        "the platform of a Kling task record depends on the deployment's channel; the runner \
         only reaches it through TaskStatus::on (SUBMITTED), which KlingRawFetch's envelope \
         check exercises",
    ),
    ("IP_REFUSAL_NEW_API", Bug::IpAllowlistIgnored, NEW_API_ONLY),
    (
        "MAX_REMAIN_QUOTA_NEW_API",
        Bug::NegativeQuotaStored,
        NEW_API_ONLY,
    ),
    (
        "default_image_size",
        Bug::ImageSizeUnchecked,
        "new-api's default size (NA9); images.missing-field-rejected drops `size` only on the \
         catalog's first image model, and the mock's is no DALL-E model, so a planted default \
         is never reached",
    ),
    (
        "parse_wav_head",
        Bug::WavGarbage,
        "parse_wav from a file's first bytes and its length: the mock measures an upload's WAV \
         in place with it, and parse_wav itself is parse_wav_head over the whole \
         file; the runner judges WAVs with parse_wav, whose bug WavGarbage plants",
    ),
    (
        "parse_size",
        Bug::ImageSizeUnchecked,
        "the `<w>x<h>` parser: the mock reads a request's size with it, and a parse that let \
         any size through is what ImageSizeUnchecked plants; the runner reads the requested size \
         with it to compare the PNG's",
    ),
    (
        "MSG_EXHAUSTED_CANNOT_ENABLE",
        Bug::EnableExpiredAccepted,
        "the exhausted-key twin of check 5; only key.state.matches-model's random sequences \
         reach it, so a planted bug would be caught by chance, not by a check",
    ),
    ("entries", Bug::IpAllowlistIgnored, IP_PARSER),
    ("entry_matches", Bug::IpAllowlistIgnored, IP_PARSER),
    ("is_restricted", Bug::IpAllowlistIgnored, IP_PARSER),
    (
        "model_allowed_in",
        Bug::ModelLimitsIgnored,
        "model_allowed for a given profile; the suite runs the documented profile, where it is \
         model_allowed",
    ),
    (
        "fnv1a",
        Bug::Mp3Garbage,
        "a hash, not a contract rule: the mock seeds its synthetic audio with it and the runner \
         shards checks with it; a broken seed only changes the audio that Mp3Garbage replaces",
    ),
    (
        "SERVICE",
        Bug::UnknownPathDashboard,
        "the mock's health signature, not a rule of the service; a target without it is a \
         deployment (healthy.rs runs a dashboard that answers 200 text/html everywhere)",
    ),
    (
        "unknown_model_message",
        Bug::UnknownModelAccepted,
        "the message text of the unknown-model refusal, compared only in the new-api diff; \
         UnknownModelAccepted removes the refusal",
    ),
    (
        "transcription_streams",
        Bug::DoneTextDiffers,
        "the runner picks the transcription model that streams with it; a model that ignores \
         stream answers plain JSON, which is a target that does not stream (skipped, not \
         failed: streams.rs), so no verdict could catch a planted one",
    ),
    ("transcription_diarizes", Bug::DoneTextDiffers, DIARIZE_ONLY),
    ("DIARIZED_JSON", Bug::DoneTextDiffers, DIARIZE_ONLY),
    ("segment_id", Bug::DoneTextDiffers, DIARIZE_ONLY),
    (
        "MAX_PARTIAL_IMAGES",
        Bug::PartialNotPng,
        "the bound of the request's partial_images (0 to 3); the runner asks for 2, within it, \
         and judges the partial images that come, which PartialNotPng breaks",
    ),
    // The video platforms: their bugs are generated per platform of ALL.
    (
        "all",
        Bug::PlatformStatusMap("vidu"),
        "the registry: planted_platforms.rs plants every bug on every platform of it \
         (a wrong status map, another task's record, no platform), each caught by check_record \
         or the follow's identity rule",
    ),
    (
        "Fetch",
        Bug::PlatformPollingOnly("gemini"),
        "a description's fetch mode picks its check's function: PlatformPollingOnly plants the \
         real-time platforms' bug, PlatformStatusMap the polled ones'",
    ),
    (
        "extend",
        Bug::PlatformStatusMap("vidu"),
        "adds a platform at run time (tests/throwaway_platform, checked by \
         task.platform.throwaway); the registry's platforms get their bugs through all()",
    ),
    (
        "NO_KEY",
        Bug::PlatformStatusMap("gemini"),
        VEO_KEY_ERRORS,
    ),
    (
        "resolve_failed",
        Bug::PlatformStatusMap("gemini"),
        VEO_KEY_ERRORS,
    ),
    (
        "submit_refusal",
        Bug::PlatformStatusMap("ali"),
        DASHSCOPE_SUBMIT_REFUSALS,
    ),
    (
        "is_relayed_refusal",
        Bug::PlatformStatusMap("ali"),
        DASHSCOPE_SUBMIT_REFUSALS,
    ),
    (
        "RATE_LIMITED_MESSAGE",
        Bug::PlatformStatusMap("ali"),
        DASHSCOPE_SUBMIT_REFUSALS,
    ),
    (
        "plugin_ratios",
        Bug::PlatformRatiosWrong("doubao"),
        DOUBAO_PLUGIN_RATIOS,
    ),
    (
        "plugin_video_input_ratio",
        Bug::PlatformRatiosWrong("doubao"),
        DOUBAO_PLUGIN_RATIOS,
    ),
    (
        "refuse_seconds",
        Bug::PlatformStatusMap("gemini"),
        "the Veo plugins' seconds refusal (DECISIONS D-PLAT-23): planted by \
         planted_platforms.rs a_plugin_refusal_not_made_deviates_in_the_plugin_era (a mock \
         playing the adaptors' era, judged as the plugin era), not by the mutation proxy",
    ),
    (
        "NEW_API_MEASURED_EXTENSIONS",
        Bug::UncheckedTemperature,
        NEW_API_MEASURES_UPLOADS,
    ),
    (
        "NEW_API_UNMEASURED_CODE",
        Bug::UncheckedTemperature,
        NEW_API_MEASURES_UPLOADS,
    ),
    (
        "NEW_API_UNMEASURED_STATUS",
        Bug::UncheckedTemperature,
        "the status of NEW_API_UNMEASURED_CODE's answer, read with it in one condition: new-api's \
         answers to an upload it measures before the relay (DECISIONS NA15, seen on 823e263); \
         UncheckedTemperature plants a translation refusal not made, judged through them; which \
         extensions new-api cannot measure is new-api's own failure (NA15), not a bug to plant",
    ),
    (
        "NEW_API_UPLOAD_CODES",
        Bug::UncheckedTemperature,
        NEW_API_MEASURES_UPLOADS,
    ),
    (
        "distributor_model",
        Bug::UnknownModelAccepted,
        "the model new-api's distributor fills into an image request without one (DECISIONS \
         NA5, seen on 823e263): the runner reads the 503 that follows by it; \
         UnknownModelAccepted plants the unknown-model class it belongs to",
    ),
    (
        "PLATFORM",
        Bug::PlatformStatusMap("hailuo"),
        "one platform's table, judged through check_record: PlatformStatusMap plants a status \
         its own data contradicts on each platform's record",
    ),
    (
        "OTHER_RATIOS_HEADER",
        Bug::PlatformRatiosDropped("doubao"),
        "the submit's billing header: PlatformRatiosDropped drops it (task.platform.* deviates, \
         D-PLAT-1) and PlatformRatiosWrong announces a ratio not charged (a failure, D-PLAT-9)",
    ),
    // The adaptors' EstimateBilling (D-PLAT-9): the ratios the runner expects of the
    // request it sends, and the mock charges with through quota::task_quota.
    (
        "other_ratios",
        Bug::PlatformRatiosWrong("ali"),
        "Ali's and Doubao's EstimateBilling: PlatformRatiosWrong adds a ratio the adaptor does \
         not announce and the charge does not carry; judge_quota fails it on every platform",
    ),
    (
        "no_ratios",
        Bug::PlatformRatiosWrong("vidu"),
        "Vidu's and MiniMax's per-call billing (`{}`): PlatformRatiosWrong announces a ratio on \
         them, which the record's quota contradicts",
    ),
    (
        "seconds",
        Bug::PlatformRatiosWrong("ali"),
        "Ali's `seconds` ratio, part of other_ratios: the wrong header breaks the charge it \
         explains",
    ),
    (
        "resolution",
        Bug::PlatformRatiosWrong("ali"),
        "Ali's resolution, which picks its `resolution-<R>` ratio in other_ratios (the runner's \
         catalog model has none; the mock's tests judge the values)",
    ),
    (
        "resolution_ratio",
        Bug::PlatformRatiosWrong("ali"),
        "ProcessAliOtherRatios' table, inside other_ratios (the runner's catalog model has no \
         entry; the mock's tests judge the values): the wrong header breaks the charge",
    ),
    (
        "size_resolution",
        Bug::PlatformRatiosWrong("ali"),
        "a DashScope size's resolution, inside other_ratios: the runner sends no size; the \
         mock's tests judge the ratio it leads to",
    ),
    (
        "video_input_ratio",
        Bug::PlatformRatiosWrong("doubao"),
        "Doubao's GetVideoInputRatio, inside other_ratios: PlatformRatiosWrong announces a \
         `video_input` the charge does not carry (the mock's tests judge the 2.0 tiers)",
    ),
    (
        "has_video_input",
        Bug::PlatformRatiosWrong("doubao"),
        "whether a Doubao request carries a video input (metadata.content): the runner sends \
         none, so its expected `video_input` is the model's base tier; the mock's tests judge a \
         request with one",
    ),
    (
        "MSG_DOUBLE_PERCENT",
        Bug::SearchMissesKey,
        SEARCH_PATTERN_REFUSALS,
    ),
    (
        "MSG_TOO_MANY_PERCENT",
        Bug::SearchMissesKey,
        SEARCH_PATTERN_REFUSALS,
    ),
    (
        "MSG_FUZZY_TOO_SHORT",
        Bug::SearchMissesKey,
        SEARCH_PATTERN_REFUSALS,
    ),
    (
        "utc_parts",
        Bug::AnthropicFirstIdWrong,
        "the calendar behind rfc3339, the `created_at` of the Anthropic list: models.anthropic-list compares each `created_at` with rfc3339 of the OpenAI `created` (no bug plants a wrong date yet; AnthropicFirstIdWrong breaks the same list), and the HTML report's and recordings' times",
    ),
    (
        "CONTENT_ERROR_TYPE",
        Bug::PlatformStatusMap("gemini"),
        VEO_CONTENT_ERRORS,
    ),
    (
        "FETCH_FAILED",
        Bug::PlatformStatusMap("gemini"),
        VEO_CONTENT_ERRORS,
    ),
    (
        "FILTERED",
        Bug::PlatformStatusMap("gemini"),
        VEO_CONTENT_ERRORS,
    ),
    (
        "NO_KEY_MESSAGE",
        Bug::PlatformStatusMap("gemini"),
        VEO_CONTENT_ERRORS,
    ),
];

const DIARIZE_ONLY: &str = "D-STREAM-5: reached only with a diarization model, which the \
                            embedded catalog the suite runs against has not; \
                            streams.rs::diarized_transcription_streams_have_valid_segments plants \
                            its bugs (no segment, a segment ending before it starts) with a \
                            stream script; DoneTextDiffers breaks the rest of the stream's check";
const NEW_API_ONLY: &str = "a value of the new-api profile, judged only under --expect new-api; \
                            the suite runs the documented profile, and the named bug breaks the \
                            rule it belongs to";
const IP_PARSER: &str = "a pure parser of allow_ips, exercised through ip::allows, whose bug is \
                         IpAllowlistIgnored";

/// The shared rules, and those of them that no planted bug names and no row excuses.
pub(crate) struct Coverage {
    /// Shared rules in all.
    pub(crate) shared: usize,
    /// Shared rules a planted bug names.
    pub(crate) planted: usize,
    /// Shared rules excused in [`NOT_PLANTABLE`].
    pub(crate) excused: usize,
    /// Shared rules neither planted nor excused.
    pub(crate) missing: Vec<String>,
}

/// Measures the suite's coverage of the shared rules.
pub(crate) fn coverage() -> Coverage {
    let shared = shared_rules();
    let bugs = planted();
    let mut c = Coverage {
        shared: shared.len(),
        planted: 0,
        excused: 0,
        missing: Vec::new(),
    };
    for rule in &shared {
        if bugs.iter().any(|(_, _, _, named)| names(named, rule)) {
            c.planted += 1;
        } else if NOT_PLANTABLE.iter().any(|(r, _, _)| r == rule) {
            c.excused += 1;
        } else {
            c.missing.push(rule.clone());
        }
    }
    c
}

impl std::fmt::Display for Coverage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} of {} shared rules planted, {} exercised through another rule's bug",
            self.planted, self.shared, self.excused
        )
    }
}

#[test]
fn every_shared_rule_has_a_planted_bug_or_says_why_not() {
    let c = coverage();
    println!("planted-bug coverage: {c}");
    assert!(c.shared > 20, "the scan found {} shared rules", c.shared);
    let shared = shared_rules();
    let bugs = planted();
    let mut problems: Vec<String> = c
        .missing
        .iter()
        .map(|r| format!("{r}: no planted bug names it and NOT_PLANTABLE has no row for it"))
        .collect();
    for (rule, bug, why) in NOT_PLANTABLE {
        if !shared.contains(*rule) {
            problems.push(format!("{rule}: in NOT_PLANTABLE but not a shared rule"));
        }
        if bugs.iter().any(|(_, _, _, named)| names(named, rule)) {
            problems.push(format!(
                "{rule}: in NOT_PLANTABLE but a planted bug names it"
            ));
        }
        if why.is_empty() || !bugs.iter().any(|(b, _, _, _)| b == bug) {
            problems.push(format!("{rule}: its row names {bug:?}, not a planted bug"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
