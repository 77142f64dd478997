//! The native vendor routes the platforms' plugins declare (`PluginFacts::native`, DECISIONS
//! D-ERA-11): served from the route table in the `new-api` profile's plugin era, answered in
//! the vendor's own bodies; not found in `new-api-adaptors` and `documented`.

use super::support::{bearer, Http, KEY_ENABLED};
use gatecheck_mock::{ClockMode, MockServer};
use gatecheck_schemas::rules::platforms::native::{declared, NativeOperation, NativeRoute};
use gatecheck_schemas::rules::platforms::{Key, Platform, OTHER_RATIOS_HEADER};
use gatecheck_schemas::NamedProfile;
use serde_json::{json, Value};

async fn server(named: NamedProfile) -> MockServer {
    MockServer::builder()
        .named_profile(named)
        .clock(ClockMode::virtual_default())
        .start()
        .await
}

/// The platforms that declare native routes, with their submit and query routes.
fn native_platforms() -> Vec<(
    &'static Platform,
    &'static NativeRoute,
    &'static NativeRoute,
)> {
    let mut out: Vec<_> = Vec::new();
    for (p, _, _) in declared() {
        if out
            .iter()
            .any(|(q, _, _): &(&Platform, _, _)| q.name == p.name)
        {
            continue;
        }
        let native = &p.plugins.native;
        if let (Some(s), Some(q)) = (
            native.route(NativeOperation::Submit),
            native.route(NativeOperation::Query),
        ) {
            out.push((p, s, q));
        }
    }
    out
}

/// The OpenAPI document's violations of an answer (as a validating proxy judges it).
fn documented(method: &str, path: &str, resp: &super::support::Resp) -> Vec<String> {
    let headers: Vec<(&str, &str)> = resp
        .headers
        .iter()
        .filter_map(|(k, v)| Some((k.as_str(), v.to_str().ok()?)))
        .collect();
    let answer = gatecheck_schemas::openapi::check::Answer {
        method,
        path,
        status: resp.status,
        headers: &headers,
        body: &resp.body,
    };
    gatecheck_schemas::openapi::check::ResponseChecker::new().check(&answer)
}

fn query_path(route: &NativeRoute, id: &str) -> String {
    route.path.replace("{task_id}", id)
}

/// Every row of the route table past `ROUTES` (one per declared native route) is served by
/// the plugin era's mock: answered by the native handler, in the platform's own bodies (an
/// empty body is refused in its `native.error`, an unknown task is its 404), never the gate.
#[tokio::test]
async fn every_declared_native_row_of_the_table_is_served() {
    use gatecheck_schemas::routes::{table, Op, ROUTES};
    let server = server(NamedProfile::NEW_API).await;
    let http = Http::new(server.uri());
    let a = bearer(KEY_ENABLED);
    let h = [("authorization", a.as_str())];
    let native = &table()[ROUTES.len()..];
    assert_eq!(native.len(), declared().count());
    for row in native {
        let Op::Native(op) = row.op else {
            panic!("{row:?} past ROUTES is no native row");
        };
        let (p, _) = op.route().expect("declared");
        let path = row.path.replace("{task_id}", "task_unknown");
        let resp = http.send(row.method, &path, &h, "").await;
        let want = if row.method == "GET" { 404 } else { 400 };
        assert_eq!(resp.status, want, "{} {path}: {}", row.method, resp.text());
        let (_, body) = gatecheck_schemas::rules::platforms::native::refusal(p, want);
        assert_eq!(resp.json(), body, "{} {path}", row.method);
    }
    server.shutdown().await;
}

#[tokio::test]
async fn doubao_and_ali_declare_their_plugins_routes() {
    let names: Vec<_> = native_platforms().iter().map(|(p, _, _)| p.name).collect();
    for k in [Key::Doubao, Key::Ali] {
        assert!(names.contains(&k.platform().unwrap().name), "{names:?}");
    }
}

#[tokio::test]
async fn a_native_submit_and_fetch_answer_the_vendors_bodies_with_the_public_id() {
    let server = server(NamedProfile::NEW_API).await;
    let http = Http::new(server.uri());
    let a = bearer(KEY_ENABLED);
    let h = [("authorization", a.as_str())];
    for (p, submit, query) in native_platforms() {
        let body = (submit.example.expect("a submit example"))(p.catalog_model, "a red kite");
        let created = http.json(submit.method, submit.path, &h, body).await;
        assert_eq!(created.status, 200, "{}: {}", p.name, created.text());
        assert!(created.header(OTHER_RATIOS_HEADER).is_some(), "{}", p.name);
        let v = created.json();
        let id = v
            .pointer(submit.id_pointer)
            .and_then(Value::as_str)
            .unwrap_or("");
        assert!(id.starts_with("task_"), "{}: the public id: {v}", p.name);
        assert!(
            gatecheck_schemas::rules::platforms::native::violations(&(submit.schema)(), &v)
                .is_empty(),
            "{}: {v}",
            p.name
        );
        let fetched = http
            .send(query.method, &query_path(query, id), &h, "")
            .await;
        assert_eq!(fetched.status, 200, "{}: {}", p.name, fetched.text());
        let f = fetched.json();
        assert_eq!(
            f.pointer(query.id_pointer),
            Some(&json!(id)),
            "{}: {f}",
            p.name
        );
        assert!(
            gatecheck_schemas::rules::platforms::native::violations(&(query.schema)(), &f)
                .is_empty(),
            "{}: {f}",
            p.name
        );
        let fetch_path = query_path(query, id);
        assert_eq!(
            documented(submit.method, submit.path, &created),
            Vec::<String>::new()
        );
        assert_eq!(
            documented(query.method, &fetch_path, &fetched),
            Vec::<String>::new()
        );
        // The same task on `/v1/videos/{id}`: one task, two renders.
        let video = http.send("GET", &format!("/v1/videos/{id}"), &h, "").await;
        assert_eq!(video.status, 200, "{}: {}", p.name, video.text());
        let unknown = http
            .send(query.method, &query_path(query, "task_nosuch"), &h, "")
            .await;
        assert_eq!(unknown.status, 404, "{}: {}", p.name, unknown.text());
        let unknown_path = query_path(query, "task_nosuch");
        assert_eq!(
            documented(query.method, &unknown_path, &unknown),
            Vec::<String>::new()
        );
        assert_eq!(
            unknown.json(),
            (p.plugins.native.error)("task_not_found", "Task not found"),
            "{}",
            p.name
        );
    }
    server.shutdown().await;
}

#[tokio::test]
async fn a_task_of_another_platform_is_not_found_on_a_native_query() {
    let server = server(NamedProfile::NEW_API).await;
    let http = Http::new(server.uri());
    let a = bearer(KEY_ENABLED);
    let h = [("authorization", a.as_str())];
    let platforms = native_platforms();
    let (p, submit, _) = platforms[0];
    let body = (submit.example.unwrap())(p.catalog_model, "a red kite");
    let v = http.json(submit.method, submit.path, &h, body).await.json();
    let id = v
        .pointer(submit.id_pointer)
        .and_then(Value::as_str)
        .unwrap()
        .to_owned();
    let (other, _, query) = platforms[1];
    let resp = http
        .send(query.method, &query_path(query, &id), &h, "")
        .await;
    assert_eq!(
        resp.status,
        404,
        "{} asked of {}: {}",
        p.name,
        other.name,
        resp.text()
    );
    server.shutdown().await;
}

#[tokio::test]
async fn refusals_are_the_plugins_native_error() {
    let server = server(NamedProfile::NEW_API).await;
    let http = Http::new(server.uri());
    let a = bearer(KEY_ENABLED);
    let h = [("authorization", a.as_str())];
    let doubao = Key::Doubao.platform().unwrap();
    let route = doubao
        .plugins
        .native
        .route(NativeOperation::Submit)
        .unwrap();
    // `createTask` refuses a body without content; the host names no detail.
    let no_content = json!({"model": doubao.catalog_model});
    let resp = http.json("POST", route.path, &h, no_content).await;
    assert_eq!(resp.status, 400, "{}", resp.text());
    assert_eq!(
        resp.json(),
        json!({"error": {"code": "invalid_request", "message": "Invalid request"}})
    );
    // A model outside the plugin's `meta.models`.
    let other = json!({"model": "viduq1", "content": [{"type": "text", "text": "x"}]});
    assert_eq!(http.json("POST", route.path, &h, other).await.status, 400);
    let ali = Key::Ali.platform().unwrap();
    let route = ali.plugins.native.route(NativeOperation::Submit).unwrap();
    let resp = http
        .json("POST", route.path, &h, json!(["not an object"]))
        .await;
    assert_eq!(resp.status, 400, "{}", resp.text());
    assert_eq!(
        resp.json(),
        json!({"code": "invalid_request", "message": "Invalid request", "request_id": ""})
    );
    // No key: refused before the plugin is asked.
    let resp = http.json("POST", route.path, &[], json!({})).await;
    assert_eq!(resp.status, 401, "{}", resp.text());
    server.shutdown().await;
}

#[tokio::test]
async fn the_native_routes_are_unrouted_outside_the_plugin_era() {
    for named in [NamedProfile::NEW_API_ADAPTORS, NamedProfile::DOCUMENTED] {
        let server = server(named).await;
        let http = Http::new(server.uri());
        let a = bearer(KEY_ENABLED);
        let h = [("authorization", a.as_str())];
        for (p, submit, query) in native_platforms() {
            // As any path the table lacks is answered there (the web fallback, or 404).
            let unrouted = http
                .send("GET", &format!("{}-unrouted", submit.path), &h, "")
                .await;
            let body = (submit.example.unwrap())(p.catalog_model, "a red kite");
            let created = http.json(submit.method, submit.path, &h, body).await;
            assert_eq!(created.status, unrouted.status, "{named:?} {}", p.name);
            let same = |t: String| t.replace(submit.method, "GET").replace("-unrouted", "");
            assert_eq!(
                same(created.text()),
                same(unrouted.text()),
                "{named:?} {}",
                p.name
            );
            let fetched = http
                .send(query.method, &query_path(query, "task_1"), &h, "")
                .await;
            assert_eq!(fetched.status, unrouted.status, "{named:?} {}", p.name);
            let vendor = serde_json::from_str::<Value>(&fetched.text())
                .ok()
                .and_then(|v| v.pointer(query.id_pointer).cloned());
            assert_eq!(vendor, None, "{named:?} {}", p.name);
        }
        server.shutdown().await;
    }
}
