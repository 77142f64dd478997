//! The seeded, stateful request sequence shared by `gatecheck diff` and snapshots.
//!
//! A [`Sequence`] is a list of [`Step`]s. Each step has a stable check id (its name in reports
//! and its snapshot file name), builds one request from the values earlier steps captured
//! (a video task id, the key record before the run), and either sends it once or polls until a
//! video task is terminal. A [`SideRunner`] runs steps against one target and keeps that target's
//! captured values; `gatecheck diff` drives two of them in lockstep.
//!
//! Files: `standard.rs` (the standard sequence), `target.rs` (a side's target: a URL, a served
//! mock, or the embedded one), `embedded.rs` (the embedded mock, with the feature `embedded`).

pub(crate) mod embedded;
mod standard;
mod target;

pub use standard::{check_of, SequenceOptions};
#[cfg(feature = "embedded")]
pub use target::mock_target;
pub use target::{
    discover_mock_credentials, parse_target, probe_mock, OpenSide, SideKind, SideSpec,
};

use crate::http::client::{Client, Exchange, RequestSpec};
use crate::http::client_error::ClientError;
use crate::http::mock_control::MockControl;
use crate::http::target::Target;
use crate::http::transport::Transport;
use crate::normalize::{NormalizedResponse, Normalizer};
use gatecheck_schemas::rules::video::is_pending_status;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

/// What a step's request builder sees: the target and the values captured so far.
#[derive(Debug)]
pub struct StepCtx<'a> {
    /// The target (credentials, key id, user id).
    pub target: &'a Target,
    /// Values captured by earlier steps, by name.
    pub vars: &'a HashMap<String, Value>,
}

impl StepCtx<'_> {
    /// A captured value, or the reason the step cannot run.
    pub fn var(&self, name: &str) -> Result<&Value, String> {
        self.vars
            .get(name)
            .ok_or_else(|| format!("needs `{name}`, which an earlier step did not capture"))
    }

    /// A captured string.
    pub fn str_var(&self, name: &str) -> Result<&str, String> {
        self.var(name)?
            .as_str()
            .ok_or_else(|| format!("`{name}` is not a string"))
    }

    /// The target's key id, needed by the key-management steps.
    pub fn key_id(&self) -> Result<i64, String> {
        self.target
            .key_id
            .ok_or_else(|| "needs the id of the target's key (--key-id)".to_owned())
    }
}

/// Builds a step's request.
pub type BuildFn = Arc<dyn Fn(&StepCtx<'_>) -> Result<RequestSpec, String> + Send + Sync>;

/// How a step sends its request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// Once.
    Once,
    /// Again and again (advancing the mock's clock, or waiting on a real target) until the
    /// body's `status` is `completed`, `failed` or `error`; the last response counts.
    PollUntilTerminal,
}

/// One value a step takes from its response (when the response is 2xx JSON).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Capture {
    /// The name later steps use.
    pub var: String,
    /// JSON Pointer into the body.
    pub pointer: String,
}

/// One step of a sequence.
#[derive(Clone)]
pub struct Step {
    /// Stable, unique step id (`token.update.name-20-multibyte`): the snapshot's file name.
    pub id: String,
    /// The check of the runner's catalog this step exercises (`token.update.name-50-chars`):
    /// the group of its differences in reports. Several steps may share one.
    pub check: String,
    /// What the step shows, in a few words.
    pub title: String,
    /// Once or poll.
    pub mode: Mode,
    /// Values taken from the response.
    pub captures: Vec<Capture>,
    /// Names of the values this step needs: it runs only when earlier steps captured them
    /// (on both sides of a diff), and they make its minimal reproduction.
    pub needs: Vec<String>,
    /// Ids of earlier steps whose [`Effect`] this step needs (a key disabled before a request
    /// with it): it runs only when each took effect (on both sides of a diff).
    pub after: Vec<String>,
    /// What this step must achieve for the steps that name it in `after`.
    pub effect: Option<Effect>,
    /// Builds the request.
    pub build: BuildFn,
}

/// What a step must achieve for the steps that depend on it, and how to tell: a read-back
/// request after it, or its own response.
#[derive(Clone)]
pub struct Effect {
    /// What the step is for, in words (`disable the key`): shown as `(to disable the key)`.
    pub what: String,
    /// Reads the state back after the step; `None`: the step's own response is read.
    pub read_back: Option<BuildFn>,
    /// JSON Pointer into the body that is read.
    pub pointer: String,
    /// The value it must have there.
    pub expected: Value,
}

impl Effect {
    /// An effect read from the step's own response: `pointer` must hold `expected`.
    pub fn in_response(what: &str, pointer: &str, expected: Value) -> Self {
        Self {
            what: what.to_owned(),
            read_back: None,
            pointer: pointer.to_owned(),
            expected,
        }
    }

    /// An effect read back after the step with another request.
    pub fn read_back(
        what: &str,
        build: impl Fn(&StepCtx<'_>) -> Result<RequestSpec, String> + Send + Sync + 'static,
        pointer: &str,
        expected: Value,
    ) -> Self {
        Self {
            read_back: Some(Arc::new(build)),
            ..Self::in_response(what, pointer, expected)
        }
    }
}

impl fmt::Debug for Effect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Effect")
            .field("what", &self.what)
            .field("read_back", &self.read_back.is_some())
            .field("pointer", &self.pointer)
            .field("expected", &self.expected)
            .finish()
    }
}

/// Whether a step took the effect later steps depend on, on one target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EffectState {
    /// It did: the target acknowledged the request and the state reads as expected.
    Achieved,
    /// The step's request was not sent, or failed on the way (the reason, for people).
    NotSent(String),
    /// The target did not acknowledge the request (an error status, or `success: false`).
    Refused(String),
    /// The target acknowledged the request, but the effect cannot be seen (the answer or the
    /// read-back shows another value, or the read-back failed).
    NotSeen(String),
    /// The target acknowledged a write and the read-back shows it was not applied: a finding
    /// on the step itself.
    NotApplied(String),
}

impl EffectState {
    /// Whether the effect was achieved.
    pub fn achieved(&self) -> bool {
        matches!(self, EffectState::Achieved)
    }

    /// Why it was not, for people (empty when it was).
    pub fn reason(&self) -> &str {
        match self {
            EffectState::Achieved => "",
            EffectState::NotSent(r)
            | EffectState::Refused(r)
            | EffectState::NotSeen(r)
            | EffectState::NotApplied(r) => r,
        }
    }
}

impl fmt::Debug for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Step")
            .field("id", &self.id)
            .field("check", &self.check)
            .field("title", &self.title)
            .field("mode", &self.mode)
            .field("after", &self.after)
            .field("effect", &self.effect)
            .finish()
    }
}

impl Step {
    /// A step sent once.
    pub fn new(
        id: &str,
        title: &str,
        build: impl Fn(&StepCtx<'_>) -> Result<RequestSpec, String> + Send + Sync + 'static,
    ) -> Self {
        Self {
            id: id.to_owned(),
            check: id.to_owned(),
            title: title.to_owned(),
            mode: Mode::Once,
            captures: Vec::new(),
            needs: Vec::new(),
            after: Vec::new(),
            effect: None,
            build: Arc::new(build),
        }
    }

    /// Sets the check id (by default the step id).
    pub fn check(mut self, check: &str) -> Self {
        self.check = check.to_owned();
        self
    }

    /// Captures `pointer` of the response body as `var`.
    pub fn capture(mut self, var: &str, pointer: &str) -> Self {
        self.captures.push(Capture {
            var: var.to_owned(),
            pointer: pointer.to_owned(),
        });
        self
    }

    /// Declares that the step needs `var`.
    pub fn needs(mut self, var: &str) -> Self {
        self.needs.push(var.to_owned());
        self
    }

    /// Declares that the step runs only when step `id` took its [`Effect`].
    pub fn after(mut self, id: &str) -> Self {
        self.after.push(id.to_owned());
        self
    }

    /// Declares what the step must achieve for the steps that name it in `after`.
    pub fn effect(mut self, effect: Effect) -> Self {
        self.effect = Some(effect);
        self
    }

    /// Polls until terminal.
    pub fn poll(mut self) -> Self {
        self.mode = Mode::PollUntilTerminal;
        self
    }
}

/// An ordered list of steps, made from a seed.
#[derive(Debug, Clone)]
pub struct Sequence {
    /// The seed the request values came from.
    pub seed: u64,
    /// The steps, in order.
    pub steps: Vec<Step>,
}

impl Sequence {
    /// The indices of the steps `index` depends on (through captured values and the effects
    /// it runs after), and itself: the minimal sequence that reproduces step `index`.
    pub fn minimal_for(&self, index: usize) -> Vec<usize> {
        let (mut wanted, mut after): (Vec<String>, Vec<String>) = self
            .steps
            .get(index)
            .map(|s| (s.needs.clone(), s.after.clone()))
            .unwrap_or_default();
        let mut out = vec![index];
        for i in (0..index).rev() {
            let step = &self.steps[i];
            if step.captures.iter().any(|c| wanted.contains(&c.var)) || after.contains(&step.id) {
                out.push(i);
                wanted.extend(step.needs.iter().cloned());
                after.extend(step.after.iter().cloned());
            }
        }
        out.sort_unstable();
        out
    }

    /// Keeps only the steps at these indices (for `--only`).
    pub fn retain_indices(&mut self, keep: &[usize]) {
        let mut i = 0;
        self.steps.retain(|_| {
            let k = keep.contains(&i);
            i += 1;
            k
        });
    }

    /// The index of the step with this id.
    pub fn position(&self, id: &str) -> Option<usize> {
        self.steps.iter().position(|s| s.id == id)
    }
}

/// What happened at one step on one target.
#[derive(Debug, Clone)]
pub enum Outcome {
    /// The target answered.
    Response {
        /// The request as sent (for `to_curl`).
        request: Box<RequestSpec>,
        /// The answer.
        exchange: Box<Exchange>,
        /// How many requests the step sent (polls).
        attempts: u32,
    },
    /// The step could not be built (a value it needs is missing).
    Skipped(String),
    /// The request failed on the way.
    Failed {
        /// The request.
        request: Box<RequestSpec>,
        /// The error.
        error: String,
        /// Whether the target could not be reached at all.
        unreachable: bool,
    },
}

/// An [`Outcome`] after normalization: what is compared and snapshotted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum NormalizedOutcome {
    /// A normalized response.
    Response(NormalizedResponse),
    /// A step that did not send, or whose request failed.
    NotAnswered {
        /// Why.
        not_answered: String,
    },
}

impl NormalizedOutcome {
    /// As one JSON value.
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

impl Outcome {
    /// The request, when one was built.
    pub fn request(&self) -> Option<&RequestSpec> {
        match self {
            Outcome::Response { request, .. } | Outcome::Failed { request, .. } => Some(request),
            Outcome::Skipped(_) => None,
        }
    }

    /// The transport error, when the request was built but failed on the way.
    pub fn error(&self) -> Option<&str> {
        match self {
            Outcome::Failed { error, .. } => Some(error),
            _ => None,
        }
    }

    /// Normalizes the outcome. Errors keep only their kind (their text holds hosts and ports).
    pub fn normalize(&self, normalizer: &mut Normalizer) -> NormalizedOutcome {
        match self {
            Outcome::Response { exchange, .. } => {
                NormalizedOutcome::Response(normalizer.normalize_response(
                    exchange.status.as_u16(),
                    &exchange.headers,
                    &exchange.body,
                ))
            }
            Outcome::Skipped(reason) => NormalizedOutcome::NotAnswered {
                not_answered: format!("skipped: {reason}"),
            },
            Outcome::Failed { unreachable, .. } => NormalizedOutcome::NotAnswered {
                not_answered: if *unreachable {
                    "request failed: target unreachable or timed out".to_owned()
                } else {
                    "request failed".to_owned()
                },
            },
        }
    }
}

/// Polling settings.
#[derive(Debug, Clone, Copy)]
pub struct PollSettings {
    /// Seconds the mock's clock is advanced before each poll (when it has a control API).
    pub advance_seconds: u64,
    /// Wall-clock wait between polls on a target without a control API.
    pub interval: Duration,
    /// Most polls per step.
    pub max_polls: u32,
}

impl Default for PollSettings {
    fn default() -> Self {
        Self {
            advance_seconds: 15,
            interval: Duration::from_secs(10),
            max_polls: 60,
        }
    }
}

/// Runs steps against one target, keeping its captured values.
///
/// It sends to the mock's control API (`/__mock/*`: clock, reset) only when told the target is
/// a gatecheck mock ([`SideRunner::with_mock_control`]); otherwise it never does. Every request
/// goes through a direct [`Transport`] (sent once, as it is).
#[derive(Debug)]
pub struct SideRunner {
    t: Transport,
    vars: HashMap<String, Value>,
    mock: Option<MockControl>,
    poll: PollSettings,
}

impl SideRunner {
    /// A runner over this client, with no mock control API: polls wait in real time.
    pub fn new(client: Client, poll: PollSettings) -> Self {
        Self::over(Transport::direct(client), poll)
    }

    /// A runner over this transport (a direct one, [`Transport::direct`]: each step sent once,
    /// as it is), with no mock control API.
    pub fn over(t: Transport, poll: PollSettings) -> Self {
        Self {
            t,
            vars: HashMap::new(),
            mock: None,
            poll,
        }
    }

    /// Whether the target is proven (or declared) a gatecheck mock, so that its control API
    /// may be used: the clock is advanced between polls, `reset` resets it.
    pub fn with_mock_control(mut self, mock_control: bool) -> Self {
        self.mock = mock_control.then(MockControl::declared);
        self
    }

    /// Whether the runner may use the mock's control API.
    pub fn mock_control(&self) -> bool {
        self.mock.is_some()
    }

    /// The target.
    pub fn target(&self) -> &Target {
        self.t.client().target()
    }

    /// The values captured so far.
    pub fn vars(&self) -> &HashMap<String, Value> {
        &self.vars
    }

    /// Resets the target through the mock control API (`POST /__mock/reset`: fixture state,
    /// no tasks, clock offset 0) and forgets the captured values. False, with nothing sent,
    /// when the runner has no control API; false when the reset is refused.
    pub async fn reset(&mut self) -> bool {
        let Some(mock) = &self.mock else {
            return false;
        };
        let ok = matches!(mock.reset(&self.t).await, Ok(true));
        if ok {
            self.vars.clear();
        }
        ok
    }

    /// Runs one step.
    pub async fn run(&mut self, step: &Step) -> Outcome {
        let built = {
            let ctx = StepCtx {
                target: self.t.client().target(),
                vars: &self.vars,
            };
            (step.build)(&ctx)
        };
        let request = match built {
            Ok(r) => r,
            Err(reason) => return Outcome::Skipped(reason),
        };
        let mut attempts = 0;
        let result = loop {
            attempts += 1;
            let result = self.t.send(&request, 0).await;
            let done = match (&result, step.mode) {
                (_, Mode::Once) | (Err(_), _) => true,
                (Ok(ex), Mode::PollUntilTerminal) => {
                    is_terminal(ex) || attempts >= self.poll.max_polls
                }
            };
            if done {
                break result;
            }
            self.let_time_pass().await;
        };
        match result {
            Ok(exchange) => {
                if exchange.status.is_success()
                    && let Some(body) = exchange.json()
                {
                    for c in &step.captures {
                        if let Some(v) = body.pointer(&c.pointer) {
                            self.vars.insert(c.var.clone(), v.clone());
                        }
                    }
                }
                Outcome::Response {
                    request: Box::new(request),
                    exchange: Box::new(exchange),
                    attempts,
                }
            }
            Err(e) => Outcome::Failed {
                unreachable: e.is_unreachable(),
                error: e.to_string(),
                request: Box::new(request),
            },
        }
    }

    /// Whether `step`, which answered `outcome`, took its effect (a step without an
    /// [`Effect`] takes it when the target acknowledges it). Sends the effect's read-back
    /// request, if any.
    pub async fn effect_of(&mut self, step: &Step, outcome: &Outcome) -> EffectState {
        let exchange = match outcome {
            Outcome::Skipped(reason) => return EffectState::NotSent(format!("skipped: {reason}")),
            Outcome::Failed { .. } => {
                return EffectState::NotSent("its request failed on the way".to_owned())
            }
            Outcome::Response { exchange, .. } => exchange,
        };
        if let Some(why) = not_acknowledged(exchange) {
            return EffectState::Refused(why);
        }
        let Some(effect) = &step.effect else {
            return EffectState::Achieved;
        };
        let Some(read_back) = &effect.read_back else {
            return match seen(effect, exchange.json().as_ref()) {
                Ok(()) => EffectState::Achieved,
                Err(shown) => EffectState::NotSeen(format!("it answered {shown}")),
            };
        };
        let built = read_back(&StepCtx {
            target: self.t.client().target(),
            vars: &self.vars,
        });
        let request = match built {
            Ok(r) => r,
            Err(e) => return EffectState::NotSeen(format!("it cannot be read back: {e}")),
        };
        let answer = match self.t.send(&request, 0).await {
            Ok(ex) => ex,
            Err(_) => {
                return EffectState::NotSeen(format!(
                    "the read-back {} failed on the way",
                    request.summary()
                ))
            }
        };
        if let Some(why) = not_acknowledged(&answer) {
            return EffectState::NotSeen(format!("the read-back {} {why}", request.summary()));
        }
        match seen(effect, answer.json().as_ref()) {
            Ok(()) => EffectState::Achieved,
            Err(shown) => EffectState::NotApplied(format!(
                "acknowledged (HTTP {}) but not applied: the read-back {} shows {shown}",
                exchange.status.as_u16(),
                request.summary(),
            )),
        }
    }

    /// Advances the mock's virtual clock when the runner has the control API (falling back
    /// to a wait if the mock refuses); waits `poll.interval` otherwise.
    async fn let_time_pass(&mut self) {
        if let Some(mock) = &self.mock
            && matches!(
                mock.advance_seconds(&self.t, self.poll.advance_seconds)
                    .await,
                Ok(true)
            )
        {
            return;
        }
        tokio::time::sleep(self.poll.interval).await;
    }
}

/// Why an answer does not acknowledge a request (`answered 404`, `answered 200 with success
/// false: <message>`), or `None` when it does: a 2xx whose JSON body, if any, does not say
/// `"success": false`.
fn not_acknowledged(exchange: &Exchange) -> Option<String> {
    let status = exchange.status.as_u16();
    if !exchange.status.is_success() {
        return Some(format!("answered {status}"));
    }
    let body = exchange.json()?;
    if body.get("success").and_then(Value::as_bool) != Some(false) {
        return None;
    }
    let message = body.get("message").and_then(Value::as_str).unwrap_or("");
    Some(if message.is_empty() {
        format!("answered {status} with success false")
    } else {
        format!(
            "answered {status} with success false: {}",
            crate::redact::truncate(message, 120)
        )
    })
}

/// Whether `body` holds the effect's expected value at its pointer; else what it shows there.
fn seen(effect: &Effect, body: Option<&Value>) -> Result<(), String> {
    let at = body.and_then(|b| b.pointer(&effect.pointer));
    match at {
        Some(v) if *v == effect.expected => Ok(()),
        Some(v) => Err(format!(
            "{} = {}, expected {}",
            effect.pointer,
            crate::redact::truncate(&v.to_string(), 80),
            effect.expected
        )),
        None => Err(format!(
            "no {} (expected {})",
            effect.pointer, effect.expected
        )),
    }
}

fn is_terminal(exchange: &Exchange) -> bool {
    if !exchange.status.is_success() {
        return true;
    }
    let status = exchange
        .json()
        .and_then(|b| b.get("status").and_then(Value::as_str).map(str::to_owned));
    !status.as_deref().is_some_and(is_pending_status)
}

/// A short, stable description of a client error's kind.
pub fn error_kind(e: &ClientError) -> &'static str {
    if e.is_unreachable() {
        "unreachable"
    } else {
        "refused"
    }
}
