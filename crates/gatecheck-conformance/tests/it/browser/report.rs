//! The HTML report in Chromium: a planted bug's failing rule and its curl are on the page, and
//! a model name carrying `<script>` and an `onerror` image shows as text and runs nothing.

use super::{chromium, dom_text, dump_dom};
use crate::mutation_proxy::start_proxy;
use crate::planted::Bug;
use crate::support::temp_dir;
use gatecheck_conformance::internals::known_capabilities;
use gatecheck_conformance::{Runner, Status};
use gatecheck_mock::{ClockMode, Fixtures, MockServer};

/// A video model whose name would mark the page (`data-pwned`) if the report let it run.
const HOSTILE_MODEL: &str = "sora-2<script>document.documentElement.setAttribute('data-pwned','script')</script><img src=x onerror=\"document.documentElement.setAttribute('data-pwned','img')\">";

/// The embedded fixtures with `sora-2` renamed to [`HOSTILE_MODEL`].
fn hostile_fixtures() -> Fixtures {
    let mut f = Fixtures::embedded();
    for m in f.catalog.iter_mut().filter(|m| m.id == "sora-2") {
        m.id = HOSTILE_MODEL.to_owned();
    }
    let caps = f
        .capabilities
        .remove("sora-2")
        .expect("sora-2 capabilities");
    f.capabilities.insert(HOSTILE_MODEL.to_owned(), caps);
    f
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_planted_bug_shows_its_rule_and_curl_and_a_script_model_name_runs_nothing() {
    let Some(chromium) = chromium() else {
        return;
    };
    let server = MockServer::builder()
        .clock(ClockMode::virtual_default())
        .fixtures(hostile_fixtures())
        .start()
        .await;
    let proxy = start_proxy(server.uri(), Bug::ProgressRegresses).await;
    let mut config = crate::support::config(&proxy);
    config.scope.only = vec!["video.*".into()];
    let mut caps = known_capabilities();
    let sora = caps.remove("sora-2").expect("sora-2");
    caps.insert(HOSTILE_MODEL.to_owned(), sora);
    config.known.capabilities = Some(caps);
    let report = Runner::new(config).run().await.expect("run");
    server.shutdown().await;
    let failed = report
        .checks
        .iter()
        .find(|c| c.id == "video.progress.monotone")
        .expect("check");
    assert_eq!(
        failed.status,
        Status::Failed,
        "{}",
        gatecheck_conformance::report::summary_table(&report)
    );
    let curl = failed
        .evidence
        .as_ref()
        .and_then(|e| e.curl.clone())
        .expect("curl");

    let dir = temp_dir("html-report");
    let page = dir.join("report.html");
    std::fs::write(&page, gatecheck_conformance::report::to_html(&report)).expect("write");
    let url = format!("file://{}", page.display());
    let dom = tokio::task::spawn_blocking(move || dump_dom(&chromium, &url))
        .await
        .expect("chromium");
    let _ = std::fs::remove_dir_all(&dir);

    // The verdict, then the failing rule's card with its spec reference and its curl.
    assert!(dom.contains("<h1>gatecheck check: failed</h1>"), "{dom}");
    let card = dom
        .split("<article class=\"card failed\" id=\"check-video.progress.monotone\">")
        .nth(1)
        .and_then(|rest| rest.split("</article>").next())
        .expect("a card for video.progress.monotone");
    assert!(card.contains(&dom_text(&failed.spec)), "{card}");
    assert!(card.contains(&dom_text(&curl)), "{card}\n---\n{curl}");
    assert!(card.contains("progress"), "{card}");
    // The task timelines were drawn.
    assert!(dom.contains("data-kind=\"video\""), "no video timeline");

    // The hostile model name is on the page as text, and nothing it carries ran.
    assert!(
        dom.contains(&dom_text(HOSTILE_MODEL)),
        "the model name is not shown as text"
    );
    // (The name's own text says `data-pwned`; only an attribute would mean it ran.)
    assert!(!dom.contains("data-pwned=\""), "an injected script ran");
    assert!(
        !dom.contains("<img src=\"x\""),
        "an injected element was parsed"
    );
    assert_eq!(
        dom.matches("<script").count(),
        1,
        "only the report's own script"
    );
}
