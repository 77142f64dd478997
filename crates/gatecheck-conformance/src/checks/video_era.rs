//! The plugin era's host-level video routes (DECISIONS D-ERA-6): `HEAD
//! /v1/videos/{task_id}/content`, which new-api routes only since its task plugins
//! (pkg/jsplugin/routing.go@2f6bf06b), judged against the GET of the same content.

use super::Kind::Failure;
use super::{def, Check, CheckCtx, Halt, Outcome, Pass, Phase};
use crate::http::client::{Exchange, RequestSpec};
use crate::vocab::skip::SkipCause;
use gatecheck_schemas::Era;

pub(crate) const CHECKS: &[Check] = &[
    def("video.content.head", Failure, "HEAD /v1/videos/{task_id}/content", "DECISIONS D-ERA-6; RFC 9110 9.3.2 (HEAD)",
        "In new-api's plugin era, HEAD of a completed task's content answers what GET answers (status, `Content-Type`, `Content-Length`) without a body; skipped in the Go-adaptor era, which does not route it.",
        Phase::Shared, |c| Box::pin(head_content(c))),
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
    let ids = super::video::completed_ids(ctx).await?;
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
