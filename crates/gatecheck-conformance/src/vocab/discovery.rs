//! What the target serves, learned once before the checks with safe probes.
//!
//! Each route family the spec pins is probed without credentials, with a body that cannot
//! change anything (no model, no prompt; a key id that cannot exist). A route that is served
//! refuses such a request (401, 400...); a route that is not served answers 404, 405 or 501.
//! When the target answers 404, 405, 501, 401 or 403 without credentials and the run has them,
//! the probe is sent once more with them: a gateway that hides its routes from strangers is not
//! mistaken for one that lacks them, and one that refuses strangers on every path is not
//! mistaken for one that serves them.
//!
//! A route the spec pins and the target does not serve is one finding (`route.*`), and every
//! check that needs it is skipped with the cause [`SkipCause::RouteNotServed`]. The checks that
//! probe rules across routes (auth, validation, error bodies) use only the served routes.
//!
//! [`SkipCause::RouteNotServed`]: crate::SkipCause::RouteNotServed

use crate::http::client::{Auth, Exchange, RequestSpec};
use crate::http::transport::{Transport, TransportError};
use gatecheck_schemas::rules::token::IMPOSSIBLE_KEY_ID;
use gatecheck_schemas::types::{Endpoints, ModelCapabilities, ModelRecord, Pricing};
use serde::Serialize;
use serde_json::json;
use std::collections::BTreeMap;

/// A family of routes, probed as one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RouteFamily {
    /// `POST /v1/audio/translations`.
    AudioTranslations,
    /// `POST /v1/audio/speech`.
    AudioSpeech,
    /// `POST /v1/audio/transcriptions` (named by the spec, its path "not shown": not pinned).
    AudioTranscriptions,
    /// `POST /v1/videos`.
    VideoCreate,
    /// `GET /v1/videos/{task_id}`.
    VideoPoll,
    /// `POST /v1/images/generations`.
    ImageGenerations,
    /// `GET /api/models`.
    Catalog,
    /// `PUT /api/token/`.
    KeyUpdate,
    /// `POST /v1/images/edits` (named by the spec, its payload "not shown": not pinned;
    /// DECISIONS D-EDIT).
    ImageEdits,
    /// `GET /mj/task/{id}/fetch` and the Midjourney submits (provider image task routes,
    /// "not shown": not pinned; DECISIONS D-MJ).
    Midjourney,
    /// new-api's unified video routes, `POST /v1/video/generations` (named by the spec, not
    /// described: not pinned; DECISIONS D-TASK).
    VideoGenerations,
    /// `POST /v1/videos/{video_id}/remix` (not pinned; DECISIONS D-TASK-4).
    VideoRemix,
    /// new-api's Kling routes, `/kling/v1/videos/*` (not pinned; DECISIONS D-TASK-6).
    Kling,
    /// new-api's Jimeng route, `POST /jimeng/?Action=...` (not pinned; DECISIONS D-TASK-7).
    Jimeng,
}

impl RouteFamily {
    /// Every family, in probe order.
    pub const ALL: [RouteFamily; 14] = [
        RouteFamily::AudioTranslations,
        RouteFamily::AudioSpeech,
        RouteFamily::AudioTranscriptions,
        RouteFamily::VideoCreate,
        RouteFamily::VideoPoll,
        RouteFamily::ImageGenerations,
        RouteFamily::Catalog,
        RouteFamily::KeyUpdate,
        RouteFamily::ImageEdits,
        RouteFamily::Midjourney,
        RouteFamily::VideoGenerations,
        RouteFamily::VideoRemix,
        RouteFamily::Kling,
        RouteFamily::Jimeng,
    ];

    /// The route as the spec names it.
    pub fn route(self) -> &'static str {
        match self {
            RouteFamily::AudioTranslations => "POST /v1/audio/translations",
            RouteFamily::AudioSpeech => "POST /v1/audio/speech",
            RouteFamily::AudioTranscriptions => "POST /v1/audio/transcriptions",
            RouteFamily::VideoCreate => "POST /v1/videos",
            RouteFamily::VideoPoll => "GET /v1/videos/{task_id}",
            RouteFamily::ImageGenerations => "POST /v1/images/generations",
            RouteFamily::Catalog => "GET /api/models",
            RouteFamily::KeyUpdate => "PUT /api/token/",
            RouteFamily::ImageEdits => "POST /v1/images/edits",
            RouteFamily::Midjourney => "GET /mj/task/{id}/fetch",
            RouteFamily::VideoGenerations => "POST /v1/video/generations",
            RouteFamily::VideoRemix => "POST /v1/videos/{video_id}/remix",
            RouteFamily::Kling => "POST /kling/v1/videos/text2video",
            RouteFamily::Jimeng => "POST /jimeng/",
        }
    }

    /// Whether the spec pins the route (its path and behaviour are given).
    pub fn pinned(self) -> bool {
        !matches!(
            self,
            RouteFamily::AudioTranscriptions
                | RouteFamily::ImageEdits
                | RouteFamily::Midjourney
                | RouteFamily::VideoGenerations
                | RouteFamily::VideoRemix
                | RouteFamily::Kling
                | RouteFamily::Jimeng
        )
    }

    /// Whether the answer to this family's probe says the route is served: not 404, 405 or
    /// 501, and, outside `/v1`, not a 2xx `text/html` page: new-api answers its web dashboard
    /// (200) to any unknown path outside `/v1`, `/api` and `/assets` (router/web-router.go
    /// NoRoute), and these probes cannot succeed.
    fn served_by(self, ex: &Exchange) -> bool {
        let dashboard = matches!(self, RouteFamily::Kling | RouteFamily::Jimeng)
            && ex.status.is_success()
            && ex
                .content_type()
                .is_some_and(|ct| ct.starts_with("text/html"));
        !not_served_status(ex.status.as_u16()) && !dashboard
    }

    /// Whether the route is a model route (`/v1`, API key) rather than an account route.
    pub fn is_model_route(self) -> bool {
        !matches!(self, RouteFamily::Catalog | RouteFamily::KeyUpdate)
    }

    /// The probe: the route's method and path, no credentials, a body that changes nothing.
    fn probe(self) -> RequestSpec {
        match self {
            RouteFamily::AudioTranslations => RequestSpec::post("/v1/audio/translations"),
            RouteFamily::AudioSpeech => RequestSpec::post("/v1/audio/speech").json(json!({})),
            RouteFamily::AudioTranscriptions => RequestSpec::post("/v1/audio/transcriptions"),
            RouteFamily::VideoCreate => RequestSpec::post("/v1/videos").json(json!({})),
            RouteFamily::VideoPoll => {
                RequestSpec::get("/v1/videos/task_00000000000000000000000000000000")
            }
            RouteFamily::ImageGenerations => {
                RequestSpec::post("/v1/images/generations").json(json!({}))
            }
            RouteFamily::Catalog => RequestSpec::get("/api/models"),
            RouteFamily::KeyUpdate => {
                RequestSpec::put("/api/token/").json(json!({ "id": IMPOSSIBLE_KEY_ID }))
            }
            RouteFamily::ImageEdits => RequestSpec::post("/v1/images/edits"),
            RouteFamily::Midjourney => RequestSpec::get("/mj/task/0/fetch"),
            RouteFamily::VideoGenerations => {
                RequestSpec::post("/v1/video/generations").json(json!({}))
            }
            RouteFamily::VideoRemix => {
                RequestSpec::post("/v1/videos/task_00000000000000000000000000000000/remix")
                    .json(json!({}))
            }
            RouteFamily::Kling => RequestSpec::post("/kling/v1/videos/text2video").json(json!({})),
            // Without `task_id`: refused before the key is read, changes nothing.
            RouteFamily::Jimeng => {
                RequestSpec::post("/jimeng/?Action=CVSync2AsyncGetResult").json(json!({}))
            }
        }
    }
}

/// Whether the probes say the target serves `family`: true when it was not probed (an offline
/// dry run probes nothing).
pub fn serves(routes: &[RouteProbe], family: RouteFamily) -> bool {
    routes
        .iter()
        .find(|p| p.family == family)
        .is_none_or(|p| p.served)
}

/// Whether a status says the route does not exist on the target.
pub fn not_served_status(status: u16) -> bool {
    matches!(status, 404 | 405 | 501)
}

/// What one probe found.
#[derive(Debug, Clone)]
pub struct RouteProbe {
    /// The family probed.
    pub family: RouteFamily,
    /// Whether the target serves it.
    pub served: bool,
    /// The probes sent and their answers (the last one decided).
    pub exchanges: Vec<(RequestSpec, Exchange)>,
}

impl RouteProbe {
    /// The status of the deciding answer.
    pub fn status(&self) -> u16 {
        self.exchanges
            .last()
            .map(|(_, ex)| ex.status.as_u16())
            .unwrap_or(0)
    }
}

/// The credentials the run has, for the second probe of a route that answered 404.
#[derive(Debug, Clone, Copy, Default)]
pub struct ProbeCredentials {
    /// An API key (`--api-key`) is known.
    pub api_key: bool,
    /// An access token is known.
    pub access_token: bool,
}

/// Probes every family. A request that cannot be sent (connection lost...) is an error; the
/// caller names the stage.
pub async fn probe_routes(
    t: &Transport,
    creds: ProbeCredentials,
) -> Result<Vec<RouteProbe>, TransportError> {
    let mut out: Vec<RouteProbe> = Vec::new();
    for family in RouteFamily::ALL {
        let probe = probe_one(t, family, creds).await?;
        out.push(probe);
    }
    // A poll route without a create route is no route at all when the poll answered 404.
    let create_served = out
        .iter()
        .any(|p| p.family == RouteFamily::VideoCreate && p.served);
    if let Some(poll) = out.iter_mut().find(|p| p.family == RouteFamily::VideoPoll)
        && !create_served
        && not_served_status(poll.status())
    {
        poll.served = false;
    }
    Ok(out)
}

async fn probe_one(
    t: &Transport,
    family: RouteFamily,
    creds: ProbeCredentials,
) -> Result<RouteProbe, TransportError> {
    let spec = family.probe();
    let ex = t.send_probe(&spec).await?;
    let mut probe = RouteProbe {
        family,
        served: family.served_by(&ex),
        exchanges: vec![(spec.clone(), ex)],
    };
    // An unknown task id is a 404 on a served poll route: only the unauthenticated answer
    // can tell, and the create route decides (above). A gateway that refuses every stranger
    // (401 or 403 on any path) is asked again with the credentials too.
    let status = probe.status();
    let ask_again = !probe.served || matches!(status, 401 | 403);
    if !ask_again || family == RouteFamily::VideoPoll {
        return Ok(probe);
    }
    let auth = match family {
        RouteFamily::KeyUpdate if creds.access_token => Auth::AccessToken,
        RouteFamily::KeyUpdate => return Ok(probe),
        _ if creds.api_key => Auth::ApiKey,
        _ => return Ok(probe),
    };
    let spec = spec.auth(auth);
    let ex = t.send_probe(&spec).await?;
    probe.served = family.served_by(&ex);
    probe.exchanges.push((spec, ex));
    Ok(probe)
}

/// Where the run's models came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ModelsSource {
    /// The catalog, `GET /api/models`.
    Catalog,
    /// OpenAI's model list, `GET /v1/models` (the catalog is not served or empty).
    ModelList,
    /// `--model KIND=ID` only.
    Option,
    /// No source: checks that need a model are skipped.
    None,
}

impl ModelsSource {
    /// How the report names the source.
    pub fn describe(self) -> &'static str {
        match self {
            ModelsSource::Catalog => "GET /api/models",
            ModelsSource::ModelList => "GET /v1/models",
            ModelsSource::Option => "--model",
            ModelsSource::None => "none",
        }
    }
}

/// What the report says about discovery.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DiscoveryReport {
    /// Each family probed, with what was found.
    pub routes: Vec<RouteSeen>,
    /// Where the models came from (`GET /api/models`, `GET /v1/models`, `--model`, `none`).
    pub models_source: String,
    /// How many models the run knows.
    pub models: usize,
}

/// One probed route in the report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RouteSeen {
    /// The route, e.g. `POST /v1/audio/translations`.
    pub route: String,
    /// Whether the spec pins it.
    pub pinned: bool,
    /// Whether the target serves it.
    pub served: bool,
    /// The status of the deciding probe.
    pub status: u16,
}

impl DiscoveryReport {
    /// The report's view of the probes and the models' source.
    pub fn new(routes: &[RouteProbe], source: ModelsSource, models: usize) -> Self {
        Self {
            routes: routes
                .iter()
                .map(|p| RouteSeen {
                    route: p.family.route().to_owned(),
                    pinned: p.family.pinned(),
                    served: p.served,
                    status: p.status(),
                })
                .collect(),
            models_source: source.describe().to_owned(),
            models,
        }
    }

    /// The pinned routes the target does not serve.
    pub fn lacks(&self) -> Vec<&RouteSeen> {
        self.routes
            .iter()
            .filter(|r| r.pinned && !r.served)
            .collect()
    }
}

/// A kind of model the checks need, for `--model KIND=ID`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ModelKind {
    /// Video generation (`POST /v1/videos`).
    Video,
    /// Image generation.
    Image,
    /// Text to speech.
    Speech,
    /// Translation and transcription.
    Transcription,
}

impl ModelKind {
    /// Whether `caps` has this kind's capability.
    pub fn has(self, caps: &ModelCapabilities) -> bool {
        match self {
            ModelKind::Video => caps.video.is_some(),
            ModelKind::Image => caps.image.is_some(),
            ModelKind::Speech => caps.speech.is_some(),
            ModelKind::Transcription => caps.transcription.is_some(),
        }
    }

    /// `caps` with only this kind's capability kept.
    pub fn only(self, caps: &ModelCapabilities) -> ModelCapabilities {
        let mut out = ModelCapabilities::default();
        match self {
            ModelKind::Video => out.video = caps.video.clone(),
            ModelKind::Image => out.image = caps.image.clone(),
            ModelKind::Speech => out.speech = caps.speech.clone(),
            ModelKind::Transcription => out.transcription = caps.transcription.clone(),
        }
        out
    }
}

impl std::str::FromStr for ModelKind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "video" => Ok(Self::Video),
            "image" => Ok(Self::Image),
            "speech" | "tts" => Ok(Self::Speech),
            "transcription" | "translation" | "audio" => Ok(Self::Transcription),
            other => Err(format!(
                "unknown model kind {other:?}: expected video, image, speech or transcription"
            )),
        }
    }
}

/// Parses `KIND=ID` (`--model video=my-video-model`).
///
/// ```
/// use gatecheck_conformance::discovery::{parse_model_option, ModelKind};
/// assert_eq!(parse_model_option("video=sora-2").unwrap(), (ModelKind::Video, "sora-2".to_owned()));
/// assert!(parse_model_option("sora-2").is_err());
/// ```
pub fn parse_model_option(s: &str) -> Result<(ModelKind, String), String> {
    let (kind, id) = s
        .split_once('=')
        .ok_or_else(|| format!("--model {s:?}: expected KIND=ID, e.g. video=sora-2"))?;
    let id = id.trim();
    if id.is_empty() {
        return Err(format!("--model {s:?}: the model id is empty"));
    }
    Ok((kind.trim().parse()?, id.to_owned()))
}

/// A catalog record for a model known only by its id (from `GET /v1/models` or `--model`):
/// no price, no features.
pub fn bare_record(id: &str) -> ModelRecord {
    ModelRecord {
        created: 0,
        id: id.to_owned(),
        code: id.to_owned(),
        provider: String::new(),
        provider_code: String::new(),
        name: id.to_owned(),
        model_type: String::new(),
        features: Vec::new(),
        endpoints: Endpoints::Formats(Vec::new()),
        pricing: Pricing {
            currency: String::new(),
            input: None,
            output: None,
            per_request: None,
            per_second: None,
        },
    }
}

/// The ids of OpenAI's model list, `GET /v1/models` (`{"data":[{"id":..}]}`), with the run's
/// API key. `Err` says why there are none (`GET /v1/models answered 500`) when the answer is
/// not a 2xx list.
pub async fn fetch_model_list(
    t: &Transport,
) -> Result<Result<Vec<String>, String>, TransportError> {
    let ex = t
        .send_probe(&RequestSpec::get("/v1/models").auth(Auth::ApiKey))
        .await?;
    if !ex.status.is_success() {
        return Ok(Err(format!(
            "GET /v1/models answered {}",
            crate::evidence::status_text(ex.status.as_u16())
        )));
    }
    let v = ex.json().unwrap_or(serde_json::Value::Null);
    let Some(items) = v.get("data").and_then(serde_json::Value::as_array) else {
        return Ok(Err("GET /v1/models answered no `data` list".into()));
    };
    Ok(Ok(items
        .iter()
        .filter_map(|m| m.get("id").and_then(serde_json::Value::as_str))
        .map(str::to_owned)
        .collect()))
}

/// Adds the user's `--model KIND=ID` models: a bare record when the id is not listed, and the
/// capabilities of the kind (those of the first known model of that kind) when the id has none.
pub fn apply_model_options(
    options: &[(ModelKind, String)],
    models: &mut Vec<ModelRecord>,
    caps: &mut BTreeMap<String, ModelCapabilities>,
    known: &BTreeMap<String, ModelCapabilities>,
) {
    for (kind, id) in options {
        if !models.iter().any(|m| &m.id == id) {
            models.insert(0, bare_record(id));
        } else if let Some(pos) = models.iter().position(|m| &m.id == id) {
            // The named model comes first, so the checks pick it.
            let m = models.remove(pos);
            models.insert(0, m);
        }
        let has = caps.get(id).is_some_and(|c| kind.has(c));
        if !has && let Some(template) = known.values().find(|c| kind.has(c)) {
            let add = kind.only(template);
            let entry = caps.entry(id.clone()).or_default();
            match kind {
                ModelKind::Video => entry.video = add.video,
                ModelKind::Image => entry.image = add.image,
                ModelKind::Speech => entry.speech = add.speech,
                ModelKind::Transcription => entry.transcription = add.transcription,
            }
        }
    }
}

/// The route families a check needs the target to serve (`Check::needs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Needs {
    /// Nothing discovery decides (the `route.*` checks judge discovery itself).
    Nothing,
    /// Every one of these families.
    All(&'static [RouteFamily]),
    /// Any served model route: the rules that hold across routes (auth, error bodies) are
    /// probed on the routes the target serves.
    AnyModelRoute,
}

/// Why a check with these needs cannot run on a target with these probes: the routes it
/// needs that are not served. `None` when it can run.
pub fn unmet(needs: &Needs, routes: &[RouteProbe]) -> Option<String> {
    let served = |f: RouteFamily| serves(routes, f);
    match needs {
        Needs::Nothing => None,
        Needs::AnyModelRoute => {
            let any = RouteFamily::ALL
                .iter()
                .any(|f| f.pinned() && f.is_model_route() && served(*f));
            (!any).then(|| "the target serves none of the model routes the spec pins".to_owned())
        }
        Needs::All(families) => {
            let missing: Vec<&str> = families
                .iter()
                .filter(|f| !served(**f))
                .map(|f| f.route())
                .collect();
            (!missing.is_empty()).then(|| {
                format!(
                    "needs {}, which the target does not serve (see the route.* checks)",
                    missing.join(" and ")
                )
            })
        }
    }
}
