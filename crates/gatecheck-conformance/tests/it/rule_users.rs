//! One rule set, two consumers: every rule of `gatecheck-schemas::rules` (each top-level
//! `pub fn`, `pub const` and `pub enum` of `crates/gatecheck-schemas/src/rules/`) is used by the
//! mock (`crates/gatecheck-mock/src`) and by the runner (`crates/gatecheck-conformance/src`),
//! or [`ONE_SIDED`] says why a side goes without it.
//!
//! "Used" is read from the source: a side uses a rule when its code names it, or names another
//! rule whose body (in `rules/`) names it (`apply_update` reaches `check_request`, an enum's
//! `impl` reaches the constants its methods return). Comments and `#[cfg(test)]` code do not
//! count. The table cannot go stale: a row whose side does use the rule fails the test, and so
//! does a row for a rule that no longer exists.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

mod one_sided;
use one_sided::{Lacks, ONE_SIDED, VALIDATOR};

fn crates_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// A file's code without comments and without its `#[cfg(test)]` tail.
fn code(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let text = text.split("#[cfg(test)]").next().unwrap_or_default();
    text.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn code_of(dir: &Path) -> String {
    let mut files = Vec::new();
    rust_files(dir, &mut files);
    files.iter().map(|f| code(f)).collect::<Vec<_>>().join("\n")
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Whether `text` names `word` as a whole identifier.
pub(crate) fn names(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + word.len()..].chars().next();
        !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
    })
}

/// The item a top-level line declares: `pub fn x`, `pub const X`, `pub enum X` (a rule), or
/// `impl X` / `impl T for X` (whose body belongs to the rule `X`).
fn declares(line: &str) -> Option<(String, bool)> {
    let ident = |s: &str| s.chars().take_while(|c| is_ident(*c)).collect::<String>();
    for prefix in ["pub fn ", "pub const ", "pub enum "] {
        if let Some(rest) = line.strip_prefix(prefix) {
            return Some((ident(rest), true));
        }
    }
    let rest = line.strip_prefix("impl ")?;
    let target = rest.split(" for ").last().unwrap_or(rest);
    Some((ident(target.trim_start()), false))
}

/// Every rule and the code that belongs to it (its body and its enum's `impl` blocks).
fn rules() -> BTreeMap<String, String> {
    let mut files = Vec::new();
    rust_files(
        &crates_dir().join("gatecheck-schemas/src/rules"),
        &mut files,
    );
    let mut rules: BTreeMap<String, String> = BTreeMap::new();
    let mut bodies: Vec<(String, String)> = Vec::new();
    for f in files {
        let mut current: Option<String> = None;
        for line in code(&f).lines() {
            let top = !line.starts_with(char::is_whitespace) && !line.is_empty();
            if top && !line.starts_with('}') && !line.starts_with(')') && !line.starts_with(']') {
                current = None;
                if let Some((name, is_rule)) = declares(line) {
                    if is_rule {
                        rules.entry(name.clone()).or_default();
                    }
                    current = Some(name);
                }
            }
            if let Some(name) = &current {
                bodies.push((name.clone(), line.to_owned()));
            }
        }
    }
    for (name, line) in bodies {
        if let Some(body) = rules.get_mut(&name) {
            body.push_str(&line);
            body.push('\n');
        }
    }
    // `registry!` (rules/platforms/mod.rs) expands to the list of every description's
    // `PLATFORM`, which `all()` reads: a side that names `all` reaches the descriptions.
    if let Some(all) = rules.get_mut("all") {
        all.push_str("REGISTERED PLATFORM\n");
    }
    rules
}

/// The rules a side uses: those its code names, and those their bodies reach.
fn used_by(side: &str, rules: &BTreeMap<String, String>) -> BTreeSet<String> {
    let mut used: BTreeSet<String> = rules.keys().filter(|r| names(side, r)).cloned().collect();
    loop {
        let reached: Vec<String> = rules
            .keys()
            .filter(|r| !used.contains(*r))
            .filter(|r| used.iter().any(|u| names(&rules[u], r)))
            .cloned()
            .collect();
        if reached.is_empty() {
            return used;
        }
        used.extend(reached);
    }
}

/// Every rule, with whether the mock and the runner use it.
pub(crate) struct Users {
    /// Every rule and the code that belongs to it.
    pub(crate) rules: BTreeMap<String, String>,
    /// The rules the mock uses.
    pub(crate) mock: BTreeSet<String>,
    /// The rules the runner uses.
    pub(crate) runner: BTreeSet<String>,
}

/// Scans the rule set and both consumers.
pub(crate) fn users() -> Users {
    let rules = rules();
    let mock = used_by(&code_of(&crates_dir().join("gatecheck-mock/src")), &rules);
    let runner = used_by(
        &code_of(&crates_dir().join("gatecheck-conformance/src")),
        &rules,
    );
    Users {
        rules,
        mock,
        runner,
    }
}

/// The shared contract rules: those the mock and the runner both use, with no `ONE_SIDED` row.
pub(crate) fn shared_rules() -> BTreeSet<String> {
    let u = users();
    u.rules
        .keys()
        .filter(|r| u.mock.contains(*r) && u.runner.contains(*r))
        .filter(|r| !ONE_SIDED.iter().any(|(n, _, _)| n == r))
        .cloned()
        .collect()
}

#[test]
fn every_rule_is_used_by_the_mock_and_the_runner_or_says_why_not() {
    let Users {
        rules,
        mock,
        runner,
    } = users();
    assert!(
        rules.len() > 50 && rules.contains_key("apply_update") && rules.contains_key("Rejection"),
        "the rule scan found {} rules",
        rules.len()
    );
    let excused = |name: &str| ONE_SIDED.iter().find(|(n, _, _)| *n == name);
    let mut problems = Vec::new();
    let (mut both, mut one_sided) = (0, 0);
    for name in rules.keys() {
        let (m, r) = (mock.contains(name), runner.contains(name));
        match (excused(name), m, r) {
            (None, true, true) => both += 1,
            (None, _, _) => problems.push(format!(
                "{name}: used by the mock: {m}, by the runner: {r}; use it on both sides or add \
                 a row to ONE_SIDED saying why not"
            )),
            (Some((_, lacks, why)), _, _) => {
                one_sided += 1;
                let (lacks_mock, lacks_runner) = match lacks {
                    Lacks::Mock => (true, false),
                    Lacks::Runner => (false, true),
                    Lacks::Both => (true, true),
                };
                if why.is_empty() || (lacks_mock && m) || (lacks_runner && r) {
                    problems.push(format!(
                        "{name}: ONE_SIDED says it lacks {lacks:?}, but the mock uses it: {m}, \
                         the runner: {r}"
                    ));
                }
                if (!lacks_mock && !m) || (!lacks_runner && !r) {
                    problems.push(format!(
                        "{name}: ONE_SIDED says only {lacks:?} lacks it, but the mock uses it: \
                         {m}, the runner: {r}"
                    ));
                }
            }
        }
    }
    for (name, _, _) in ONE_SIDED {
        if !rules.contains_key(*name) {
            problems.push(format!("{name}: in ONE_SIDED but not a rule"));
        }
    }
    println!(
        "rules: {} in all; {both} used by the mock and the runner, {one_sided} one-sided with a \
         reason",
        rules.len()
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_validators_excused_on_the_mock_side_judge_the_mock_in_its_tests() {
    let tests = code_of(&crates_dir().join("gatecheck-mock/tests"));
    let src_tests: String = {
        let mut files = Vec::new();
        rust_files(&crates_dir().join("gatecheck-mock/src"), &mut files);
        files
            .iter()
            .map(|f| std::fs::read_to_string(f).unwrap_or_default())
            .collect()
    };
    for (name, lacks, why) in ONE_SIDED {
        if *why == VALIDATOR && *lacks == Lacks::Mock && name.starts_with("parse_") {
            assert!(
                names(&tests, name) || names(&src_tests, name),
                "{name} is excused as a validator of the mock's answers, but no mock test uses it"
            );
        }
    }
}
