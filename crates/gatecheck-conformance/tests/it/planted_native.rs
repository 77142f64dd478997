//! The planted bugs of the plugins' native routes (DECISIONS D-ERA-15, D-ERA-16): each runs
//! against the mock's `new-api` profile (the plugin era), where `task.native-routes` judges
//! every declared route of a platform the catalog serves.

use super::planted::{Bug, Planted};
use gatecheck_conformance::Status;
use gatecheck_schemas::NamedProfile;

/// The check of the native routes.
const CHECK: &str = "task.native-routes";

/// This surface's rows of [`planted`](super::planted::planted): (bug, the check that
/// catches it, its verdict, the rule it breaks).
pub(crate) fn rows() -> Vec<Planted> {
    vec![
        (
            Bug::NativeRoutesNotRouted,
            CHECK,
            Status::Failed,
            "routes::table, NativeOp, PluginFacts::native, doubao::NATIVE, ali::NATIVE, NativeOperation (the declared routes served, D-ERA-15)",
        ),
        (
            Bug::NativeCreatedHostObject,
            CHECK,
            Status::Failed,
            "native::NativeRoute::schema, render (the vendor's body, D-ERA-15)",
        ),
        (
            Bug::NativeCreatedUpstreamId,
            CHECK,
            Status::Failed,
            "native::NativeRoute::id_pointer, video::is_task_id (the public id, D-ERA-15)",
        ),
        (
            Bug::NativeFetchOtherTask,
            CHECK,
            Status::Failed,
            "native::NativeRoute::id_pointer (the task asked, D-ERA-15)",
        ),
        (
            Bug::NativeErrorHostShape,
            CHECK,
            Status::Deviation,
            "native::Native::error, error_schema, refusal, host_error (D-ERA-16)",
        ),
    ]
}

/// Whether `bug` is one of this surface's (run on the `new-api` mock).
pub(crate) fn plants(bug: Bug) -> bool {
    rows().iter().any(|(b, ..)| *b == bug)
}

/// No false alarm: the check passes on the mock that plays the plugin era, and skips with
/// its cause on the frozen adaptors' mock and the documented one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_native_routes_pass_on_the_plugin_era_and_skip_elsewhere() {
    use gatecheck_conformance::Runner;
    use gatecheck_mock::{ClockMode, MockServer};
    for named in [
        NamedProfile::NEW_API,
        NamedProfile::NEW_API_ADAPTORS,
        NamedProfile::DOCUMENTED,
    ] {
        let server = MockServer::builder()
            .named_profile(named)
            .clock(ClockMode::virtual_default())
            .start()
            .await;
        let mut config = super::support::config(&server.uri());
        config.judging.expect = named.profile;
        config.scope.only = vec![CHECK.to_owned()];
        let report = Runner::new(config).run().await.expect("run");
        server.shutdown().await;
        let c = report.checks.iter().find(|c| c.id == CHECK).expect("ran");
        let want = if named == NamedProfile::NEW_API {
            Status::Passed
        } else {
            Status::Skipped
        };
        assert_eq!(
            c.status,
            want,
            "{named}: {}",
            gatecheck_conformance::report::summary_table(&report)
        );
    }
}
