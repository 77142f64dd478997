//! What the runner learned about the target before the checks ([`Env`]), shared by every
//! check, and the one place it is made ([`Env::new`], from what set-up learned: [`Learned`]).

use super::{video_run, Halt, ImageExchange};
use crate::http::key_api::WorkKey;
use crate::http::mock_control::MockControl;
use crate::vocab::discovery::{ModelsSource, RouteFamily, RouteProbe};
use gatecheck_schemas::types::{ModelCapabilities, ModelRecord};
use std::collections::BTreeMap;
use std::net::IpAddr;
use std::sync::Arc;

/// What the runner learned about the target.
#[derive(Debug)]
pub(crate) struct Env {
    /// The target as discovery left it: the user's, with the credentials it adopted from the
    /// mock (access token, user id).
    pub target: crate::http::target::Target,
    pub mock: Option<MockControl>,
    pub client_ip: Option<IpAddr>,
    pub models: Vec<ModelRecord>,
    pub caps: BTreeMap<String, ModelCapabilities>,
    pub groups: Vec<String>,
    pub key: Option<WorkKey>,
    pub has_access_token: bool,
    pub has_api_key: bool,
    /// The observed video run, shared by the lifecycle checks.
    pub video: tokio::sync::OnceCell<Arc<Result<video_run::VideoRun, Halt>>>,
    /// The image results, shared by the image checks.
    pub images: tokio::sync::OnceCell<Result<Vec<ImageExchange>, Halt>>,
    /// What discovery decided about the target (for the report).
    pub notes: Vec<String>,
    /// The route families probed, and whether each is served (empty: not probed).
    pub routes: Vec<RouteProbe>,
    /// Where the models came from.
    pub models_source: ModelsSource,
    /// Why discovery found no model (`GET /api/models answered 404 Not Found, GET /v1/models
    /// answered 500 ...`), when it found none.
    pub no_models: Option<String>,
    /// Requests sent while setting up the working key (counted in the report).
    pub setup_requests: u64,
    /// Shrink steps taken so far, all checks together (bounded by `--shrink-budget`).
    pub shrink_spent: std::sync::atomic::AtomicU32,
    /// Samples of the media the checks judged (for the HTML report).
    pub media: crate::vocab::artifacts::SampleBox,
    /// The video platforms' tasks followed (`platforms.rs`), with their platform, for the
    /// HTML report.
    pub platform_tasks: parking_lot::Mutex<Vec<crate::vocab::artifacts::TaskTimeline>>,
    /// The ratio the working key's group is charged at (DECISIONS D-STREAM-7).
    pub group_ratio: crate::http::pricing::GroupRatio,
    /// The era of new-api's task layer answers are judged by, and how it was told.
    pub era: crate::vocab::era::EraSeen,
}

/// What set-up learned about the target (`run::setup`: discovery, or an offline dry run): all
/// of [`Env`] but what the checks fill in as they run, and what follows from the target.
pub(crate) struct Learned {
    pub target: crate::http::target::Target,
    pub mock: Option<MockControl>,
    pub client_ip: Option<IpAddr>,
    pub models: Vec<ModelRecord>,
    pub caps: BTreeMap<String, ModelCapabilities>,
    pub groups: Vec<String>,
    pub key: Option<WorkKey>,
    pub notes: Vec<String>,
    pub routes: Vec<RouteProbe>,
    pub models_source: ModelsSource,
    pub no_models: Option<String>,
    pub setup_requests: u64,
    pub group_ratio: crate::http::pricing::GroupRatio,
    pub era: crate::vocab::era::EraSeen,
}

impl Env {
    /// The shared observations of a run, from what set-up learned: the credentials the target
    /// holds, and empty cells for what the checks observe (the video run, the image results,
    /// the media samples, the platforms' tasks, the shrink steps).
    pub(crate) fn new(l: Learned) -> Env {
        Env {
            has_access_token: l.target.access_token.is_some(),
            has_api_key: l.target.api_key.is_some(),
            target: l.target,
            mock: l.mock,
            client_ip: l.client_ip,
            models: l.models,
            caps: l.caps,
            groups: l.groups,
            key: l.key,
            video: Default::default(),
            images: Default::default(),
            notes: l.notes,
            routes: l.routes,
            models_source: l.models_source,
            no_models: l.no_models,
            setup_requests: l.setup_requests,
            shrink_spent: Default::default(),
            media: Default::default(),
            platform_tasks: Default::default(),
            group_ratio: l.group_ratio,
            era: l.era,
        }
    }
    /// The era of new-api's task layer answers are judged by.
    pub fn era(&self) -> gatecheck_schemas::Era {
        self.era.era
    }

    /// Whether the target serves `family` (true when discovery did not probe it).
    pub fn serves(&self, family: RouteFamily) -> bool {
        crate::vocab::discovery::serves(&self.routes, family)
    }
}
