//! The plugin era's host-level video routes: `HEAD /v1/videos/{task_id}/content`, which
//! new-api routes only since its task plugins (pkg/jsplugin/routing.go@2f6bf06b), judged
//! against the GET of the same content (DECISIONS D-ERA-6); the billing ratios the plugin of
//! a generic OpenAI-video task announces (D-ERA-10).

use super::Kind::{Deviation, Failure};
use super::{Check, CheckCtx, Halt, Needs, Outcome, Pass, Phase};
use crate::http::client::{Exchange, RequestSpec};
use crate::vocab::discovery::RouteFamily;
use crate::vocab::skip::SkipCause;
use gatecheck_schemas::decisions::id;
use gatecheck_schemas::Era;

pub(crate) const CHECKS: &[Check] = &[
    Check {
        id: "video.content.head",
        kind: Failure,
        route: "HEAD /v1/videos/{task_id}/content",
        spec: "DECISIONS D-ERA-6; RFC 9110 9.3.2 (HEAD)",
        title: "In new-api's plugin era, HEAD of a completed task's content answers what GET answers (status, `Content-Type`, `Content-Length`) without a body; skipped in the Go-adaptor era, which does not route it.",
        phase: Phase::Shared,
        needs: Needs::Nothing,
        mock_only: None,
        decision: None,
        run: |c| Box::pin(head_content(c)),
    },
    Check {
        id: "video.create.plugin-ratios",
        kind: Deviation,
        route: "POST /v1/videos",
        spec: "DECISIONS D-ERA-10",
        title: "In new-api's plugin era, the create answer's `X-New-Api-Other-Ratios` is the OpenAI-video plugin's `{\"seconds\": N}` for the seconds sent (no `size` ratio); judged under `--expect new-api`, skipped otherwise.",
        phase: Phase::Shared,
        needs: Needs::All(&[RouteFamily::VideoCreate]),
        mock_only: None,
        decision: Some(id::D_VIDEO),
        run: |c| Box::pin(plugin_ratios(c)),
    },
];

/// What HEAD shows that must agree with GET: the status, the media type and the length.
fn shown(ex: &Exchange, body_len: Option<usize>) -> (u16, Option<String>, Option<String>) {
    let len = ex
        .header("content-length")
        .map(str::to_owned)
        .or_else(|| body_len.map(|n| n.to_string()));
    (ex.status.as_u16(), ex.content_type(), len)
}

async fn head_content(ctx: &CheckCtx) -> Outcome {
    if ctx.env.era() != Era::Plugins {
        return Err(Halt::Skip(
            SkipCause::RouteNotServed,
            format!(
                "the task-layer era is {}: HEAD of the content route is the plugin era's (DECISIONS D-ERA-6)",
                ctx.env.era.describe()
            ),
        ));
    }
    let auth = ctx.model_auth()?;
    let ids = super::video_run::completed_ids(ctx).await?;
    if ids.is_empty() {
        return Err(Halt::not_observed("no task completed"));
    }
    for id in &ids {
        let path = format!("/v1/videos/{id}/content");
        let get = RequestSpec::get(&path).auth(auth.clone());
        let got = ctx.send(&get, 0).await?;
        let head = RequestSpec::new(http::Method::HEAD, &path).auth(auth.clone());
        let headed = ctx.send(&head, 0).await?;
        if !headed.body.is_empty() {
            return Err(ctx.fail(
                format!("HEAD answered a body of {} bytes", headed.body.len()),
                &head,
                Some(&headed),
            ));
        }
        let want = shown(&got, Some(got.body.len()));
        let have = shown(&headed, None);
        if have != want {
            return Err(ctx.fail(
                format!(
                    "HEAD answered {} {:?} length {:?}; GET answers {} {:?} length {:?}",
                    have.0, have.1, have.2, want.0, want.1, want.2
                ),
                &head,
                Some(&headed),
            ));
        }
    }
    Ok(Pass {
        cases: ids.len() as u32,
        note: None,
    })
}

async fn plugin_ratios(ctx: &CheckCtx) -> Outcome {
    use gatecheck_schemas::rules::openai_video::openai_channel_ratios;
    use gatecheck_schemas::rules::platforms::OTHER_RATIOS_HEADER;
    if !ctx.judges_plugins() {
        return Err(Halt::Skip(
            SkipCause::NoCase,
            "the plugin era's ratios are judged under --expect new-api in the plugin era (DECISIONS D-ERA-10)".into(),
        ));
    }
    let creates = super::video_run::creates(ctx).await?;
    let mut n = 0;
    for (spec, ex, seconds) in creates.iter().filter(|(_, ex, _)| ex.status.is_success()) {
        let want = serde_json::Value::Object(openai_channel_ratios(Some(&seconds.to_string())));
        let got = ex
            .header(OTHER_RATIOS_HEADER)
            .and_then(|h| serde_json::from_str::<serde_json::Value>(h).ok());
        if got.as_ref() != Some(&want) {
            return Err(ctx.deviate(
                id::D_ERA_10,
                format!(
                    "the create answer's {OTHER_RATIOS_HEADER} is {}, the OpenAI-video plugin's {want} (its seconds alone)",
                    got.map_or_else(|| "absent".to_owned(), |g| g.to_string())
                ),
                spec,
                Some(ex),
            ));
        }
        n += 1;
    }
    if n == 0 {
        return Err(Halt::not_observed("no task was created"));
    }
    Ok(Pass {
        cases: n,
        note: None,
    })
}
