//! The rules one side goes without, and why: the table `rule_users` holds the code to.

/// Which consumer goes without a rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Lacks {
    /// The mock does not call it.
    Mock,
    /// The runner does not call it.
    Runner,
    /// Neither calls it.
    Both,
}

pub(super) const VALIDATOR: &str =
    "an oracle on a target's answer: the runner judges with it; the mock \
                         produces the answer (its tests judge the mock's answers with it)";
pub(super) const CLASSIFIER: &str =
    "classifies an answer into a rule's outcome: the mock answers with the \
                          statuses it classifies (ACCEPTED, Rejection / AccessRefusal \
                          http_status), the runner classifies with it";
pub(super) const PARSES_CREDENTIALS: &str =
    "how the service reads credentials; the runner sends them and \
                                  judges the refusals through Rejection / AccessRefusal";
pub(super) const MOCK_SIGNATURE: &str =
    "the mock writes its health signature with signature_body; the \
                              runner reads it with parse_signature at HEALTH_PATH";
pub(super) const PAGING: &str =
    "how the mock normalises and validates paging parameters; the runner's \
                      catalog.paging judges the envelopes' consistency (sizes, totals, every \
                      model once) without predicting defaults";
pub(super) const ENCODER: &str =
    "a checksum the mock's media encoders write; the runner's parsers check \
                       it through parse_* (no runner code names it)";
pub(super) const LIFECYCLE: &str =
    "the mock's clock-driven plan of a video task; a target's timing is its \
                         own, so the runner judges observed tasks with check_task / \
                         check_transition instead";

pub(super) const MEDIA_BOUND: &str =
    "a bound on the mock's own `/media/images/*.png` renderer (and the \
                           OpenAPI document); the spec pins no image side for a target's media \
                           host, so the runner judges a PNG's format and asked size only";

pub(super) const PROVIDER_REFUSAL: &str =
    "a refusal of the provider routes that the mock answers; the \
                                runner's provider checks judge the create, fetch and Action \
                                refusals only (discovery's Jimeng probe draws the task_id one \
                                without naming it)";

pub(super) const INFERS_RATIO: &str =
    "the runner infers one group ratio from the charges it measured on a \
                            target that publishes none; the mock charges with price_quota_at at \
                            its fixtures' ratio (DECISIONS D-STREAM-7)";

/// The rules one side goes without, and why.
pub(super) const ONE_SIDED: &[(&str, Lacks, &str)] = &[
    // The plugins' native routes (D-ERA-15).
    ("violations", Lacks::Mock, VALIDATOR),
    // DashScope's refusals (D-PLAT-11).
    (
        "REQUEST_FIELDS",
        Lacks::Runner,
        "the Go types of MidjourneyRequest's fields, by which the mock refuses a body as Go \
         decodes it; the runner sends well-typed bodies and no check judges a refusal of a \
         wrong type (Schemathesis' negative cases do, scripts/peer-check)",
    ),
    (
        "FieldType",
        Lacks::Runner,
        "the type of a REQUEST_FIELDS entry (above)",
    ),
    (
        "STREAMED_IMAGE_COUNT",
        Lacks::Runner,
        "the n of a streamed image generation, by which the mock refuses another n and the \
         OpenAPI document says so (if/then); the runner's stream check sends no n (its \
         default, 1) and no check judges that refusal (the mock's openapi_bodies test and \
         Schemathesis do, scripts/peer-check)",
    ),
    (
        "IMAGE_COUNT",
        Lacks::Runner,
        "the bounds of an image request's n, by which the mock refuses and the OpenAPI \
         document bounds it; the runner asks for counts within them and no check judges that \
         refusal (openapi_bodies and Schemathesis do)",
    ),
    (
        "SPEECH_SPEED",
        Lacks::Runner,
        "the bounds of a speech request's speed, as IMAGE_COUNT (above); the runner sends no \
         speed",
    ),
    (
        "fields_have_their_types",
        Lacks::Runner,
        "the check of REQUEST_FIELDS (above)",
    ),
    (
        "SWAP_FACE_IMAGES_REQUIRED",
        Lacks::Runner,
        "the face swap's refusal; the runner sends no face swap (a charged task no check \
         judges)",
    ),
    (
        "SWAP_FACE_PROMPT",
        Lacks::Runner,
        "the prompt new-api stores for a face swap (above)",
    ),
    (
        "UPLOAD_EMPTY",
        Lacks::Runner,
        "the upstream's text for an upload without images; mj.submit.upload judges its code 4, \
         not midjourney-proxy's wording",
    ),
    (
        "UPLOAD_MALFORMED",
        Lacks::Runner,
        "the upstream's text for an entry that is not a data URL (above)",
    ),
    (
        "is_data_url",
        Lacks::Runner,
        "how the mock, as midjourney-proxy, reads an upload entry; the runner sends a fixed \
         PNG data URL",
    ),
    (
        "image_seed",
        Lacks::Runner,
        "the mock's stand-in for the upstream's Discord seed: a target's seed is its own, so \
         no check compares it",
    ),
    ("check_record", Lacks::Mock, VALIDATOR),
    ("check_record_in", Lacks::Mock, VALIDATOR),
    ("parse_progress", Lacks::Mock, VALIDATOR),
    ("status_rank", Lacks::Mock, VALIDATOR),
    ("STATUSES", Lacks::Mock, VALIDATOR),
    (
        "MJ_MODELS",
        Lacks::Runner,
        "the Midjourney models the mock routes; the runner reads the target's models from its \
         catalog and names the imagine model through model_for",
    ),
    (
        "effective_key",
        Lacks::Runner,
        "how new-api reads a Midjourney key (Authorization, else mj-api-secret); the runner sends \
         the key each way and judges the answers (mj.auth.mj-api-secret)",
    ),
    (
        "PROXY_PLACEHOLDER",
        Lacks::Runner,
        "reached through effective_key (above)",
    ),
    (
        "SUBMIT_ROUTES",
        Lacks::Runner,
        "the mock's table of submit routes; the runner submits imagines only",
    ),
    (
        "CHANGE_ACTIONS",
        Lacks::Runner,
        "how the mock reads a change's action; the runner submits imagines only",
    ),
    (
        "action_of_custom_id",
        Lacks::Runner,
        "how the mock reads a button's customId; the runner submits imagines only",
    ),
    (
        "simple_change",
        Lacks::Runner,
        "how the mock reads simple-change content; the runner submits imagines only",
    ),
    (
        "record_status",
        Lacks::Runner,
        "how the mock names a task's state; the runner judges the records with check_record",
    ),
    (
        "charged_after_submit",
        Lacks::Runner,
        "when the mock charges a submit; no runner check judges a Midjourney charge yet (a gap)",
    ),
    (
        "is_image_part",
        Lacks::Runner,
        "how the service reads an edit's image parts (image, image[], image[<i>]); the runner \
         sends both spellings and judges the answers",
    ),
    (
        "MAX_EDIT_IMAGES",
        Lacks::Runner,
        "the mock's bound on an edit's images (and the OpenAPI document's); the runner sends one",
    ),
    (
        "MSG_IMAGE_REQUIRED",
        Lacks::Runner,
        "the message text of new-api's missing-image refusal; the runner judges the status and \
         code (missing_image), never message texts",
    ),
    ("is_access_admitted", Lacks::Mock, CLASSIFIER),
    ("is_admitted", Lacks::Mock, CLASSIFIER),
    (
        "IMPOSSIBLE_KEY_ID",
        Lacks::Mock,
        "the key id the runner names in every update sent without proven credentials, so a \
         target with broken auth changes no key; the mock stores keys from 1 and answers an \
         unknown id as any other (record not found)",
    ),
    ("is_accepted", Lacks::Mock, CLASSIFIER),
    ("is_key_refusal", Lacks::Mock, CLASSIFIER),
    ("KEY_REFUSALS", Lacks::Mock, CLASSIFIER),
    ("parse_bearer", Lacks::Runner, PARSES_CREDENTIALS),
    ("parse_access_token", Lacks::Runner, PARSES_CREDENTIALS),
    (
        "parse_update_body",
        Lacks::Runner,
        "how the service reads a PUT /api/token/ body; the runner writes those bodies and judges \
         the answers through check_request and apply_update",
    ),
    (
        "display_key",
        Lacks::Both,
        "the `sk-` display form, for library users and docs; both sides build keys from the \
         control API's answers",
    ),
    ("DEFAULT_PAGE_SIZE", Lacks::Runner, PAGING),
    ("MAX_PAGE_SIZE", Lacks::Runner, PAGING),
    ("MAX_PAGE", Lacks::Runner, PAGING),
    ("check_paging", Lacks::Runner, PAGING),
    ("query_pairs", Lacks::Runner, PAGING),
    ("HEALTH_PATH", Lacks::Mock, MOCK_SIGNATURE),
    ("parse_signature", Lacks::Mock, MOCK_SIGNATURE),
    ("signature_body", Lacks::Runner, MOCK_SIGNATURE),
    ("parse_png", Lacks::Mock, VALIDATOR),
    ("parse_srt", Lacks::Mock, VALIDATOR),
    ("parse_vtt", Lacks::Mock, VALIDATOR),
    (
        "parse_flac",
        Lacks::Both,
        "a validator for an encoding no check asks for yet; the mock's tests judge its FLAC \
         with it",
    ),
    (
        "parse_adts",
        Lacks::Both,
        "a validator for an encoding no check asks for yet; the mock's tests judge its AAC \
         with it",
    ),
    ("parse_ogg_opus", Lacks::Runner, VALIDATOR),
    ("crc32_ieee", Lacks::Mock, ENCODER),
    ("crc32_ogg", Lacks::Runner, ENCODER),
    ("MAX_IMAGE_SIDE", Lacks::Runner, MEDIA_BOUND),
    ("MAX_IMAGE_PIXELS", Lacks::Runner, MEDIA_BOUND),
    // The OpenAPI document's limits, which the mock's routes enforce.
    (
        "MAX_PROMPT_CHARS",
        Lacks::Runner,
        "the prompt limit of the OpenAPI document; no check sends an over-long prompt",
    ),
    (
        "MAX_SPEECH_INPUT_CHARS",
        Lacks::Runner,
        "the speech input limit of the OpenAPI document; no check sends an over-long input",
    ),
    (
        "ADTS_RATES",
        Lacks::Runner,
        "the ADTS sample-rate table the mock's AAC encoder writes; the runner reads it \
         through parse_adts (no runner code names it)",
    ),
    ("crc8_flac", Lacks::Runner, ENCODER),
    ("crc16_flac", Lacks::Runner, ENCODER),
    ("crc16_flac_update", Lacks::Runner, ENCODER),
    ("check_charge", Lacks::Mock, VALIDATOR),
    (
        "ORDER",
        Lacks::Both,
        "documents the order of a model route's checks; the mock's dispatch follows it step by \
         step (routes/mod.rs) and the runner sets up one refusal at a time",
    ),
    ("error_for", Lacks::Runner, LIFECYCLE),
    ("plan", Lacks::Runner, LIFECYCLE),
    ("VideoOutcome", Lacks::Runner, LIFECYCLE),
    ("state_at", Lacks::Runner, LIFECYCLE),
    ("shown_progress", Lacks::Runner, LIFECYCLE),
    ("one_ratio", Lacks::Mock, INFERS_RATIO),
    // D-QUOTA-5: a run charged 0 throughout, asked once more on a key holding one unit.
    ("ZERO_CHARGE_PROBE_QUOTA", Lacks::Mock, INFERS_RATIO),
    ("ZeroCharge", Lacks::Mock, INFERS_RATIO),
    ("read_zero_charge", Lacks::Mock, INFERS_RATIO),
    (
        "price_quota",
        Lacks::Both,
        "the catalog price (group ratio 1), kept for library users: both sides price with \
         price_quota_at at the key's group ratio (DECISIONS D-STREAM-7)",
    ),
    ("OverrideError", Lacks::Runner, LIFECYCLE),
    ("override_outcome", Lacks::Runner, LIFECYCLE),
    ("is_task_id", Lacks::Mock, VALIDATOR),
    (
        "TASK_RULES",
        Lacks::Both,
        "the list of check_task's rule ids, for library users",
    ),
    ("RULE_OBJECT", Lacks::Mock, VALIDATOR),
    ("RULE_PROGRESS_RANGE", Lacks::Mock, VALIDATOR),
    ("RULE_PROGRESS_100", Lacks::Mock, VALIDATOR),
    ("RULE_COMPLETED_AT", Lacks::Mock, VALIDATOR),
    ("task_violations", Lacks::Mock, VALIDATOR),
    ("check_task_rule", Lacks::Mock, VALIDATOR),
    ("check_task", Lacks::Mock, VALIDATOR),
    ("check_task_decisions", Lacks::Mock, VALIDATOR),
    ("check_task_decisions_in", Lacks::Mock, VALIDATOR),
    ("check_created", Lacks::Mock, VALIDATOR),
    ("check_transition", Lacks::Mock, VALIDATOR),
    (
        "new_api_not_found_body",
        Lacks::Runner,
        "the mock answers new-api's not-found body; the runner recognises it with \
         is_new_api_not_found",
    ),
    ("is_new_api_not_found", Lacks::Mock, VALIDATOR),
    (
        "new_api_not_found_is_json",
        Lacks::Runner,
        "which unrouted paths get new-api's JSON 404 rather than its dashboard page: the runner \
         probes unknown paths under /v1 only",
    ),
    ("missing_openai_keys", Lacks::Mock, VALIDATOR),
    (
        "OPENAI_NULLABLE_KEYS",
        Lacks::Mock,
        "the mock writes these keys through VideoTask (openai_nulls); the runner and the mock's \
         tests judge an object with missing_openai_keys",
    ),
    (
        "refund_on_edge",
        Lacks::Runner,
        "a target's task fails only if its provider fails it: the outcome controls are the \
         mock's own, so the runner cannot make the edge happen on a target",
    ),
    ("RULE_ENVELOPE", Lacks::Mock, VALIDATOR),
    ("RULE_PROGRESS", Lacks::Mock, VALIDATOR),
    ("RULE_STATUS", Lacks::Mock, VALIDATOR),
    ("RULE_TASK_ERROR", Lacks::Mock, VALIDATOR),
    ("RULE_TASK_ID", Lacks::Mock, VALIDATOR),
    ("RULE_TERMINAL_FIELDS", Lacks::Mock, VALIDATOR),
    ("RULE_TIMES", Lacks::Mock, VALIDATOR),
    ("RULE_TRANSITION", Lacks::Mock, VALIDATOR),
    ("RULE_RESULT", Lacks::Mock, VALIDATOR),
    (
        "is_failure_rule",
        Lacks::Mock,
        "the runner's line between failure and deviation on the task envelope (DECISIONS \
         D-TASK-10 to D-TASK-12); the mock gives verdicts on nothing",
    ),
    ("check_result", Lacks::Mock, VALIDATOR),
    (
        "judge_refund",
        Lacks::Mock,
        "an oracle on a target's key across a failed task: the mock refunds through \
         refund_on_edge, and its tests judge that refund directly",
    ),
    ("RefundSeen", Lacks::Mock, "judge_refund's verdict (above)"),
    ("check_envelope", Lacks::Mock, VALIDATOR),
    ("check_envelope_transition", Lacks::Mock, VALIDATOR),
    ("check_task_error", Lacks::Mock, VALIDATOR),
    ("envelope_task", Lacks::Mock, VALIDATOR),
    ("parse_progress", Lacks::Mock, VALIDATOR),
    (
        "SUCCESS_CODE",
        Lacks::Mock,
        "the mock writes it through TaskEnvelope::success (a struct's constructor, which the \
         scan does not follow); the runner's check_envelope judges it",
    ),
    (
        "task_error",
        Lacks::Runner,
        "builds the mock's task error bodies; the runner judges them with check_task_error",
    ),
    ("MSG_INVALID_BODY", Lacks::Runner, PROVIDER_REFUSAL),
    ("MSG_TASK_ID_REQUIRED", Lacks::Runner, PROVIDER_REFUSAL),
    ("PROMPT_REQUIRED", Lacks::Runner, PROVIDER_REFUSAL),
    ("TASK_FAILED", Lacks::Runner, PROVIDER_REFUSAL),
    (
        "FOREIGN_PENDING_STATUSES",
        Lacks::Mock,
        "status words of other gateways the sequence keeps polling on; the mock writes only \
         new-api's own",
    ),
    (
        "is_pending_status",
        Lacks::Mock,
        "the sequence's poller stops at the first status it does not name; the mock decides \
         its statuses by state_at",
    ),
    (
        "parse_utc",
        Lacks::Runner,
        "the replay reads its recording's recorded_at with it; the runner reads the recorded \
         time as the Unix seconds of x-gatecheck-replay-time",
    ),
    (
        "days_from_civil",
        Lacks::Runner,
        "parse_utc's calendar (above)",
    ),
    (
        "EDITS_PATH",
        Lacks::Mock,
        "the route's path: the mock serves it through its row of the route table \
         (gatecheck_schemas::routes::ROUTES, which reads it) and matches no path itself",
    ),
    // Task identity before form, a remix's source.
    ("other_task_named", Lacks::Mock, VALIDATOR),
    ("says_no_such_task", Lacks::Mock, VALIDATOR),
    // The video platforms behind the unified route (rules::platforms).
    // The registry: the check ids are the runner's; the mock finds a platform by
    // its channel type, a name only in its tests and a throwaway platform's; the task
    // platforms outside the registry are the mock's dashboard and state dump.
    ("CHECK_PREFIX", Lacks::Mock, "the runner's check ids (`task.platform.<name>`); the mock has no checks"),
    ("by_check_id", Lacks::Mock, "the runner's check finds its platform by its id; the mock has no checks"),
    ("by_name", Lacks::Both, "the tests' and the docs' lookup (an unknown name fails with its own name); the mock and the runner find a platform by channel type, model or check id"),
    ("MSG_JSON_BODY_REQUIRED", Lacks::Runner, "the native decoders' refusal of a body that is not JSON, which the mock writes; the runner sends JSON to the native routes"),
    ("OPENAI_VIDEO", Lacks::Runner, "the platform the mock records for a task of `/v1/videos`; the runner judges those tasks with the `video.*` checks"),
    ("by_channel_type_in", Lacks::Runner, "the mock's dispatch of a channel in the era it plays; the runner judges a record's channel type with Platform::serves_in (check_record_in)"),
    ("by_default_model_in", Lacks::Mock, "the runner looks in the catalog for a platform's model of the era it judges; the mock's channels list their models"),
    ("task_status_on", Lacks::Runner, "the record status the mock stores for a task of a platform outside the unified route; the runner judges the envelope's status with check_envelope"),
    ("check_record", Lacks::Mock, VALIDATOR),
    ("state_word", Lacks::Mock, VALIDATOR),
    ("RULE_PLATFORM", Lacks::Mock, VALIDATOR),
    ("RULE_STATUS_MAP", Lacks::Mock, VALIDATOR),
    ("RULE_PROGRESS_MAP", Lacks::Mock, VALIDATOR),
    ("RULE_DATA_SHAPE", Lacks::Mock, VALIDATOR),
    (
        "by_default_model",
        Lacks::Both,
        "the adaptors' era's lookup, for the tests: the runner finds a platform's model of the \
         era it judges with by_default_model_in; the mock routes a model by the channel that \
         lists it (channels.json), not by its name",
    ),
    (
        "by_channel_type",
        Lacks::Runner,
        "the mock picks the adaptor by the serving channel's type; the runner asks for a \
         platform's model and judges the record's platform with check_record",
    ),
    // Gemini and Vertex Veo (D-PLAT-20..22).
    (
        "DEFAULT_MODEL",
        Lacks::Runner,
        "the model new-api's Veo conversion shows for an operation name without one: the mock's \
         names always carry the model; the runner does not judge /v1/videos' model (D-PLAT-5)",
    ),
    (
        "model_of_operation",
        Lacks::Runner,
        "the mock's /v1/videos model of a Veo task; the runner judges that answer's identity and \
         status only (a channel's model mapping changes the model, D-PLAT-5)",
    ),
    (
        "realtime_status",
        Lacks::Runner,
        "the mock's real-time status word; the runner reads the word (REALTIME_STATUSES) and \
         judges its order, not the row behind it, which it cannot see",
    ),
    (
        "REALTIME_STATUSES",
        Lacks::Mock,
        "the runner's list of the real-time words; the mock writes them through realtime_status",
    ),
    (
        "operation_word",
        Lacks::Mock,
        "reads the state of a stored operation (check_record): the mock writes the operation \
         from the word, it never reads one back",
    ),
    (
        "size_aspect_ratio",
        Lacks::Runner,
        "what a Veo request renders: the runner does not see the upstream request",
    ),
    // Ali Wan (D-PLAT-8).
    (
        "video_status",
        Lacks::Runner,
        "Ali's convertAliStatus: the mock answers its submit and /v1/videos status with it; the \
         runner judges the record's status against the status map (check_record), and the \
         /v1/videos status of a platform's task only for its identity (D-PLAT-5)",
    ),
    (
        "INVALID_API_PLATFORM",
        Lacks::Runner,
        "needs a channel of a type no adaptor serves, which only the deployment's \
         configuration (the mock's channels.json) can make; the mock's tests judge it",
    ),
    (
        "BATCH_KEYS_MAX",
        Lacks::Runner,
        "the 101-id refusal of POST /api/token/batch/keys: judged by the mock's tests (tests/it/token_batch.rs); the runner's token.batch.keys-own-only sends two ids",
    ),
    (
        "MSG_INVALID_PARAMS",
        Lacks::Runner,
        "the refusal of an empty or malformed batch body: judged by the mock's tests; no runner check sends one",
    ),
    (
        "batch_too_many_message",
        Lacks::Runner,
        "as BATCH_KEYS_MAX (above)",
    ),
    (
        "parse_batch_ids",
        Lacks::Runner,
        "the mock's reading of a batch body; the runner sends well-formed ids",
    ),
    (
        "SEARCH_HARD_LIMIT",
        Lacks::Runner,
        "the page bound of GET /api/token/search; the runner searches one exact key",
    ),
    (
        "SEARCH_PATH",
        Lacks::Both,
        "the route table's row (routes.rs names it); the runner writes the path with its query",
    ),
    (
        "KEY_QUERY",
        Lacks::Runner,
        "`?key=` on the model lists: the runner sends the key as x-goog-api-key",
    ),
    (
        "ListShape",
        Lacks::Runner,
        "the mock's pick of the /v1/models answer; the runner sends each client's headers and judges the answer",
    ),
    (
        "list_shape",
        Lacks::Runner,
        "as ListShape (above)",
    ),
    (
        "list_credential",
        Lacks::Runner,
        "the mock's reading of the key on the model lists (TokenAuth); the runner sends one credential at a time",
    ),
    (
        "anthropic_list",
        Lacks::Runner,
        "the mock's building of the Anthropic list; the runner judges it against the OpenAI list with rfc3339",
    ),
    (
        "gemini_list",
        Lacks::Runner,
        "the mock's building of the Gemini list; the runner judges it against the OpenAI list",
    ),
    (
        "empty_model_error",
        Lacks::Runner,
        "new-api's answer to Gemini credentials on /v1/models (D-MODELS-2): the runner does not judge it",
    ),
    (
        "content_failure",
        Lacks::Runner,
        "the mock's answer to a chosen upstream state or condition; the runner reads such answers with upstream_content_failure (Veo content route's errors (DECISIONS D-PLAT-20, D-PLAT-21)",
    ),
    (
        "upstream_content_failure",
        Lacks::Mock,
        "the runner's reading of a content answer failed by the upstream; the mock writes those answers with content_failure (Veo content route's errors (DECISIONS D-PLAT-20, D-PLAT-21)",
    ),
    (
        "UPSTREAM_STATUS_PREFIX",
        Lacks::Mock,
        "new-api's 502 for a download answered with another status, which the mock does not model (its upstream serves the MP4); the runner recognises it (Veo content route's errors (DECISIONS D-PLAT-20, D-PLAT-21)",
    ),
    (
        "default_image_quality",
        Lacks::Runner,
        "the quality (and so the usage) the mock's new-api profile bills a DALL-E or GPT Image \
         request without one at, as new-api fills it in (seen on 823e263, docs/new-api-live.md); \
         the runner judges usage by its consistency (images.usage-consistent), not its value",
    ),
    (
        "FIRST_PLUGINS_RC",
        Lacks::Mock,
        "the runner tells a deployment's era from its version; the mock's era is its configuration (DECISIONS D-ERA-1)",
    ),
    (
        "LAST_ADAPTORS_RC",
        Lacks::Mock,
        "the runner tells a deployment's era from its version; the mock's era is its configuration (DECISIONS D-ERA-1)",
    ),
    (
        "era_of_version",
        Lacks::Mock,
        "the runner tells a deployment's era from its GET /api/status version; the mock reports its own version and says its era in its signature (DECISIONS D-ERA-1)",
    ),
    (
        "PLUGIN_ROUTE_PROBE",
        Lacks::Mock,
        "the runner's era probe; the mock's native vendor routes are the platform registry's (DECISIONS D-ERA-1)",
    ),
    (
        "plugin_route_served",
        Lacks::Mock,
        "the runner reads the era probe's answer with it (DECISIONS D-ERA-1)",
    ),
    (
        "NOT_FOUND_NO_STORE",
        Lacks::Runner,
        "the mock writes the plugin era's not-found headers; the runner judges any no-store directive with forbids_store (DECISIONS D-ERA-5)",
    ),
    (
        "forbids_store",
        Lacks::Mock,
        "the runner's reading of Cache-Control; the mock writes NOT_FOUND_NO_STORE (DECISIONS D-ERA-5)",
    ),
    (
        "plugin_refusal_body",
        Lacks::Runner,
        "the mock writes a plugin's refusal with it; the runner reads it with is_plugin_refusal (DECISIONS D-ERA-4)",
    ),
    (
        "is_plugin_refusal",
        Lacks::Mock,
        "the runner's reading of a plugin's refusal; the mock writes it with plugin_refusal_body (DECISIONS D-ERA-4)",
    ),
    (
        "plugin_refusal_message",
        Lacks::Mock,
        "the runner's reading of a plugin refusal's message, in the task error or the /v1 envelope; the mock writes the message with plugin_refusal_body (DECISIONS D-ERA-4)",
    ),
    (
        "PLUGIN_USAGE_INVALID",
        Lacks::Mock,
        "a plugin's usage refusal, which the mock's host does not raise (usage facts are the platform registry's); the runner accepts it as a plugin's refusal (DECISIONS D-ERA-4)",
    ),
    ("check_task_decisions_named", Lacks::Mock, VALIDATOR),
    (
        "new_api_unmeasured",
        Lacks::Runner,
        "the mock's new-api profile refuses an extension new-api cannot measure with it; the \
         runner judges the refusal's code (NEW_API_UPLOAD_CODES), not which extensions (DECISIONS NA15)",
    ),
    (
        "stateless_refusal",
        Lacks::Runner,
        "the mock writes the stateless dashboard auth's refusal with it; the runner reads it with is_stateless_refusal (DECISIONS D-AUTH-9)",
    ),
    (
        "MSG_ACCESS_TOKEN_INVALID",
        Lacks::Runner,
        "the text of the stateless refusal, which the mock writes; the runner judges its status and code (is_stateless_refusal), not the text (DECISIONS D-AUTH-9)",
    ),
    (
        "is_stateless_refusal",
        Lacks::Mock,
        "the runner's reading of the stateless refusal; the mock writes it with stateless_refusal (DECISIONS D-AUTH-9)",
    ),
    (
        "not_completed_body",
        Lacks::Runner,
        "the mock writes the content refusal with it; the runner reads the status it names with named_status (DECISIONS D-ERA-9)",
    ),
    (
        "named_status",
        Lacks::Mock,
        "the runner's reading of a content refusal; the mock writes it with not_completed_body (DECISIONS D-ERA-9)",
    ),
    (
        "plugin_content",
        Lacks::Runner,
        "the mock's content route of a platform task; the runner judges what it observes of the record (the content before and after SUCCESS), as it cannot read the plugin's artifact (DECISIONS D-ERA-9)",
    ),
    (
        "PluginContent",
        Lacks::Runner,
        "plugin_content's answer, which the mock serves (DECISIONS D-ERA-9)",
    ),
    (
        "artifact_gone_body",
        Lacks::Runner,
        "the mock writes the 410 with it; the runner reads its code (ARTIFACT_GONE) in upstream_content_failure (DECISIONS D-ERA-9)",
    ),
    (
        "plugin_content_failure",
        Lacks::Runner,
        "the mock's Veo content conditions in the plugin era; the runner takes their answers as the upstream's failure with upstream_content_failure (DECISIONS D-ERA-9)",
    ),
    (
        "ARTIFACT_FETCH_FAILED",
        Lacks::Runner,
        "the message of the mock's failed artifact download; the runner reads its code (ARTIFACT_UPSTREAM_ERROR) (DECISIONS D-ERA-9)",
    ),
    (
        "CONTENT_ERROR_CACHE_CONTROL",
        Lacks::Runner,
        "the cache header the mock writes on the plugin era's content errors; not judged (a client relies on the status, not its caching; DECISIONS D-ERA-9)",
    ),
];
