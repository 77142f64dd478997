//! `key.routes.*` (issue 46 section 2): each key rule on every route family. A faithful mock
//! passes them in both profiles; the planted bugs of `planted_key_routes.rs` fail them while the
//! `/v1/videos`-only key checks stay green.

use super::support::{config, show};
use gatecheck_conformance::{Runner, Status};
use gatecheck_mock::{ClockMode, MockServer};
use gatecheck_schemas::Profile;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_family_refuses_every_key_rule_on_the_mock() {
    for profile in [Profile::Documented, Profile::NewApi] {
        let server = MockServer::builder()
            .profile(profile)
            .clock(ClockMode::virtual_default())
            .start()
            .await;
        let mut c = config(&server.uri());
        c.judging.expect = profile;
        c.scope.only = vec!["key.routes.*".into()];
        let report = Runner::new(c).run().await.expect("run");
        server.shutdown().await;
        let ids: Vec<&str> = report.checks.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids.len(), 13, "{profile:?}: {}", show(&report));
        let bad: Vec<_> = report
            .checks
            .iter()
            .filter(|c| c.status != Status::Passed || c.cases == 0)
            .map(|c| c.id.clone())
            .collect();
        assert!(bad.is_empty(), "{profile:?}: {bad:?}\n{}", show(&report));
    }
}
