//! The checks, by check-id family (`key.*` in `key.rs`, `quota.*` in `quota.rs`, ...), and what
//! every check runs with: [`CheckCtx`].

mod artifacts;
pub(crate) mod audio;
pub(crate) mod auth;
pub(crate) mod catalog;
mod env;
pub(crate) mod image_edits;
pub(crate) mod images;
mod info;
pub(crate) mod key;
pub(crate) mod midjourney;
pub(crate) mod midjourney_routes;
pub(crate) mod models;
pub(crate) mod native_routes;
pub(crate) mod pacing;
mod pixels;
pub(crate) mod platform_checks;
pub(crate) mod platforms;
pub(crate) mod platforms_native;
pub(crate) mod platforms_plugin;
pub(crate) mod platforms_veo;
pub(crate) mod property;
pub(crate) mod provider;
pub(crate) mod quota;
pub(crate) mod refund;
pub(crate) mod remix;
pub(crate) mod route;
pub(crate) mod stream;
pub(crate) mod token;
pub(crate) mod token_batch;
pub(crate) mod usage;
pub(crate) mod v1;
pub(crate) mod video;
pub(crate) mod video_era;
pub(crate) mod video_run;
pub(crate) mod video_unified;

pub(crate) use crate::evidence::status_text;
pub use crate::evidence::{Evidence, Kind, Related};
pub(crate) use artifacts::artifacts;
pub(crate) use env::{Env, Learned};
pub use info::CheckInfo;

use crate::http::client::{Auth, Exchange, RequestSpec};
use crate::http::key_api::WorkKey;
use crate::http::mock_control::{wall_now, MockControl};
use crate::http::transport::{Transport, TransportError};
use crate::redact::Redactor;
use crate::vocab::config::RunnerConfig;
pub(crate) use crate::vocab::discovery::Needs;
use crate::vocab::skip::SkipCause;
use futures_util::future::BoxFuture;
use gatecheck_schemas::decisions::{Id, Verdict};
use gatecheck_schemas::rules::quota::{price_quota_at, Usage};
use gatecheck_schemas::rules::rejection::{is_accepted, ACCEPTED};
use gatecheck_schemas::rules::Rejection;
use gatecheck_schemas::types::{ModelCapabilities, ModelRecord};
use gatecheck_schemas::Profile;
use serde_json::Value;
use std::sync::Arc;

/// When a check runs: with others in parallel, or alone because it changes the working key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Phase {
    /// Uses the working key as it is; runs concurrently with other shared checks.
    Shared,
    /// Changes the working key; runs alone, after the shared phase, and resets the key first.
    Exclusive,
}

/// A check's function.
pub(crate) type CheckFn = for<'a> fn(&'a CheckCtx) -> BoxFuture<'a, Outcome>;

/// A check, as one value: its row of the check list (id, kind, route, spec reference, title),
/// when it runs, what it needs of the target, the decision its deviations cite, and its
/// function. A family file declares its checks as a `const CHECKS: &[Check]` of these
/// (docs/ARCHITECTURE.md, "Adding a check"); the registry (`crate::registry`) lists the families.
#[derive(Clone, Copy)]
pub(crate) struct Check {
    /// Stable id, `<family>.<what>`: the family names the file (`auth.*` in `auth.rs`).
    pub id: &'static str,
    /// What a broken rule is: a failure, or a deviation from a decision.
    pub kind: Kind,
    /// The route it exercises, as the check list prints it (`PUT /api/token/`).
    pub route: &'static str,
    /// Where the rule comes from: a section of the spec, or of DECISIONS.md.
    pub spec: &'static str,
    /// What it checks, in one sentence.
    pub title: &'static str,
    /// When it runs: with others, or alone because it changes the working key.
    pub phase: Phase,
    /// The route families it needs the target to serve; without them it is skipped
    /// (`route-not-served`) and not run.
    pub needs: Needs,
    /// Whether it runs only against the mock (its control API, or a request unsafe on a
    /// deployment), and the skip it gets on any other target; the runner skips it there
    /// without calling it.
    pub mock_only: Option<MockOnly>,
    /// The DECISIONS row (or section) a deviation of this check cites: every `Deviation`
    /// check has one (a test holds it). `OffDecision` findings name their own row.
    pub decision: Option<Id>,
    /// The check's function.
    pub run: CheckFn,
}

/// Why a check runs only against the mock: the skip cause and message it gets elsewhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MockOnly {
    /// The cause of the skip (`mock-only`, `unsafe-on-deployment`).
    pub cause: SkipCause,
    /// Why, as the skip says it.
    pub why: &'static str,
}

impl Check {
    /// Its row of the check list.
    pub const fn info(&self) -> CheckInfo {
        CheckInfo {
            id: self.id,
            title: self.title,
            spec: self.spec,
            kind: self.kind,
            route: self.route,
            needs: self.needs,
            mock_only: self.mock_only,
            decision: self.decision,
        }
    }
}

/// How a check ended early. A finding stops a check at its first broken rule: `Finding` at
/// the check's own [`Kind`] (a failure in a `failure` check, a deviation in a `deviation`
/// check), `OffDecision` always a deviation, citing the decision the target departs from.
#[derive(Debug, Clone)]
pub(crate) enum Halt {
    /// A finding at the check's kind: the contract is broken (a failure in a `failure` check,
    /// a deviation in a `deviation` check).
    Finding(Box<Evidence>),
    /// A finding that the target differs from a decision (the id) where the spec says "not
    /// shown": a deviation, whatever the check's kind.
    OffDecision(Box<Evidence>, Id),
    /// The check cannot run here, and why (missing credentials, no model...).
    Skip(SkipCause, String),
    /// The check cannot judge the answer it got (a 500 where it needed a refusal or an
    /// admission): a skip that carries that exchange, as a verdict does.
    SkipSeen(SkipCause, Box<Evidence>),
    /// The run must stop (budget, deadline, dry run).
    Stop(SkipCause, String),
    /// Something went wrong that is not a contract verdict (connection lost...).
    Error(String),
}

/// A passing check.
#[derive(Debug, Clone, Default)]
pub(crate) struct Pass {
    /// Cases run.
    pub cases: u32,
    /// Anything worth reporting.
    pub note: Option<String>,
}

/// The result of a check function.
pub(crate) type Outcome = Result<Pass, Halt>;

/// One pass with one case.
pub(crate) fn pass1() -> Outcome {
    Ok(Pass {
        cases: 1,
        note: None,
    })
}

/// One image request, its answer, and the size it asked for.
pub(crate) type ImageExchange = (RequestSpec, Exchange, String);

/// An answer as people read it: its status with the reason phrase, and the error message of
/// its body when it has one: `400 Bad Request ("Authentication Error, ...")`.
pub(crate) fn answer_summary(ex: &Exchange) -> String {
    let status = status_text(ex.status.as_u16());
    let v = ex.json().unwrap_or(Value::Null);
    let message = ["/error/message", "/message", "/detail", "/error"]
        .iter()
        .find_map(|p| v.pointer(p).and_then(Value::as_str))
        .filter(|m| !m.is_empty());
    match message {
        Some(m) => format!("{status} ({:?})", crate::redact::truncate(m, 120)),
        None => status,
    }
}

/// An answer's status and content type, as people read them: `404 Not Found, text/html`.
pub(crate) fn status_and_type(ex: &Exchange) -> String {
    let status = status_text(ex.status.as_u16());
    match ex.content_type() {
        Some(ct) => format!("{status}, {ct}"),
        None => format!("{status}, no content type"),
    }
}

/// An optional value as people read it: the value, or `none`.
pub(crate) fn or_none<T: std::fmt::Display>(value: Option<T>) -> String {
    value.map_or_else(|| "none".to_owned(), |v| v.to_string())
}

/// Everything one check runs with.
#[derive(Clone)]
pub(crate) struct CheckCtx {
    /// The id of the check it runs.
    pub check: &'static str,
    pub t: Transport,
    pub env: Arc<Env>,
    pub cfg: Arc<RunnerConfig>,
    pub redactor: Redactor,
    pub seed: u64,
}

impl From<TransportError> for Halt {
    fn from(e: TransportError) -> Self {
        let cause = match &e {
            TransportError::Client(_) => return Halt::Error(e.to_string()),
            TransportError::Budget(_) => SkipCause::BudgetSpent,
            TransportError::Deadline => SkipCause::Deadline,
            TransportError::DryRun => SkipCause::DryRun,
            TransportError::NotInRecording(m) => {
                return Halt::Skip(
                    SkipCause::NotInRecording,
                    format!("{m}: not in the recording"),
                )
            }
        };
        Halt::Stop(cause, e.to_string())
    }
}

impl Halt {
    /// A skip for want of credentials.
    pub fn no_credentials(message: impl Into<String>) -> Halt {
        Halt::Skip(SkipCause::NoCredentials, message.into())
    }

    /// A skip for want of something the check judges (no task completed...).
    pub fn not_observed(message: impl Into<String>) -> Halt {
        Halt::Skip(SkipCause::NotObserved, message.into())
    }

    /// A skip for want of a model with known capabilities.
    pub fn no_model(message: impl Into<String>) -> Halt {
        Halt::Skip(SkipCause::NoModel, message.into())
    }
}

impl CheckCtx {
    /// Sends a request that may consume `quota` units.
    pub async fn send(&self, spec: &RequestSpec, quota: i64) -> Result<Exchange, Halt> {
        Ok(self.t.send(spec, quota).await?)
    }

    /// A `not-observed` skip that carries the exchange it could not judge.
    pub fn not_observed(
        &self,
        message: impl Into<String>,
        spec: &RequestSpec,
        ex: Option<&Exchange>,
    ) -> Halt {
        Halt::SkipSeen(
            SkipCause::NotObserved,
            Box::new(self.evidence(message, spec, ex)),
        )
    }

    /// A failure with the request and the answer as evidence.
    pub fn fail(
        &self,
        message: impl Into<String>,
        spec: &RequestSpec,
        ex: Option<&Exchange>,
    ) -> Halt {
        Halt::Finding(Box::new(self.evidence(message, spec, ex)))
    }

    /// The JSON body of an answer that must be 200 `application/json`; a failure otherwise.
    /// A body that does not parse is `Value::Null`, for the caller's schema check to judge.
    pub fn json_200(&self, spec: &RequestSpec, ex: &Exchange) -> Result<Value, Halt> {
        if !accepted(ex) || ex.content_type().as_deref() != Some("application/json") {
            return Err(self.fail(
                format!(
                    "expected {ACCEPTED} application/json, got {}",
                    status_and_type(ex)
                ),
                spec,
                Some(ex),
            ));
        }
        Ok(ex.json().unwrap_or(Value::Null))
    }

    /// Evidence for a request and its answer.
    pub fn evidence(
        &self,
        message: impl Into<String>,
        spec: &RequestSpec,
        ex: Option<&Exchange>,
    ) -> Evidence {
        Evidence {
            message: self.redactor.text(&message.into()),
            curl: Some(spec.to_curl(self.t.client().target(), &self.redactor)),
            status: ex.map(|e| e.status.as_u16()),
            content_type: ex.and_then(|e| e.content_type()),
            body: ex.map(|e| self.redactor.body(&e.body, 600)),
            case: None,
            shrink_steps: 0,
            decision: None,
            related: Vec::new(),
            cases_run: 0,
            uploads: spec.uploads(),
        }
    }

    /// One more exchange behind a verdict, redacted like the evidence.
    pub fn related(&self, what: impl Into<String>, spec: &RequestSpec, ex: &Exchange) -> Related {
        Related {
            what: what.into(),
            curl: spec.to_curl(self.t.client().target(), &self.redactor),
            status: Some(ex.status.as_u16()),
            body: Some(self.redactor.body(&ex.body, 600)),
            uploads: spec.uploads(),
        }
    }

    /// A deviation from the decision `decision`, with the request and the answer as evidence.
    pub fn deviate(
        &self,
        decision: Id,
        message: impl Into<String>,
        spec: &RequestSpec,
        ex: Option<&Exchange>,
    ) -> Halt {
        Halt::OffDecision(Box::new(self.evidence(message, spec, ex)), decision)
    }

    /// The target behaves as the `new-api` column of DECISIONS row `row` (`NA5`...) says.
    /// Under `--expect new-api` that is the expected behaviour (`Ok`); otherwise the row's
    /// verdict decides: a failure naming the row where new-api breaks a rule the spec pins
    /// ([`Verdict::Failure`]), a deviation citing it everywhere else. The message says which
    /// row, and what the difference means for a client.
    pub fn known_difference(
        &self,
        row: Id,
        message: impl Into<String>,
        spec: &RequestSpec,
        ex: Option<&Exchange>,
    ) -> Result<(), Halt> {
        if self.cfg.judging.expect == Profile::NewApi {
            return Ok(());
        }
        let message = format!("DECISIONS {row} (new-api's behaviour): {}", message.into());
        match row.verdict() {
            Verdict::Failure => Err(self.fail(message, spec, ex)),
            _ => Err(self.deviate(row, message, spec, ex)),
        }
    }

    /// Whether answers are judged by new-api's plugin era: `--expect new-api` and the era the
    /// run told (`--era`, or from the target: DECISIONS D-ERA-1).
    pub fn judges_plugins(&self) -> bool {
        self.cfg.judging.expect == Profile::NewApi
            && self.env.era() == gatecheck_schemas::Era::Plugins
    }

    /// The auth of model requests: the working key, or `--api-key`.
    pub fn model_auth(&self) -> Result<Auth, Halt> {
        if let Some(k) = &self.env.key {
            return Ok(Auth::Key(k.secret.clone()));
        }
        if self.env.has_api_key {
            return Ok(Auth::ApiKey);
        }
        Err(Halt::no_credentials(
            "no API key: give --api-key, --key-id or --allow-create-keys",
        ))
    }

    /// The working key, for checks that change it.
    pub fn work_key(&self) -> Result<&WorkKey, Halt> {
        if !self.env.has_access_token {
            return Err(Halt::no_credentials("no access token: give --access-token"));
        }
        self.env.key.as_ref().ok_or_else(|| {
            Halt::no_credentials("no working key: give --key-id or --allow-create-keys")
        })
    }

    /// Requires the access token.
    pub fn need_access_token(&self) -> Result<(), Halt> {
        if self.env.has_access_token {
            Ok(())
        } else {
            Err(Halt::no_credentials("no access token: give --access-token"))
        }
    }

    /// The target's current time, Unix seconds (the mock's clock when it has one).
    pub async fn now(&self) -> Result<i64, Halt> {
        if let Some(m) = &self.env.mock
            && let Some(n) = m.now(&self.t).await?
        {
            return Ok(n);
        }
        Ok(self.t.recorded_now().unwrap_or_else(wall_now))
    }

    /// Moves time forward by `by` while waiting for `what` (`a video task`): the mock's
    /// clock when it has one, else a real wait ([`MockControl::pass_time`]); stops the check
    /// when that wait would reach the run's deadline.
    pub async fn advance(&self, by: std::time::Duration, what: &str) -> Result<(), Halt> {
        if MockControl::pass_time(self.env.mock.as_ref(), &self.t, by).await? {
            return Ok(());
        }
        Err(Halt::Stop(
            crate::vocab::skip::SkipCause::Deadline,
            format!("the run's deadline passed while waiting for {what}"),
        ))
    }

    /// A catalog model with this capability, with its capabilities.
    pub fn model_with(
        &self,
        has: impl Fn(&ModelCapabilities) -> bool,
    ) -> Result<(&ModelRecord, &ModelCapabilities), Halt> {
        self.env
            .models
            .iter()
            .filter_map(|m| self.env.caps.get(&m.id).map(|c| (m, c)))
            .find(|(_, c)| has(c))
            .ok_or_else(|| {
                Halt::no_model(
                    "no model with known capabilities for this route: give --model KIND=ID",
                )
            })
    }

    /// Every catalog model with this capability.
    pub fn models_with(
        &self,
        has: impl Fn(&ModelCapabilities) -> bool,
    ) -> Vec<(&ModelRecord, &ModelCapabilities)> {
        self.env
            .models
            .iter()
            .filter_map(|m| self.env.caps.get(&m.id).map(|c| (m, c)))
            .filter(|(_, c)| has(c))
            .collect()
    }

    /// Whether `status` is how the rule set says `rejection` is answered: by the spec
    /// (the documented profile), or by the profile given with `--expect`.
    pub fn rejected_as(&self, rejection: Rejection, status: u16) -> bool {
        status == rejection.http_status(Profile::Documented)
            || status == rejection.http_status(self.cfg.judging.expect)
    }

    /// Judges that `ex` answers `rejection` as [`CheckCtx::rejected_as`] says. When it is answered
    /// as new-api answers it instead, DECISIONS row `row` names the difference
    /// ([`CheckCtx::known_difference`]); any other status fails with `what` and the expected one.
    pub fn expect_rejection(
        &self,
        rejection: Rejection,
        row: Id,
        what: &str,
        spec: &RequestSpec,
        ex: &Exchange,
    ) -> Result<(), Halt> {
        let status = ex.status.as_u16();
        if self.rejected_as(rejection, status) {
            return Ok(());
        }
        let message = format!(
            "{what} was answered {}, not {}",
            answer_summary(ex),
            rejection.http_status(self.cfg.judging.expect)
        );
        if status == rejection.http_status(Profile::NewApi) {
            return self.known_difference(row, message, spec, Some(ex));
        }
        Err(self.fail(message, spec, Some(ex)))
    }

    /// The price of `usage` on `model` for the working key, in quota units: the catalog
    /// price times the key's group ratio when it is known (`--group-ratio`, `GET
    /// /api/pricing`), else the catalog price (DECISIONS D-STREAM-7).
    pub fn price(&self, model: &str, usage: Usage) -> i64 {
        self.price_at(model, usage, self.env.group_ratio.or_one())
    }

    /// The price of `usage` on `model` at group ratio `ratio` (1: the catalog price).
    pub fn price_at(&self, model: &str, usage: Usage, ratio: f64) -> i64 {
        self.env
            .models
            .iter()
            .find(|m| m.id == model)
            .map(|m| price_quota_at(&m.pricing, usage, ratio))
            .unwrap_or(0)
    }
}

/// Whether an answer is `rejection` in some profile ([`Rejection::answered_by`]).
pub(crate) fn answered_as(ex: &Exchange, rejection: Rejection) -> bool {
    rejection.answered_by(ex.status.as_u16(), ex.error_code().as_deref())
}

/// Whether an answer is a `/v1` validation rejection: the spec's 400, or a deployed gateway's
/// 500 with code `invalid_request` (the status itself is judged by `v1.validation-status-400`).
pub(crate) fn is_validation_rejection(ex: &Exchange) -> bool {
    answered_as(ex, Rejection::Validation) || answered_as(ex, Rejection::MediaValidation)
}

/// Whether an answer refuses an unknown model: a validation rejection (spec: 400 invalid model
/// identifier) or [`Rejection::ModelNotFound`] (404 wrong model identifier).
pub(crate) fn is_unknown_model_rejection(ex: &Exchange) -> bool {
    is_validation_rejection(ex) || answered_as(ex, Rejection::ModelNotFound)
}

/// Whether an answer is [`ACCEPTED`].
pub(crate) fn accepted(ex: &Exchange) -> bool {
    is_accepted(ex.status.as_u16())
}

/// Runs `test` on every model route's request (no auth set), one case each.
pub(crate) async fn for_all_routes<'a, F, Fut>(ctx: &'a CheckCtx, test: F) -> Outcome
where
    F: Fn(crate::http::client::RequestSpec) -> Fut,
    Fut: std::future::Future<Output = Result<(), Halt>> + 'a,
{
    let routes = auth::model_routes(ctx);
    let n = routes.len() as u32;
    for spec in routes {
        test(spec).await?;
    }
    Ok(Pass {
        cases: n,
        note: None,
    })
}

// What the checks claim to send on every run, held by a test over many seeds.
#[cfg(test)]
mod classes;
