//! The workspace's shape, read from its sources: no import circle between the files of a
//! crate, and no function over [`MAX_FN_LINES`] lines.
//!
//! The import graph is built from the text of every `crates/*/src/**/*.rs`: the `mod`
//! declarations give each file its module path, and an arrow runs from a file to the file of
//! every module it names through `use` (trees expanded), `crate::…`, `super::…`, `self::…`, or a
//! path that starts with one of its own child modules; a name a module re-exports
//! (`pub use`) leads on to the file that defines it. Comments, string literals and inline
//! `mod name { … }` blocks (test modules) are left out. A `mod` declaration alone is no arrow,
//! and neither is a file's use of a module it lies inside (`super::…` from a child to its
//! parent: Rust makes the two one unit, the child sees the parent's private items), as in
//! `farm-studio look`.

use super::source_text::lex;
use super::support::repo_root;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The longest function allowed in `crates/*/src`, in lines from `fn` to its closing brace.
const MAX_FN_LINES: usize = 100;

/// The workspace root.
/// One source file: its path from the root, its crate's `src`, its module path, its lexed text.
struct Source {
    path: String,
    krate: String,
    module: Vec<String>,
    text: String,
}

/// Every `crates/*/src/**/*.rs`, lexed.
fn sources() -> Vec<Source> {
    let mut out = Vec::new();
    let crates = repo_root().join("crates");
    for entry in std::fs::read_dir(&crates).expect("crates/") {
        let src = entry.expect("crates/ entry").path().join("src");
        if src.is_dir() {
            collect(&src, &src, &mut out);
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// Adds the `.rs` files under `dir` (of the crate whose `src` is `src`) to `out`.
fn collect(src: &Path, dir: &Path, out: &mut Vec<Source>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("source folder")
        .map(|e| e.expect("entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            collect(src, &path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let raw = std::fs::read_to_string(&path).expect("read source");
            let rel = path.strip_prefix(src).expect("under src");
            let root = repo_root().canonicalize().expect("root");
            let full = path.canonicalize().expect("file");
            out.push(Source {
                path: full
                    .strip_prefix(&root)
                    .expect("in root")
                    .display()
                    .to_string(),
                krate: src.display().to_string(),
                module: module_of(rel),
                text: lex(&raw),
            });
        }
    }
}

/// The module path of a file from its path under `src` (`a/mod.rs` and `a.rs` are `a`).
fn module_of(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_owned())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// `text` without its inline `mod name { … }` blocks (blanked, lines kept).
fn without_inline_mods(text: &str) -> String {
    let mut out: Vec<char> = text.chars().collect();
    let mut i = 0;
    while let Some(at) = find_word(&out, "mod", i) {
        let mut k = at + 3;
        while k < out.len() && (out[k].is_alphanumeric() || out[k] == '_' || out[k] == ' ') {
            k += 1;
        }
        if out.get(k) == Some(&'{') {
            let end = matching_brace(&out, k).unwrap_or(out.len() - 1);
            for ch in &mut out[at..=end] {
                if *ch != '\n' {
                    *ch = ' ';
                }
            }
            i = end;
        } else {
            i = k;
        }
    }
    out.into_iter().collect()
}

/// The index of the word `word` (not part of a longer identifier) at or after `from`.
fn find_word(c: &[char], word: &str, from: usize) -> Option<usize> {
    let w: Vec<char> = word.chars().collect();
    let ident = |x: char| x.is_alphanumeric() || x == '_';
    (from..c.len().saturating_sub(w.len() - 1)).find(|&k| {
        c[k..k + w.len()] == w[..]
            && (k == 0 || !ident(c[k - 1]))
            && !c.get(k + w.len()).copied().is_some_and(ident)
    })
}

/// The index of the `}` that closes the `{` at `open`.
fn matching_brace(c: &[char], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (k, &ch) in c.iter().enumerate().skip(open) {
        match ch {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
    }
    None
}

/// Every path the code names: `use` trees expanded, and `a::b::c` runs elsewhere.
fn named_paths(text: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("use ") {
        let before_ok = rest[..at]
            .chars()
            .last()
            .is_none_or(|ch| !(ch.is_alphanumeric() || ch == '_'));
        let tail = &rest[at + 4..];
        let end = tail.find(';').unwrap_or(tail.len());
        if before_ok {
            expand_use(&tail[..end], &[], &mut out);
        }
        rest = &tail[end..];
    }
    let chars: Vec<char> = text.chars().collect();
    let ident = |x: char| x.is_alphanumeric() || x == '_';
    let mut k = 0;
    while k < chars.len() {
        if ident(chars[k]) && (k == 0 || !(ident(chars[k - 1]) || chars[k - 1] == ':')) {
            let start = k;
            while k < chars.len() && (ident(chars[k]) || chars[k] == ':') {
                k += 1;
            }
            let run: String = chars[start..k].iter().collect();
            if run.contains("::") {
                out.push(
                    run.split("::")
                        .filter(|s| !s.is_empty())
                        .map(str::to_owned)
                        .collect(),
                );
            }
        } else {
            k += 1;
        }
    }
    out
}

/// Expands the use tree `tree` (after `prefix`) into full paths.
fn expand_use(tree: &str, prefix: &[String], out: &mut Vec<Vec<String>>) {
    let tree = tree.trim();
    let (head, inner) = match tree.find('{') {
        Some(open) => (
            &tree[..open],
            Some(&tree[open + 1..tree.rfind('}').unwrap_or(tree.len())]),
        ),
        None => (tree, None),
    };
    let mut path = prefix.to_vec();
    for seg in head.split("::").map(str::trim) {
        let seg = seg.split_whitespace().next().unwrap_or("");
        if !seg.is_empty() && seg != "*" && seg != "self" {
            path.push(seg.to_owned());
        }
    }
    match inner {
        None => out.push(path),
        Some(inner) => {
            for item in split_top(inner) {
                expand_use(item, &path, out);
            }
        }
    }
}

/// `s` split at the commas outside braces.
fn split_top(s: &str) -> Vec<&str> {
    let (mut parts, mut depth, mut start) = (Vec::new(), 0i32, 0);
    for (k, ch) in s.char_indices() {
        match ch {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&s[start..k]);
                start = k + 1;
            }
            _ => {}
        }
    }
    parts.push(&s[start..]);
    parts.into_iter().filter(|p| !p.trim().is_empty()).collect()
}

/// The modules of one crate: each module's file, and the names each file re-exports
/// (`pub use a::b::Name`: `Name` → `a::b::Name`, relative to that file).
struct Crate {
    files: BTreeMap<Vec<String>, String>,
    reexports: BTreeMap<String, BTreeMap<String, Vec<String>>>,
    modules: BTreeMap<String, Vec<String>>,
}

/// The `pub use` paths of `text` (outside inline modules), by the name they give.
fn reexports(text: &str) -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    let mut rest = text;
    while let Some(at) = rest.find("pub") {
        let tail = &rest[at + 3..];
        let after_vis = tail.trim_start_matches(|c: char| c != 'u' && c != ';' && c != '{');
        let (stmt, next) = match tail.find(';') {
            Some(end) => (&tail[..end], &tail[end..]),
            None => (tail, ""),
        };
        if after_vis.starts_with("use ") && stmt.len() >= tail.len() - after_vis.len() + 4 {
            let mut paths = Vec::new();
            expand_use(&stmt[tail.len() - after_vis.len() + 4..], &[], &mut paths);
            for p in paths {
                if let Some(name) = p.last() {
                    out.insert(name.clone(), p);
                }
            }
        }
        rest = next;
    }
    out
}

/// The file a path from module `from` reaches: the deepest module it names (through a
/// module's re-exports, for a name it hands on), or `None`.
fn resolve<'a>(
    krate: &'a Crate,
    from: &[String],
    path: &[String],
    depth: u8,
) -> Option<&'a String> {
    let first = path.first()?.as_str();
    let (mut base, rest): (Vec<String>, &[String]) = match first {
        "crate" => (Vec::new(), &path[1..]),
        "self" => (from.to_vec(), &path[1..]),
        "super" => {
            let ups = path.iter().take_while(|s| *s == "super").count();
            let keep = from.len().checked_sub(ups)?;
            (from[..keep].to_vec(), &path[ups..])
        }
        _ => {
            let mut child = from.to_vec();
            child.push(first.to_owned());
            if !krate.files.contains_key(&child) {
                return None;
            }
            (from.to_vec(), path)
        }
    };
    let mut used = 0;
    for seg in rest {
        base.push(seg.clone());
        if !krate.files.contains_key(&base) {
            base.pop();
            break;
        }
        used += 1;
    }
    let file = krate.files.get(&base)?;
    let handed_on = rest
        .get(used)
        .and_then(|name| krate.reexports.get(file)?.get(name));
    match handed_on {
        Some(inner) if depth < 8 => {
            resolve(krate, &krate.modules[file], inner, depth + 1).or(Some(file))
        }
        _ => Some(file),
    }
}

/// The file-level import graph: each file and the files it imports.
fn import_graph(sources: &[Source]) -> BTreeMap<String, BTreeSet<String>> {
    let mut crates: BTreeMap<&str, Crate> = BTreeMap::new();
    for s in sources {
        let krate = crates.entry(&s.krate).or_insert_with(|| Crate {
            files: BTreeMap::new(),
            reexports: BTreeMap::new(),
            modules: BTreeMap::new(),
        });
        krate.files.insert(s.module.clone(), s.path.clone());
        krate.modules.insert(s.path.clone(), s.module.clone());
        let text = without_inline_mods(&s.text);
        krate.reexports.insert(s.path.clone(), reexports(&text));
    }
    let mut graph = BTreeMap::new();
    for s in sources {
        let krate = &crates[s.krate.as_str()];
        let edges: BTreeSet<String> = named_paths(&without_inline_mods(&s.text))
            .iter()
            .filter_map(|p| resolve(krate, &s.module, p, 0))
            .filter(|target| !s.module.starts_with(&krate.modules[*target]))
            .cloned()
            .collect();
        graph.insert(s.path.clone(), edges);
    }
    graph
}

/// The strongly connected components of more than one file (Tarjan's algorithm).
fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct State<'g> {
        graph: &'g BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on_stack: BTreeSet<&'g str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'g>(st: &mut State<'g>, v: &'g str) {
        let n = st.index.len();
        st.index.insert(v, n);
        st.low.insert(v, n);
        st.stack.push(v);
        st.on_stack.insert(v);
        for w in st.graph.get(v).into_iter().flatten() {
            if !st.index.contains_key(w.as_str()) {
                visit(st, w);
                let lw = st.low[w.as_str()];
                let lv = st.low.get_mut(v).expect("visited");
                *lv = (*lv).min(lw);
            } else if st.on_stack.contains(w.as_str()) {
                let iw = st.index[w.as_str()];
                let lv = st.low.get_mut(v).expect("visited");
                *lv = (*lv).min(iw);
            }
        }
        if st.low[v] == st.index[v] {
            let mut scc = Vec::new();
            while let Some(w) = st.stack.pop() {
                st.on_stack.remove(w);
                scc.push(w.to_owned());
                if w == v {
                    break;
                }
            }
            if scc.len() > 1 {
                scc.sort();
                st.out.push(scc);
            }
        }
    }
    let mut st = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !st.index.contains_key(v.as_str()) {
            visit(&mut st, v);
        }
    }
    st.out
}

/// The arrows inside one circle, `a -> b`, for the failure message.
fn circle_arrows(graph: &BTreeMap<String, BTreeSet<String>>, circle: &[String]) -> String {
    let mut lines = Vec::new();
    for a in circle {
        for b in graph[a].iter().filter(|b| circle.contains(b)) {
            lines.push(format!("    {a} -> {b}"));
        }
    }
    lines.join("\n")
}

#[test]
fn no_import_circle_between_the_files_of_a_crate() {
    let sources = sources();
    assert!(sources.len() > 100, "read {} files", sources.len());
    let graph = import_graph(&sources);
    let problems: Vec<String> = circles(&graph)
        .iter()
        .map(|circle| {
            format!(
                "an import circle of {} files:\n{}",
                circle.len(),
                circle_arrows(&graph, circle)
            )
        })
        .collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Every function of `text` as `(name, first line, lines)`.
fn functions(text: &str) -> Vec<(String, usize, usize)> {
    let c: Vec<char> = text.chars().collect();
    let line_at = |k: usize| c[..k].iter().filter(|&&x| x == '\n').count() + 1;
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = find_word(&c, "fn", from) {
        from = at + 2;
        let name: String = c[from..]
            .iter()
            .skip_while(|x| x.is_whitespace())
            .take_while(|x| x.is_alphanumeric() || **x == '_')
            .collect();
        if name.is_empty() {
            continue; // a `fn(..)` type
        }
        let Some(open) = c[from..].iter().position(|&x| x == '{' || x == ';') else {
            break;
        };
        if c[from + open] == ';' {
            continue; // a declaration without a body
        }
        let Some(close) = matching_brace(&c, from + open) else {
            break;
        };
        out.push((name, line_at(at), line_at(close) - line_at(at) + 1));
    }
    out
}

#[test]
fn no_function_in_src_is_over_the_line_limit() {
    let mut problems = Vec::new();
    for s in sources() {
        for (name, line, lines) in functions(&s.text) {
            if lines > MAX_FN_LINES {
                problems.push(format!(
                    "{}:{line}: fn {name} is {lines} lines (at most {MAX_FN_LINES}): split it into named steps",
                    s.path
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The most floors the mock may stand, counted as `farm-studio look` counts them on
/// `crates/gatecheck-mock/src`: each file at the top of `src/` is a room, each folder one room
/// (its files together); a room stands one floor above every room it imports, a room that
/// imports no other on floor 1.
const MAX_MOCK_FLOORS: usize = 10;

/// The most `.rs` files at the top of the mock's `src/`: the rest stand in folders
/// named for their concern.
const MAX_MOCK_TOP_FILES: usize = 15;

/// The room of a file under `src`: itself at the top, else its top folder.
fn room_of(path: &str, src: &str) -> String {
    let rel = path.strip_prefix(src).unwrap_or(path);
    match rel.split_once('/') {
        Some((folder, _)) => format!("{src}{folder}/"),
        None => path.to_owned(),
    }
}

/// The graph of `graph`'s files gathered into the rooms of `src`.
fn rooms(
    graph: &BTreeMap<String, BTreeSet<String>>,
    src: &str,
) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (file, imports) in graph {
        let room = room_of(file, src);
        let entry = out.entry(room.clone()).or_default();
        entry.extend(
            imports
                .iter()
                .map(|i| room_of(i, src))
                .filter(|r| *r != room),
        );
    }
    out
}

/// The floor of every room of `graph` (which has no circle), and the room below each one on its
/// longest chain down.
fn floors(graph: &BTreeMap<String, BTreeSet<String>>) -> BTreeMap<String, (usize, Option<String>)> {
    fn floor_of(
        graph: &BTreeMap<String, BTreeSet<String>>,
        room: &str,
        memo: &mut BTreeMap<String, (usize, Option<String>)>,
    ) -> usize {
        if let Some((floor, _)) = memo.get(room) {
            return *floor;
        }
        let mut best = (1, None);
        for below in graph.get(room).into_iter().flatten() {
            let f = floor_of(graph, below, memo) + 1;
            if f > best.0 {
                best = (f, Some(below.clone()));
            }
        }
        let floor = best.0;
        memo.insert(room.to_owned(), best);
        floor
    }
    let mut memo = BTreeMap::new();
    for room in graph.keys() {
        floor_of(graph, room, &mut memo);
    }
    memo
}

/// The rooms of the crate under `src` (more than 40 files read), asserting that none imports
/// another that imports it back; `what` names the crate in the messages.
fn rooms_without_a_circle(src: &str, what: &str) -> BTreeMap<String, BTreeSet<String>> {
    let sources: Vec<Source> = sources()
        .into_iter()
        .filter(|s| s.path.starts_with(src))
        .collect();
    assert!(
        sources.len() > 40,
        "read {} files of the {what}",
        sources.len()
    );
    let graph = rooms(&import_graph(&sources), src);
    let found = circles(&graph);
    assert!(
        found.is_empty(),
        "rooms of the {what} import each other in a circle:\n{}",
        found
            .iter()
            .map(|c| circle_arrows(&graph, c))
            .collect::<Vec<_>>()
            .join("\n")
    );
    graph
}

#[test]
fn the_mock_stands_at_most_ten_floors_without_a_circle_between_its_rooms() {
    let graph = rooms_without_a_circle("crates/gatecheck-mock/src/", "mock");
    let floors = floors(&graph);
    let (top, (height, _)) = floors
        .iter()
        .max_by_key(|(room, (floor, _))| (*floor, std::cmp::Reverse((*room).clone())))
        .expect("rooms");
    let mut chain = vec![top.clone()];
    while let Some((_, Some(below))) = floors.get(chain.last().expect("chain")) {
        chain.push(below.clone());
    }
    assert!(
        *height <= MAX_MOCK_FLOORS,
        "the mock stands {height} floors (at most {MAX_MOCK_FLOORS}); its longest chain:\n    {}",
        chain.join("\n -> ")
    );
}

#[test]
fn the_top_of_the_mock_src_holds_at_most_fifteen_files() {
    let src = repo_root().join("crates/gatecheck-mock/src");
    let mut top: Vec<String> = std::fs::read_dir(&src)
        .expect("the mock's src/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .map(|p| p.file_name().expect("name").to_string_lossy().into_owned())
        .collect();
    top.sort();
    assert!(
        top.len() <= MAX_MOCK_TOP_FILES,
        "{} files at the top of crates/gatecheck-mock/src (at most {MAX_MOCK_TOP_FILES}): {}",
        top.len(),
        top.join(", ")
    );
}

/// The runner's files that may name the mock: the embedded target alone.
const RUNNER_MOCK_USERS: &[&str] = &[
    "crates/gatecheck-conformance/src/sequence/embedded.rs",
    "crates/gatecheck-conformance/src/sequence/target.rs",
];

/// The CLI's files that may reach into the mock's unstable `internals`: the commands that run
/// the mock itself (`serve`'s defaults; the bench, `src/bench/`, uses the public API alone).
const CLI_INTERNALS_USERS: &[&str] = &["crates/gatecheck/src/cmd/serve.rs"];

#[test]
fn the_runner_names_the_mock_only_to_embed_it() {
    let mut problems = Vec::new();
    let sources = sources();
    for s in &sources {
        let names_mock = s.text.contains("gatecheck_mock");
        let internals = s.text.contains("gatecheck_mock::internals");
        if s.krate.contains("gatecheck-conformance")
            && names_mock
            && !RUNNER_MOCK_USERS.contains(&s.path.as_str())
        {
            problems.push(format!(
                "{} names gatecheck_mock outside the embedded target",
                s.path
            ));
        }
        let cli = s.path.starts_with("crates/gatecheck/src/");
        if internals && !(cli && CLI_INTERNALS_USERS.contains(&s.path.as_str())) {
            problems.push(format!("{} uses gatecheck_mock::internals", s.path));
        }
    }
    // A listed file that no longer needs its exemption fails too.
    for (list, name, word) in [
        (RUNNER_MOCK_USERS, "RUNNER_MOCK_USERS", "gatecheck_mock"),
        (
            CLI_INTERNALS_USERS,
            "CLI_INTERNALS_USERS",
            "gatecheck_mock::internals",
        ),
    ] {
        for listed in list {
            if !sources
                .iter()
                .any(|s| s.path == *listed && s.text.contains(word))
            {
                problems.push(format!(
                    "{listed} no longer names {word}: remove it from {name}"
                ));
            }
        }
    }
    let manifest =
        std::fs::read_to_string(repo_root().join("crates/gatecheck-conformance/Cargo.toml"))
            .expect("the runner's Cargo.toml");
    let dep = manifest
        .lines()
        .find(|l| l.starts_with("gatecheck-mock"))
        .unwrap_or("");
    if !dep.contains("optional = true") {
        problems.push(format!(
            "the runner's gatecheck-mock dependency is not optional: {dep:?}"
        ));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The runner's rooms, as `farm-studio look` draws them on
/// `crates/gatecheck-conformance/src`: each folder one room, each top file one; none imports
/// another that imports it back, so its folders stand in one direction (`run/` over
/// `checks/` and `report/`, all three over the vocabulary in `vocab/`).
#[test]
fn the_runners_folders_import_one_way() {
    rooms_without_a_circle("crates/gatecheck-conformance/src/", "runner");
}

/// The crates' floors, bottom first (docs/ARCHITECTURE.md): each depends only on crates of
/// the floors below it, so the codecs know no contract and the contract knows no server.
const CRATE_FLOORS: &[&str] = &[
    "gatecheck-codecs",
    "gatecheck-schemas",
    "gatecheck-recording",
    "gatecheck-mock",
    "gatecheck-conformance",
    "gatecheck",
];

/// The gatecheck crates `manifest` names under `[dependencies]` (dev-dependencies left out).
fn gatecheck_dependencies(manifest: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_deps = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_deps = line == "[dependencies]";
        } else if in_deps && line.starts_with("gatecheck") {
            let name = line.split(['=', '.', ' ']).next().unwrap_or("");
            out.push(name.to_owned());
        }
    }
    out
}

#[test]
fn each_crate_depends_only_on_the_floors_below_it() {
    let mut problems = Vec::new();
    let mut on_disk: Vec<String> = std::fs::read_dir(repo_root().join("crates"))
        .expect("crates/")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|name| {
            repo_root()
                .join("crates")
                .join(name)
                .join("Cargo.toml")
                .is_file()
        })
        .collect();
    on_disk.sort();
    let mut listed: Vec<String> = CRATE_FLOORS.iter().map(|s| (*s).to_owned()).collect();
    listed.sort();
    assert_eq!(on_disk, listed, "CRATE_FLOORS lists every crate of crates/");
    for (floor, krate) in CRATE_FLOORS.iter().enumerate() {
        let path = repo_root().join("crates").join(krate).join("Cargo.toml");
        let manifest = std::fs::read_to_string(&path).expect("a crate's Cargo.toml");
        for dep in gatecheck_dependencies(&manifest) {
            match CRATE_FLOORS.iter().position(|c| *c == dep) {
                Some(below) if below < floor => {}
                _ => problems.push(format!("{krate} depends on {dep}, not a floor below it")),
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
