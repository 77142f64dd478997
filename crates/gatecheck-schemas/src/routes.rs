//! The route table: every operation the service serves, by method and OpenAPI path template.
//!
//! It is the one list both sides read: [`crate::openapi()`] documents exactly these operations,
//! and the mock resolves each request once with [`lookup`] (the row's [`Op`] and the path
//! parameters) and dispatches on it, answering 404 for a method and path that is not here. So
//! a route cannot be served without being documented, and the document cannot list a route the
//! mock does not serve.
//!
//! Matching is by segment: a `{name}` segment matches one non-empty segment, a `{name}.png`
//! segment one that ends in `.png`; empty segments (a trailing or doubled `/`) are ignored, as
//! the mock's handlers ignore them. The mock's control API (`/__mock/*`) and CORS preflights
//! are the mock's own and are not part of the service contract.

use crate::rules::image_edit::EDITS_PATH;

mod lookup;
mod native;
pub use lookup::{
    allowed_methods, find_in, find_route, find_route_in, lookup, lookup_named, path_matches,
    segments_of, Found, Lookup, Miss, Segments,
};
pub use native::{table, NativeOp};

/// One served operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Route {
    /// What the mock runs for it: the handler it dispatches to.
    pub op: Op,
    /// The HTTP method, upper case (`GET`, `POST`, ...).
    pub method: &'static str,
    /// The OpenAPI path template (`/v1/videos/{task_id}`).
    pub path: &'static str,
    /// The OpenAPI `operationId`.
    pub operation_id: &'static str,
}

/// The operation a row of [`ROUTES`] serves: the mock dispatches on it, one handler each.
/// Rows that differ only in their path (`/mj/...` and `/{mode}/mj/...`, Kling's two task
/// kinds, `GET`/`HEAD` of a media file, `/` and `/health`) share one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `POST /v1/audio/translations`.
    CreateTranslation,
    /// `POST /v1/audio/transcriptions`.
    CreateTranscription,
    /// `POST /v1/audio/speech`.
    CreateSpeech,
    /// `POST /v1/videos`.
    CreateVideo,
    /// `GET /v1/videos`.
    ListVideos,
    /// `GET /v1/videos/{task_id}`.
    GetVideo,
    /// `DELETE /v1/videos/{task_id}`.
    DeleteVideo,
    /// `GET /v1/videos/{task_id}/content`.
    GetVideoContent,
    /// `POST /v1/videos/{video_id}/remix`.
    RemixVideo,
    /// `POST /v1/video/generations`.
    CreateVideoGeneration,
    /// `GET /v1/video/generations/{task_id}`.
    GetVideoGeneration,
    /// `POST /kling/v1/videos/{text2video,image2video}`.
    CreateKlingTask,
    /// `GET /kling/v1/videos/{text2video,image2video}/{task_id}`.
    GetKlingTask,
    /// `POST /jimeng/?Action=...`.
    Jimeng,
    /// `POST /v1/images/generations`.
    CreateImage,
    /// `POST /v1/images/edits`.
    CreateImageEdit,
    /// `GET /v1/models`.
    ListKeyModels,
    /// `GET /v1/models/{model}`.
    GetKeyModel,
    /// `GET /api/models`.
    ListModels,
    /// `GET /v1beta/models` (Gemini's list shape).
    ListGeminiModels,
    /// `GET /api/usage/token`.
    GetTokenUsage,
    /// `GET /api/pricing`.
    GetPricing,
    /// `GET /api/status`.
    GetStatus,
    /// `PUT /api/token/`.
    UpdateToken,
    /// `GET /api/token/`.
    ListTokens,
    /// `POST /api/token/`.
    CreateToken,
    /// `GET /api/token/{id}`.
    GetToken,
    /// `DELETE /api/token/{id}`.
    DeleteToken,
    /// `POST /api/token/{id}/key`.
    GetTokenKey,
    /// `GET /api/token/search`.
    SearchTokens,
    /// `POST /api/token/batch`.
    DeleteTokenBatch,
    /// `POST /api/token/batch/keys`.
    GetTokenKeysBatch,
    /// `GET /api/user/self`.
    GetSelf,
    /// `GET /api/user/self/groups`.
    GetSelfGroups,
    /// `GET /api/user/models`.
    GetUserModels,
    /// `GET /api/log/self`.
    GetSelfLogs,
    /// `GET /api/log/self/stat`.
    GetSelfLogStat,
    /// `GET /api/data/self`.
    GetSelfQuotaData,
    /// `GET`/`HEAD /media/images/{file}.png`.
    MediaImage,
    /// `GET /media/edits/{file}.png`.
    MediaEdit,
    /// A Midjourney route, under `/mj` or `/{mode}/mj`.
    Mj(MjOp),
    /// `GET /` and `GET /health`.
    Health,
    /// A native vendor route a platform's task plugin declares (`PluginFacts::native`): rows
    /// of [`table`] past [`ROUTES`], served in the plugin era only.
    Native(NativeOp),
}

/// The Midjourney operations ([`Op::Mj`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MjOp {
    /// `POST .../mj/submit/{name}`: the name (a [`crate::rules::midjourney::SUBMIT_ROUTES`]
    /// entry).
    Submit(&'static str),
    /// `POST .../mj/submit/upload-discord-images`.
    Upload,
    /// `POST .../mj/insight-face/swap`.
    Swap,
    /// `POST .../mj/task/list-by-condition`.
    List,
    /// `GET .../mj/task/{id}/fetch`.
    Fetch,
    /// `GET .../mj/task/{id}/image-seed`.
    ImageSeed,
    /// `GET .../mj/image/{id}` (no key).
    Image,
}

const fn route(
    op: Op,
    method: &'static str,
    path: &'static str,
    operation_id: &'static str,
) -> Route {
    Route {
        op,
        method,
        path,
        operation_id,
    }
}

/// Every operation of the service, in the document's order.
pub const ROUTES: &[Route] = &[
    route(
        Op::CreateTranslation,
        "POST",
        "/v1/audio/translations",
        "createTranslation",
    ),
    route(
        Op::CreateTranscription,
        "POST",
        "/v1/audio/transcriptions",
        "createTranscription",
    ),
    route(Op::CreateSpeech, "POST", "/v1/audio/speech", "createSpeech"),
    route(Op::CreateVideo, "POST", "/v1/videos", "createVideo"),
    route(Op::ListVideos, "GET", "/v1/videos", "listVideos"),
    route(Op::GetVideo, "GET", "/v1/videos/{task_id}", "getVideo"),
    route(
        Op::DeleteVideo,
        "DELETE",
        "/v1/videos/{task_id}",
        "deleteVideo",
    ),
    route(
        Op::GetVideoContent,
        "GET",
        "/v1/videos/{task_id}/content",
        "getVideoContent",
    ),
    // The plugin era's `openai_video` content operation also answers HEAD
    // (pkg/jsplugin/routing.go@2f6bf06b `hostProtocols`; DECISIONS D-ERA-6).
    route(
        Op::GetVideoContent,
        "HEAD",
        "/v1/videos/{task_id}/content",
        "headVideoContent",
    ),
    route(
        Op::RemixVideo,
        "POST",
        "/v1/videos/{video_id}/remix",
        "remixVideo",
    ),
    route(
        Op::CreateVideoGeneration,
        "POST",
        "/v1/video/generations",
        "createVideoGeneration",
    ),
    route(
        Op::GetVideoGeneration,
        "GET",
        "/v1/video/generations/{task_id}",
        "getVideoGeneration",
    ),
    route(
        Op::CreateKlingTask,
        "POST",
        "/kling/v1/videos/text2video",
        "createKlingText2Video",
    ),
    route(
        Op::CreateKlingTask,
        "POST",
        "/kling/v1/videos/image2video",
        "createKlingImage2Video",
    ),
    route(
        Op::GetKlingTask,
        "GET",
        "/kling/v1/videos/text2video/{task_id}",
        "getKlingText2Video",
    ),
    route(
        Op::GetKlingTask,
        "GET",
        "/kling/v1/videos/image2video/{task_id}",
        "getKlingImage2Video",
    ),
    route(Op::Jimeng, "POST", "/jimeng/", "jimengAction"),
    route(
        Op::CreateImage,
        "POST",
        "/v1/images/generations",
        "createImage",
    ),
    route(Op::CreateImageEdit, "POST", EDITS_PATH, "createImageEdit"),
    route(Op::ListKeyModels, "GET", "/v1/models", "listKeyModels"),
    route(Op::GetKeyModel, "GET", "/v1/models/{model}", "getKeyModel"),
    route(Op::ListModels, "GET", "/api/models", "listModels"),
    route(Op::GetPricing, "GET", "/api/pricing", "getPricing"),
    route(Op::GetStatus, "GET", "/api/status", "getStatus"),
    route(
        Op::ListGeminiModels,
        "GET",
        crate::rules::model_lists::GEMINI_MODELS_PATH,
        "listGeminiModels",
    ),
    route(
        Op::GetTokenUsage,
        "GET",
        "/api/usage/token",
        "getTokenUsage",
    ),
    route(Op::UpdateToken, "PUT", "/api/token/", "updateToken"),
    route(Op::ListTokens, "GET", "/api/token/", "listTokens"),
    route(Op::CreateToken, "POST", "/api/token/", "createToken"),
    // Before `/api/token/{id}`: the first row at a path serves it (new-api's own order).
    route(
        Op::SearchTokens,
        "GET",
        crate::rules::token_batch::SEARCH_PATH,
        "searchTokens",
    ),
    route(Op::GetToken, "GET", "/api/token/{id}", "getToken"),
    route(Op::DeleteToken, "DELETE", "/api/token/{id}", "deleteToken"),
    route(
        Op::GetTokenKey,
        "POST",
        "/api/token/{id}/key",
        "getTokenKey",
    ),
    route(
        Op::DeleteTokenBatch,
        "POST",
        "/api/token/batch",
        "deleteTokenBatch",
    ),
    route(
        Op::GetTokenKeysBatch,
        "POST",
        "/api/token/batch/keys",
        "getTokenKeysBatch",
    ),
    // The logged-in user's routes beside the keys (new-api's router/api-router.go@823e263).
    route(Op::GetSelf, "GET", "/api/user/self", "getSelf"),
    route(
        Op::GetSelfGroups,
        "GET",
        "/api/user/self/groups",
        "getSelfGroups",
    ),
    route(
        Op::GetUserModels,
        "GET",
        "/api/user/models",
        "getUserModels",
    ),
    route(Op::GetSelfLogs, "GET", "/api/log/self", "getSelfLogs"),
    route(
        Op::GetSelfLogStat,
        "GET",
        "/api/log/self/stat",
        "getSelfLogStat",
    ),
    route(
        Op::GetSelfQuotaData,
        "GET",
        "/api/data/self",
        "getSelfQuotaData",
    ),
    route(
        Op::MediaImage,
        "GET",
        "/media/images/{file}.png",
        "getMediaImage",
    ),
    route(
        Op::MediaImage,
        "HEAD",
        "/media/images/{file}.png",
        "headMediaImage",
    ),
    route(
        Op::MediaEdit,
        "GET",
        "/media/edits/{file}.png",
        "getMediaEdit",
    ),
    route(
        Op::Mj(MjOp::Submit("imagine")),
        "POST",
        "/mj/submit/imagine",
        "mjSubmitImagine",
    ),
    route(
        Op::Mj(MjOp::Submit("change")),
        "POST",
        "/mj/submit/change",
        "mjSubmitChange",
    ),
    route(
        Op::Mj(MjOp::Submit("simple-change")),
        "POST",
        "/mj/submit/simple-change",
        "mjSubmitSimpleChange",
    ),
    route(
        Op::Mj(MjOp::Submit("action")),
        "POST",
        "/mj/submit/action",
        "mjSubmitAction",
    ),
    route(
        Op::Mj(MjOp::Submit("modal")),
        "POST",
        "/mj/submit/modal",
        "mjSubmitModal",
    ),
    route(
        Op::Mj(MjOp::Submit("describe")),
        "POST",
        "/mj/submit/describe",
        "mjSubmitDescribe",
    ),
    route(
        Op::Mj(MjOp::Submit("blend")),
        "POST",
        "/mj/submit/blend",
        "mjSubmitBlend",
    ),
    route(
        Op::Mj(MjOp::Submit("shorten")),
        "POST",
        "/mj/submit/shorten",
        "mjSubmitShorten",
    ),
    route(
        Op::Mj(MjOp::Submit("edits")),
        "POST",
        "/mj/submit/edits",
        "mjSubmitEdits",
    ),
    route(
        Op::Mj(MjOp::Submit("video")),
        "POST",
        "/mj/submit/video",
        "mjSubmitVideo",
    ),
    route(
        Op::Mj(MjOp::Upload),
        "POST",
        "/mj/submit/upload-discord-images",
        "mjSubmitUploadDiscordImages",
    ),
    route(
        Op::Mj(MjOp::Swap),
        "POST",
        "/mj/insight-face/swap",
        "mjInsightFaceSwap",
    ),
    route(
        Op::Mj(MjOp::List),
        "POST",
        "/mj/task/list-by-condition",
        "mjListByCondition",
    ),
    route(
        Op::Mj(MjOp::Fetch),
        "GET",
        "/mj/task/{id}/fetch",
        "mjFetchTask",
    ),
    route(
        Op::Mj(MjOp::ImageSeed),
        "GET",
        "/mj/task/{id}/image-seed",
        "mjImageSeed",
    ),
    route(Op::Mj(MjOp::Image), "GET", "/mj/image/{id}", "mjImage"),
    route(
        Op::Mj(MjOp::Submit("imagine")),
        "POST",
        "/{mode}/mj/submit/imagine",
        "mjModeSubmitImagine",
    ),
    route(
        Op::Mj(MjOp::Submit("change")),
        "POST",
        "/{mode}/mj/submit/change",
        "mjModeSubmitChange",
    ),
    route(
        Op::Mj(MjOp::Submit("simple-change")),
        "POST",
        "/{mode}/mj/submit/simple-change",
        "mjModeSubmitSimpleChange",
    ),
    route(
        Op::Mj(MjOp::Submit("action")),
        "POST",
        "/{mode}/mj/submit/action",
        "mjModeSubmitAction",
    ),
    route(
        Op::Mj(MjOp::Submit("modal")),
        "POST",
        "/{mode}/mj/submit/modal",
        "mjModeSubmitModal",
    ),
    route(
        Op::Mj(MjOp::Submit("describe")),
        "POST",
        "/{mode}/mj/submit/describe",
        "mjModeSubmitDescribe",
    ),
    route(
        Op::Mj(MjOp::Submit("blend")),
        "POST",
        "/{mode}/mj/submit/blend",
        "mjModeSubmitBlend",
    ),
    route(
        Op::Mj(MjOp::Submit("shorten")),
        "POST",
        "/{mode}/mj/submit/shorten",
        "mjModeSubmitShorten",
    ),
    route(
        Op::Mj(MjOp::Submit("edits")),
        "POST",
        "/{mode}/mj/submit/edits",
        "mjModeSubmitEdits",
    ),
    route(
        Op::Mj(MjOp::Submit("video")),
        "POST",
        "/{mode}/mj/submit/video",
        "mjModeSubmitVideo",
    ),
    route(
        Op::Mj(MjOp::Upload),
        "POST",
        "/{mode}/mj/submit/upload-discord-images",
        "mjModeSubmitUploadDiscordImages",
    ),
    route(
        Op::Mj(MjOp::Swap),
        "POST",
        "/{mode}/mj/insight-face/swap",
        "mjModeInsightFaceSwap",
    ),
    route(
        Op::Mj(MjOp::List),
        "POST",
        "/{mode}/mj/task/list-by-condition",
        "mjModeListByCondition",
    ),
    route(
        Op::Mj(MjOp::Fetch),
        "GET",
        "/{mode}/mj/task/{id}/fetch",
        "mjModeFetchTask",
    ),
    route(
        Op::Mj(MjOp::ImageSeed),
        "GET",
        "/{mode}/mj/task/{id}/image-seed",
        "mjModeImageSeed",
    ),
    route(
        Op::Mj(MjOp::Image),
        "GET",
        "/{mode}/mj/image/{id}",
        "mjModeImage",
    ),
    route(Op::Health, "GET", "/health", "getHealth"),
    route(Op::Health, "GET", "/", "getRoot"),
];

/// Operations of [`ROUTES`] that new-api does not route (QuantumNous/new-api
/// router/video-router.go registers no video list and no video delete): in the `new-api`
/// profile they get new-api's not-found answer ([`crate::rules::route`], DECISIONS D-ROUTE-2).
pub const NOT_IN_NEW_API: &[(&str, &str)] =
    &[("GET", "/v1/videos"), ("DELETE", "/v1/videos/{task_id}")];

/// Whether `profile` serves `route` (every route but [`NOT_IN_NEW_API`] in `new-api`).
///
/// ```
/// use gatecheck_schemas::{routes::{find_route, served_in}, Profile};
/// let list = find_route("GET", "/v1/videos").unwrap();
/// assert!(served_in(Profile::Documented, list));
/// assert!(!served_in(Profile::NewApi, list));
/// ```
pub fn served_in(profile: crate::Profile, route: &Route) -> bool {
    profile != crate::Profile::NewApi
        || !NOT_IN_NEW_API
            .iter()
            .any(|(m, p)| *m == route.method && *p == route.path)
}

/// Operations of [`ROUTES`] only new-api's plugin era routes (the `new-api` profile in
/// [`crate::Era::Plugins`]): the `openai_video` protocol's `HEAD` of the content route
/// (pkg/jsplugin/routing.go@2f6bf06b). The documented profile and the adaptor era do not
/// serve them (the adaptor era's gin router answers its not-found; DECISIONS D-ERA-6).
pub const ONLY_IN_PLUGIN_ERA: &[(&str, &str)] = &[("HEAD", "/v1/videos/{task_id}/content")];

/// Whether `route` is one of [`ONLY_IN_PLUGIN_ERA`] or a plugin's native route ([`Op::Native`]).
pub fn only_in_plugin_era(route: &Route) -> bool {
    matches!(route.op, Op::Native(_))
        || ONLY_IN_PLUGIN_ERA
            .iter()
            .any(|(m, p)| *m == route.method && *p == route.path)
}

/// Whether the named profile serves `route`: [`served_in`] its profile, and the rows of
/// [`ONLY_IN_PLUGIN_ERA`] only in the plugin era of `new-api`.
///
/// ```
/// use gatecheck_schemas::{routes::{served_in_named, ROUTES}, NamedProfile};
/// let head = ROUTES.iter().find(|r| r.operation_id == "headVideoContent").unwrap();
/// assert!(served_in_named(NamedProfile::NEW_API, head));
/// assert!(!served_in_named(NamedProfile::NEW_API_ADAPTORS, head));
/// assert!(!served_in_named(NamedProfile::DOCUMENTED, head));
/// ```
pub fn served_in_named(named: crate::NamedProfile, route: &Route) -> bool {
    served_in(named.profile, route)
        && (!only_in_plugin_era(route)
            || (named.profile == crate::Profile::NewApi
                && named.effective_era() == crate::Era::Plugins))
}

/// The status of a known path asked with a method the table does not serve there, in the
/// documented profile (with an `Allow` header); new-api's router answers 404.
pub const METHOD_NOT_ALLOWED: u16 = 405;

#[cfg(test)]
mod tests {
    use super::lookup::{compiled, MAX_ALLOWED, MAX_SEGMENTS};
    use super::*;

    #[test]
    fn every_operation_id_and_route_is_unique() {
        let table = table();
        for (i, a) in table.iter().enumerate() {
            for b in &table[i + 1..] {
                assert_ne!(a.operation_id, b.operation_id);
                assert!(!(a.method == b.method && a.path == b.path), "{a:?}");
            }
        }
    }

    #[test]
    fn a_route_outside_the_table_is_not_found() {
        let fake = [route(Op::Health, "GET", "/v1/undocumented", "undocumented")];
        assert!(find_in(&fake, "GET", "/v1/undocumented").is_some());
        assert!(find_route("GET", "/v1/undocumented").is_none());
        assert!(find_route("POST", "/v1/models").is_none());
        assert!(find_route("GET", "/v1/videos/a/b/c").is_none());
        assert!(find_route("GET", "/media/images/.png").is_none());
    }

    #[test]
    fn parameters_match_one_segment() {
        let r = find_route("DELETE", "/v1/videos/video_abc/").unwrap();
        assert_eq!(r.operation_id, "deleteVideo");
        assert_eq!(
            find_route("post", "/api/token/7/key").unwrap().operation_id,
            "getTokenKey"
        );
        assert_eq!(find_route("GET", "/").unwrap().operation_id, "getRoot");
    }

    #[test]
    fn no_template_has_more_segments_than_the_fast_lookup_holds() {
        for r in table() {
            assert!(segments_of(r.path).count() < MAX_SEGMENTS, "{r:?}");
        }
        let grouped: usize = compiled().iter().map(Vec::len).sum();
        assert_eq!(grouped, table().len());
    }

    proptest::proptest! {
        /// The byte scan splits as `str::split` with empty segments dropped.
        #[test]
        fn segments_split_as_str_split_does(path in "[/a-z.{}é]{0,24}") {
            let oracle: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
            proptest::prop_assert_eq!(segments_of(&path).collect::<Vec<_>>(), oracle);
        }
    }

    /// Paths built from the templates' own segments, parameters, empty segments and others:
    /// the fast lookup answers as the plain scan of the table does.
    #[test]
    fn the_fast_lookup_agrees_with_the_table_scan() {
        let words = [
            "",
            "v1",
            "api",
            "media",
            "images",
            "videos",
            "video_1",
            "content",
            "token",
            "7",
            "key",
            "models",
            "tts-1",
            "a.png",
            ".png",
            "health",
            "usage",
            "audio",
            "speech",
            "generations",
            "x",
        ];
        let methods = ["GET", "get", "POST", "PUT", "DELETE", "HEAD", "PATCH"];
        let mut paths = vec![String::new(), "/".to_owned(), "//".to_owned()];
        for r in table() {
            paths.push(r.path.replace(['{', '}'], ""));
            paths.push(format!("{}/", r.path));
        }
        for a in words {
            for b in words {
                paths.push(format!("/{a}/{b}"));
                for c in ["", "x", "content", "key", "a.png"] {
                    paths.push(format!("/{a}/{b}/{c}"));
                    paths.push(format!("/{a}/{b}/{c}/x/x/x/x/x/x"));
                }
            }
        }
        for p in &paths {
            for m in methods {
                let documented = find_in(table(), m, p)
                    .filter(|r| served_in_named(crate::NamedProfile::DOCUMENTED, r));
                assert_eq!(find_route(m, p), documented, "{m} {p}");
                for named in crate::NamedProfile::ALL {
                    let scan = find_in(table(), m, p).filter(|r| served_in_named(named, r));
                    match lookup_named(named, m, p) {
                        Lookup::Found(found) => assert_eq!(Some(found.route), scan, "{m} {p}"),
                        Lookup::Miss(miss) => {
                            assert_eq!(scan, None, "{m} {p}");
                            let allowed: Vec<_> = table()
                                .iter()
                                .filter(|r| path_matches(r.path, p))
                                .filter(|r| !only_in_plugin_era(r) || served_in_named(named, r))
                                .map(|r| r.method)
                                .collect();
                            assert_eq!(miss.allowed(), allowed, "{m} {p}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn no_path_is_served_with_more_methods_than_a_miss_holds() {
        for r in table() {
            let at_path = table().iter().filter(|o| path_matches(o.path, r.path));
            assert!(at_path.count() <= MAX_ALLOWED, "{r:?}");
        }
    }

    #[test]
    fn parameters_are_slices_of_the_path() {
        let path = "/kling/v1/videos/image2video/task_9/";
        let Lookup::Found(found) = lookup(crate::Profile::NewApi, "GET", path) else {
            panic!("served");
        };
        assert_eq!(found.route.op, Op::GetKlingTask);
        assert_eq!(found.param("task_id"), "task_9");
        let Lookup::Found(found) = lookup(crate::Profile::NewApi, "GET", "/turbo/mj/task/7/fetch")
        else {
            panic!("served");
        };
        assert_eq!((found.param("mode"), found.param("id")), ("turbo", "7"));
        assert_eq!(found.route.op, Op::Mj(MjOp::Fetch));
        assert!(matches!(
            lookup(crate::Profile::NewApi, "GET", "/v1/videos"),
            Lookup::Miss(_)
        ));
    }

    /// A submit row names the last segment of its path, the name its handler reads.
    #[test]
    fn each_submit_row_names_its_path() {
        for r in ROUTES {
            if let Op::Mj(MjOp::Submit(name)) = r.op {
                assert_eq!(segments_of(r.path).last(), Some(name), "{r:?}");
                let submit = crate::rules::midjourney::SUBMIT_ROUTES;
                assert!(submit.iter().any(|(n, _)| *n == name), "{r:?}");
            }
        }
    }
}
