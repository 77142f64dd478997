//! Which era of new-api's task layer the target runs, and how the runner knows: `--era`, the
//! mock's signature, or what the target shows (DECISIONS D-ERA-1).

use crate::http::request::RequestSpec;
use crate::http::transport::{Transport, TransportError};
use crate::vocab::era::EraSeen;
use gatecheck_schemas::rules::era::{
    era_of_version, forbids_store, plugin_route_served, PLUGIN_ROUTE_PROBE,
};
use gatecheck_schemas::Era;
use serde_json::{json, Value};

/// The era to judge by: `--era` when given, else the mock's signature, else what the target
/// shows ([`shown`]), else the Go adaptors' (DECISIONS D-ERA-1). A dry run sends nothing.
pub(crate) async fn tell(
    cfg: &crate::RunnerConfig,
    t: &Transport,
    mock: Option<&crate::http::mock_control::MockControl>,
) -> Result<EraSeen, TransportError> {
    if let crate::EraChoice::Fixed(era) = cfg.judging.era {
        return Ok(EraSeen::named(era));
    }
    if let Some(sig) = mock.and_then(|m| m.signature.as_ref()) {
        return Ok(match sig.era {
            Some(era) => EraSeen {
                era,
                source: format!("the mock's signature: profile {}, era {era}", sig.profile),
            },
            None => {
                EraSeen::untold("the mock's signature names no era: a mock older than the eras")
            }
        });
    }
    if cfg.scope.dry_run {
        return Ok(EraSeen::untold("dry run: nothing sent"));
    }
    shown(t).await
}

/// The era the target shows: its `GET /api/status` version ([`era_of_version`]), else the
/// plugin era's route ([`PLUGIN_ROUTE_PROBE`], asked without a key) and its no-store
/// not-found ([`forbids_store`]); the adaptors' when neither tells.
pub(crate) async fn shown(t: &Transport) -> Result<EraSeen, TransportError> {
    let status = t.send_probe(&RequestSpec::get("/api/status")).await?;
    let version = status
        .json()
        .filter(|_| status.status.is_success())
        .and_then(|v| {
            v.pointer("/data/version")
                .or_else(|| v.get("version"))
                .and_then(Value::as_str)
                .map(str::to_owned)
        });
    if let Some(era) = version.as_deref().and_then(era_of_version) {
        return Ok(EraSeen {
            era,
            source: format!("GET /api/status version {}", version.unwrap_or_default()),
        });
    }
    let told = match &version {
        Some(v) => format!("version {v:?} tells no era"),
        None => "no version on GET /api/status".to_owned(),
    };
    let probe = t
        .send_probe(&RequestSpec::post(PLUGIN_ROUTE_PROBE).json(json!({})))
        .await?;
    let ct = probe.content_type();
    if plugin_route_served(probe.status.as_u16(), ct.as_deref()) {
        return Ok(EraSeen {
            era: Era::Plugins,
            source: format!(
                "{told}; POST {PLUGIN_ROUTE_PROBE} answered {} (a plugin route)",
                probe.status.as_u16()
            ),
        });
    }
    let nf = t
        .send_probe(&RequestSpec::get("/v1/gatecheck-era-probe"))
        .await?;
    if nf.status.as_u16() == 404 && forbids_store(nf.header("cache-control")) {
        return Ok(EraSeen {
            era: Era::Plugins,
            source: format!(
                "{told}; the not-found answer forbids caching (Cache-Control no-store)"
            ),
        });
    }
    Ok(EraSeen::untold(&format!(
        "{told}; POST {PLUGIN_ROUTE_PROBE} answered {}, the not-found answer allows caching",
        probe.status.as_u16()
    )))
}
