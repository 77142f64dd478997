//! Set-up and clean-up around the checks: whether the target is the mock, what it serves and
//! which models it offers (`crate::vocab::discovery`), the working key (made through the mock's
//! control API, with `POST /api/token/`, or the named `--key-id`, snapshotted), and putting
//! that key back at the end.

use crate::checks::{Env, Learned};
use crate::http::client::{Client, ClientConfig};
use crate::http::key_api::{
    create_scratch_key, delete_key, get_key, is_masked, put_record, reveal_key, KeyOrigin, WorkKey,
};
use crate::http::mock_control::{pick_account, wall_now, MockControl, NewMockKey};
use crate::http::models::{fetch_catalog, known_capabilities};
use crate::http::target::Target;
use crate::http::transport::{Transport, TransportConfig};
use crate::redact::{Redactor, Secret};
use crate::vocab::config::{RunnerConfig, TargetMode};
use crate::vocab::discovery::{
    apply_model_options, bare_record, fetch_model_list, probe_routes, serves, ModelsSource,
    ProbeCredentials, RouteFamily, RouteProbe,
};
use crate::vocab::fixture_catalog::fixture_models;
use crate::vocab::setup_error::SetupError;
use gatecheck_schemas::types::{KeyRecord, ModelCapabilities, ModelRecord, KEY_STATUS_ENABLED};
use serde_json::json;
use std::collections::BTreeMap;
use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;

pub(crate) fn offline_env(cfg: &RunnerConfig) -> Env {
    Env::new(Learned {
        target: cfg.target.clone(),
        mock: None,
        client_ip: cfg.known.client_ip,
        models: fixture_models().to_vec(),
        caps: cfg
            .known
            .capabilities
            .clone()
            .unwrap_or_else(known_capabilities),
        groups: Vec::new(),
        key: None,
        notes: vec!["offline dry run: the target was not reached".into()],
        routes: Vec::new(),
        models_source: ModelsSource::None,
        no_models: None,
        setup_requests: 0,
        group_ratio: crate::http::pricing::GroupRatio::unknown("offline dry run"),
        era: match cfg.judging.era {
            crate::EraChoice::Fixed(era) => crate::vocab::era::EraSeen::named(era),
            crate::EraChoice::Auto => crate::vocab::era::EraSeen::untold("offline dry run"),
        },
    })
}

pub(crate) fn placeholder_key(target: &Target) -> WorkKey {
    let rec: KeyRecord = serde_json::from_value(json!({
        "id": target.key_id.unwrap_or(0), "user_id": target.user_id.unwrap_or(0),
        "key": "", "status": KEY_STATUS_ENABLED, "name": "gatecheck-scratch", "created_time": 0, "accessed_time": 0,
        "expired_time": -1, "remain_quota": 6000000, "unlimited_quota": false,
        "model_limits_enabled": false, "model_limits": "", "allow_ips": "", "used_quota": 0,
        "group": "", "cross_group_retry": false
    }))
    .unwrap_or_else(|_| unreachable_record());
    WorkKey {
        id: rec.id,
        secret: Secret::new("$GATECHECK_SCRATCH_KEY"),
        baseline: rec,
        origin: KeyOrigin::Mock,
    }
}

fn unreachable_record() -> KeyRecord {
    KeyRecord {
        id: 0,
        user_id: 0,
        key: String::new(),
        status: KEY_STATUS_ENABLED,
        name: String::new(),
        created_time: 0,
        accessed_time: 0,
        expired_time: -1,
        remain_quota: 0,
        unlimited_quota: false,
        model_limits_enabled: false,
        model_limits: String::new(),
        allow_ips: None,
        used_quota: 0,
        group: String::new(),
        cross_group_retry: false,
    }
}

/// Whether the target is the mock, and what the report says about it.
async fn classify(
    cfg: &RunnerConfig,
    t: &Transport,
) -> Result<(Option<MockControl>, Vec<String>), SetupError> {
    const NO_CONTROL: &str = "no control API: virtual-clock checks skipped, real-time polling used";
    if !cfg.mock_control_allowed() {
        let why = if cfg.known.target_mode == TargetMode::Deployment {
            "--target deployment"
        } else {
            "--no-mock-control"
        };
        return Ok((None, vec![format!("{why}: {NO_CONTROL}")]));
    }
    let seen = MockControl::probe(t).await?;
    Ok(match (seen, cfg.known.target_mode) {
        (Some(m), _) => {
            let mut notes = vec![format!(
                "gatecheck mock signature seen (version {}, profile {}): control API and virtual clock used",
                m.signature.as_ref().map_or("?", |s| s.version.as_str()),
                m.profile.as_deref().unwrap_or("?"),
            )];
            if m.profile.as_deref() != Some(cfg.judging.expect.as_str()) {
                notes.push(format!(
                    "the mock's profile is not --expect {}: expect deviations",
                    cfg.judging.expect
                ));
            }
            (Some(m), notes)
        }
        (None, TargetMode::Mock) => (
            Some(MockControl::declared()),
            vec!["--target mock: control API used although /__mock/health answered no mock signature".into()],
        ),
        (None, _) => (
            None,
            vec![format!(
                "no gatecheck mock signature on /__mock/health: a deployment; {NO_CONTROL}"
            )],
        ),
    })
}

/// Learns about the target and sets up the working key; on failure, names the stage. The
/// configuration is left as the user gave it: what discovery learnt (the target with the
/// credentials it adopted, the mock's control API, the client IP, the key) is in the [`Env`].
pub(crate) async fn discover(
    cfg: &RunnerConfig,
    t: &Transport,
    redactor: &Redactor,
) -> Result<Env, (&'static str, SetupError)> {
    let (mock, notes) = classify(cfg, t).await.map_err(|e| ("health probe", e))?;
    discover_rest(cfg, t, redactor, mock, notes).await
}

/// Names the discovery stage of an error.
fn at<E: Into<SetupError>>(stage: &'static str) -> impl Fn(E) -> (&'static str, SetupError) {
    move |e| (stage, e.into())
}

/// A discovery error, with the stage it happened in.
type Staged = (&'static str, SetupError);

async fn discover_rest(
    cfg: &RunnerConfig,
    t: &Transport,
    redactor: &Redactor,
    mock: Option<MockControl>,
    notes: Vec<String>,
) -> Result<Env, Staged> {
    let mut target = cfg.target.clone();
    let groups = match &mock {
        Some(m) => adopt_mock_account(&mut target, t, redactor, m).await?,
        None => Vec::new(),
    };
    let client_ip = cfg.known.client_ip.or_else(|| loopback_ip(&target));
    let creds = ProbeCredentials {
        api_key: target.api_key.is_some(),
        access_token: target.access_token.is_some(),
    };
    // A dry run sends nothing to model or key routes, not even a probe.
    let routes = if cfg.scope.dry_run {
        Vec::new()
    } else {
        probe_routes(t, creds)
            .await
            .map_err(at("route discovery"))?
    };
    let (models, caps, models_source, no_models) = discover_models(cfg, t, &routes)
        .await
        .map_err(at("catalog"))?;
    let kt = key_transport(cfg, &target, t.deadline())?;
    let has_token = target.access_token.is_some();
    let key = work_key(cfg, &target, &kt, mock.as_ref()).await?;
    if let Some(k) = &key {
        redactor.add_secret(&k.secret);
    }
    // Only a run with a working key judges charges: without one, `GET /api/pricing` is not
    // sent (a gateway without new-api's key routes has no pricing page either).
    let group_ratio = match (&key, cfg.scope.dry_run) {
        (Some(k), false) => {
            let group = k.baseline.group.as_str();
            crate::http::pricing::learn(&kt, cfg.judging.group_ratio, group, has_token).await
        }
        _ => crate::http::pricing::GroupRatio::unknown("no working key"),
    };
    let mut notes = notes;
    let era = crate::run::era::tell(cfg, t, mock.as_ref())
        .await
        .map_err(at("era"))?;
    notes.push(format!("task-layer era: {}", era.describe()));
    if key.is_some() && !cfg.scope.dry_run {
        notes.push(match group_ratio.ratio {
        Some(r) => format!(
            "group ratio {r} for the key's group {:?} ({}): charges are judged at it",
            group_ratio.group, group_ratio.source
        ),
        None => format!(
            "group ratio unknown ({}): charges are judged against one ratio inferred from the run's own",
            group_ratio.source
        ),
        });
    }
    Ok(Env::new(Learned {
        target,
        mock,
        client_ip,
        models,
        caps,
        groups,
        key,
        notes,
        routes,
        models_source,
        no_models,
        setup_requests: kt.sent(),
        group_ratio,
        era,
    }))
}

/// Reads the mock's accounts: their access tokens become secrets, and the run's account
/// ([`pick_account`]: the user id's, else the lowest id) lends its access token (when none was
/// given) and its user id to the target. Returns that account's groups.
async fn adopt_mock_account(
    target: &mut Target,
    t: &Transport,
    redactor: &Redactor,
    m: &MockControl,
) -> Result<Vec<String>, Staged> {
    let accounts = m.accounts(t).await.map_err(at("accounts"))?;
    for a in &accounts {
        redactor.add(&a.access_token);
    }
    let Some(a) = pick_account(&accounts, target.user_id) else {
        return Ok(Vec::new());
    };
    if target.access_token.is_none() {
        target.access_token = Some(Secret::new(a.access_token.clone()));
    }
    target.user_id.get_or_insert(a.id);
    Ok(a.groups.clone())
}

/// A transport with the enriched target (access token, user id) for key setup, within a
/// minute and the run's `deadline`.
fn key_transport(
    cfg: &RunnerConfig,
    target: &Target,
    deadline: tokio::time::Instant,
) -> Result<Transport, Staged> {
    let client = Client::new(ClientConfig {
        timeout: cfg.limits.request_timeout,
        proxy: cfg.known.proxy.clone(),
        ..ClientConfig::new(target.clone())
    })
    .map_err(|e| ("key setup", SetupError::Config(e.to_string())))?;
    let kt = Transport::new(
        client,
        TransportConfig {
            max_requests: None,
            max_quota: None,
            rate: cfg.limits.rate,
            concurrency: 1,
            backoff: crate::http::backoff::Backoff::default(),
            deadline: deadline.min(tokio::time::Instant::now() + Duration::from_secs(60)),
            dry_run: false,
            seed: 0,
            retry_budget: Some(8),
            bytes: crate::http::memory::ByteBudget::unlimited(),
        },
    );
    Ok(kt)
}

/// The key the run works with: none in a dry run; made through the mock's control API when no
/// `--key-id` is given; the named `--key-id`, snapshotted, with an access token; a scratch key
/// under `--allow-create-keys`; else none.
async fn work_key(
    cfg: &RunnerConfig,
    target: &Target,
    kt: &Transport,
    mock: Option<&MockControl>,
) -> Result<Option<WorkKey>, Staged> {
    let has_token = target.access_token.is_some();
    if cfg.scope.dry_run {
        Ok(None)
    } else if let (Some(m), None) = (mock, target.key_id) {
        mock_key(target, kt, m).await.map(Some)
    } else if let (Some(id), true) = (target.key_id, has_token) {
        snapshot_key(target, kt, id).await.map(Some)
    } else if cfg.scope.allow_create_keys && has_token {
        scratch_key(cfg, kt).await.map(Some)
    } else {
        Ok(None)
    }
}

/// A work key made through the mock's control API.
async fn mock_key(target: &Target, kt: &Transport, m: &MockControl) -> Result<WorkKey, Staged> {
    let new = NewMockKey {
        name: "gatecheck-work".into(),
        user_id: target.user_id.unwrap_or(1),
        remain_quota: 50_000_000,
        expired_time: -1,
    };
    let rec = m
        .create_key(kt, &new)
        .await
        .map_err(at("key setup"))?
        .ok_or_else(|| {
            (
                "key setup",
                SetupError::Misbehaved("the mock did not create a key".into()),
            )
        })?;
    Ok(WorkKey {
        id: rec.id,
        secret: Secret::new(rec.key.clone()),
        baseline: rec,
        origin: KeyOrigin::Mock,
    })
}

/// The named `--key-id`, snapshotted; its baseline is enabled, open to every IP and model, and
/// unexpired for the run.
async fn snapshot_key(target: &Target, kt: &Transport, id: i64) -> Result<WorkKey, Staged> {
    let snap = get_key(kt, id)
        .await
        .map_err(at("key setup"))?
        .ok_or_else(|| {
            (
                "key setup",
                SetupError::Config(format!("GET /api/token/{id} did not return the key")),
            )
        })?;
    let shown = (!is_masked(&snap.key) && !snap.key.is_empty()).then(|| snap.key.clone());
    // new-api masks the key in GET /api/token/{id}: its full secret is POST .../key's.
    let shown = match (&target.api_key, shown) {
        (None, None) => reveal_key(kt, id).await.map_err(at("key setup"))?,
        (_, shown) => shown,
    };
    let secret = target
        .api_key
        .clone()
        .or_else(|| shown.map(Secret::new))
        .ok_or_else(|| {
            (
                "key setup",
                SetupError::Config("give --api-key: the key's secret is masked".into()),
            )
        })?;
    let mut baseline = snap.clone();
    baseline.status = KEY_STATUS_ENABLED;
    baseline.allow_ips = Some(String::new());
    baseline.model_limits_enabled = false;
    let now = kt.recorded_now().unwrap_or_else(wall_now);
    if baseline.expired_time != -1 && baseline.expired_time < now + 3600 {
        baseline.expired_time = -1;
    }
    Ok(WorkKey {
        id,
        secret,
        baseline,
        origin: KeyOrigin::Snapshot(Box::new(snap)),
    })
}

/// A scratch key made with `POST /api/token/` (deleted at the end).
async fn scratch_key(cfg: &RunnerConfig, kt: &Transport) -> Result<WorkKey, Staged> {
    let name = format!("gatecheck-{:08x}", cfg.scope.seed.unwrap_or(0) as u32);
    let mut rec = create_scratch_key(kt, &name)
        .await
        .map_err(at("key setup"))?;
    if is_masked(&rec.key) || rec.key.is_empty() {
        // new-api lists its keys masked: the full secret is POST /api/token/{id}/key's.
        if let Some(full) = reveal_key(kt, rec.id).await.map_err(at("key setup"))? {
            rec.key = full;
        }
    }
    if is_masked(&rec.key) || rec.key.is_empty() {
        let _ = delete_key(kt, rec.id).await;
        return Err((
            "key setup",
            SetupError::Config("the scratch key's secret is masked in the listing".into()),
        ));
    }
    Ok(WorkKey {
        id: rec.id,
        secret: Secret::new(rec.key.clone()),
        baseline: rec,
        origin: KeyOrigin::Created,
    })
}

/// The run's models and their capabilities: the catalog (`GET /api/models`) when it is served
/// and lists any, else OpenAI's model list (`GET /v1/models`, with the API key), then the
/// user's `--model KIND=ID` on top.
async fn discover_models(
    cfg: &RunnerConfig,
    t: &Transport,
    routes: &[RouteProbe],
) -> Result<
    (
        Vec<ModelRecord>,
        BTreeMap<String, ModelCapabilities>,
        ModelsSource,
        Option<String>,
    ),
    SetupError,
> {
    let catalog_served = serves(routes, RouteFamily::Catalog);
    let mut models = if catalog_served {
        fetch_catalog(t).await?
    } else {
        Vec::new()
    };
    let mut why = vec![catalog_why(routes, catalog_served)];
    let mut source = ModelsSource::Catalog;
    if models.is_empty() && cfg.target.api_key.is_some() {
        match fetch_model_list(t).await? {
            Ok(ids) if !ids.is_empty() => {
                models = ids.iter().map(|id| bare_record(id)).collect();
                source = ModelsSource::ModelList;
            }
            Ok(_) => why.push("GET /v1/models listed none".into()),
            Err(w) => why.push(w),
        }
    } else if models.is_empty() {
        why.push("GET /v1/models was not asked (it needs --api-key)".into());
    }
    if models.is_empty() {
        source = if cfg.known.models.is_empty() {
            ModelsSource::None
        } else {
            ModelsSource::Option
        };
    }
    let why = (source == ModelsSource::None).then(|| why.join(", "));
    let known = cfg
        .known
        .capabilities
        .clone()
        .unwrap_or_else(known_capabilities);
    let mut caps = known.clone();
    apply_model_options(&cfg.known.models, &mut models, &mut caps, &known);
    Ok((models, caps, source, why))
}

/// Why the catalog gave no models: not served (with the probe's answer), or empty.
fn catalog_why(routes: &[RouteProbe], served: bool) -> String {
    let probe = routes.iter().find(|r| r.family == RouteFamily::Catalog);
    match (served, probe) {
        (true, _) => "GET /api/models listed none".into(),
        (false, Some(p)) => format!(
            "GET /api/models answered {}",
            crate::evidence::status_text(p.status())
        ),
        (false, None) => "GET /api/models was not probed".into(),
    }
}

fn loopback_ip(target: &Target) -> Option<IpAddr> {
    match target.base_url.host() {
        Some(url::Host::Ipv4(ip)) if ip.is_loopback() => Some(IpAddr::V4(ip)),
        Some(url::Host::Ipv6(ip)) if ip.is_loopback() => Some(IpAddr::V6(ip)),
        Some(url::Host::Domain("localhost")) => Some(IpAddr::V4(Ipv4Addr::LOCALHOST)),
        _ => None,
    }
}

/// What became of the working key at the end: what was done, and whether the target was
/// left as the run found it (a scratch key of the mock goes away with it, so it always is).
pub(crate) struct KeyCleanup {
    /// Said in the report (`key_cleanup`).
    pub(crate) message: String,
    /// A key restored from its snapshot, or a scratch key deleted, as it should be.
    pub(crate) put_back: bool,
}

/// Restores, deletes or keeps the working key; returns what was done.
pub(crate) async fn cleanup(t: &Transport, key: Option<&WorkKey>) -> Option<KeyCleanup> {
    let key = key?;
    let (message, put_back) = match &key.origin {
        // Put back as it started, so a repro naming it runs on the key the checks began with.
        KeyOrigin::Mock => match put_record(t, &key.baseline).await {
            Ok(Some(rec)) if rec.status == key.baseline.status => (format!(
                "key {} restored to its first state and left in the mock (a scratch key made through its control API; it goes away with the mock)",
                key.id
            ), true),
            _ => (format!(
                "key {} left in the mock as the checks left it (a scratch key made through its control API; it goes away with the mock)",
                key.id
            ), true),
        },
        KeyOrigin::Created => match delete_key(t, key.id).await {
            Ok(true) => (format!("scratch key {} deleted", key.id), true),
            Ok(false) => (format!("scratch key {} could NOT be deleted", key.id), false),
            Err(e) => (format!("scratch key {} could NOT be deleted: {e}", key.id), false),
        },
        KeyOrigin::Snapshot(snap) => match put_record(t, snap).await {
            Ok(Some(rec)) if rec.status == snap.status => {
                (format!("key {} restored from its snapshot", key.id), true)
            }
            Ok(_) => (format!("key {} restore incomplete: check it by hand", key.id), false),
            Err(e) => (format!("key {} could NOT be restored: {e}", key.id), false),
        },
    };
    Some(KeyCleanup { message, put_back })
}
