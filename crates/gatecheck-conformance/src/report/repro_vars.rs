//! The shell variables the repro lines name, and where the user gets each value: a repro runs
//! as printed once they are exported.

use super::Report;
use crate::evidence::Upload;
use serde::Serialize;

/// One variable a repro line names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReproVariable {
    /// The name, e.g. `GATECHECK_API_KEY`.
    pub name: String,
    /// Where its value comes from.
    pub source: String,
}

/// The name of the directory variable of upload repros.
pub const UPLOADS_VAR: &str = "GATECHECK_UPLOADS";

/// How the run got its working key (for `$GATECHECK_SCRATCH_KEY`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorkKeySource {
    /// Made through the mock's control API.
    Mock(i64),
    /// Made with `POST /api/token/`, deleted at the end.
    Created(i64),
    /// The user's `--key-id`.
    Named(i64),
}

impl Report {
    /// Every repro line of the report: the evidence's, the related exchanges', the planned.
    fn repro_lines(&self) -> impl Iterator<Item = &str> {
        let evidence = self.checks.iter().filter_map(|c| c.evidence.as_ref());
        let curls = evidence.clone().filter_map(|e| e.curl.as_deref());
        let related = evidence.flat_map(|e| e.related.iter().map(|r| r.curl.as_str()));
        curls
            .chain(related)
            .chain(self.planned.iter().map(String::as_str))
    }

    /// The files the repro lines upload, once each by name.
    pub fn uploads(&self) -> Vec<&Upload> {
        let mut out: Vec<&Upload> = Vec::new();
        let evidence = self.checks.iter().filter_map(|c| c.evidence.as_ref());
        let found = evidence.flat_map(|e| {
            let related = e.related.iter().flat_map(|r| &r.uploads);
            e.uploads.iter().chain(related)
        });
        for u in found.chain(&self.planned_uploads) {
            if !out.iter().any(|o| o.name == u.name) {
                out.push(u);
            }
        }
        out
    }

    /// Fills [`Report::repro_variables`]: each variable some repro line names, with where its
    /// value comes from. `headers` are the names of the `--header` flags, in order.
    pub fn explain_repro_variables(&mut self, key: Option<WorkKeySource>, headers: &[String]) {
        let text: String = self.repro_lines().collect::<Vec<_>>().join("\n");
        let mut vars = Vec::new();
        let mut add = |name: &str, source: String| {
            if text.contains(&format!("${name}")) || text.contains(&format!("${{{name}")) {
                vars.push(ReproVariable {
                    name: name.to_owned(),
                    source,
                });
            }
        };
        add(
            "GATECHECK_API_KEY",
            "the API key of the run: --api-key (or GATECHECK_API_KEY); on a gatecheck mock \
             without it, the mock's demo key (`gatecheck serve` prints it)"
                .into(),
        );
        add(
            "GATECHECK_ACCESS_TOKEN",
            "the access token of the run: --access-token (or GATECHECK_ACCESS_TOKEN); on a \
             gatecheck mock without it, the demo account's (`gatecheck serve` prints it)"
                .into(),
        );
        add(
            "GATECHECK_SCRATCH_KEY",
            scratch_key_source(&self.target, key),
        );
        for (i, name) in headers.iter().enumerate() {
            add(
                &format!("GATECHECK_HEADER_{}", i + 1),
                format!("the value of --header number {} ({name})", i + 1),
            );
        }
        add(
            UPLOADS_VAR,
            "the directory `gatecheck check` writes the files the repros upload to (next to \
             the first report, else in the temporary directory; it prints the path)"
                .into(),
        );
        self.repro_variables = vars;
    }

    /// Says where the uploads went: `$GATECHECK_UPLOADS` is `dir`.
    pub fn set_uploads_dir(&mut self, dir: &std::path::Path) {
        for v in &mut self.repro_variables {
            if v.name == UPLOADS_VAR {
                v.source = format!(
                    "{}: the files uploaded by the repros, written by this run",
                    dir.display()
                );
            }
        }
    }
}

fn scratch_key_source(target: &str, key: Option<WorkKeySource>) -> String {
    let base = target.trim_end_matches('/');
    match key {
        Some(WorkKeySource::Mock(id)) => format!(
            "the secret of key {id}, made for this run through the mock's control API: \
             `curl -sS {base}/__mock/keys` lists it (its `key`, with `sk-` in front) while that \
             mock runs (the embedded mock of a `check` without --base-url stops with the run: \
             `gatecheck serve` keeps one)"
        ),
        Some(WorkKeySource::Created(id)) => format!(
            "the secret of scratch key {id}, which this run made with POST /api/token/ and \
             deleted at its end: make a key the same way (or give --key-id) and export its secret"
        ),
        Some(WorkKeySource::Named(id)) => format!(
            "the secret of your key {id} (--key-id): `POST /api/token/{id}/key` with your access \
             token returns it (new-api answers `data.key`; put `sk-` in front)"
        ),
        None => "the secret of the run's working key (none was set up)".into(),
    }
}
