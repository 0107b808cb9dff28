//! No module of `env/src` imports one that imports it back: the modules form layers (described in
//! `lib.rs`), vocabulary types at the bottom. Read from the source: every `crate::module` a file
//! names, in code or in a doc link, is an edge; the test fails with the cycle it finds.

use std::collections::BTreeMap;
use std::path::Path;

/// Each module of `env/src` and the modules of the crate it names.
fn module_graph() -> BTreeMap<String, Vec<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut text = BTreeMap::new();
    for entry in std::fs::read_dir(&src).expect("env/src is readable") {
        let path = entry.expect("a directory entry").path();
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .map(str::to_string);
        if let Some(name) = name.filter(|n| n != "lib") {
            text.insert(name, std::fs::read_to_string(&path).expect("a source file"));
        }
    }
    let modules: Vec<String> = text.keys().cloned().collect();
    text.iter()
        .map(|(name, source)| {
            let mut uses: Vec<String> = source
                .split("crate::")
                .skip(1)
                .map(|rest| {
                    rest.chars()
                        .take_while(|c| c.is_ascii_lowercase() || *c == '_')
                        .collect::<String>()
                })
                .filter(|m| m != name && modules.contains(m))
                .collect();
            uses.sort();
            uses.dedup();
            (name.clone(), uses)
        })
        .collect()
}

/// A cycle through `at`, as the modules along it, if the graph has one reachable from there.
fn find_cycle(
    graph: &BTreeMap<String, Vec<String>>,
    at: &str,
    path: &mut Vec<String>,
    done: &mut Vec<String>,
) -> Option<Vec<String>> {
    if let Some(i) = path.iter().position(|m| m == at) {
        let mut cycle = path[i..].to_vec();
        cycle.push(at.to_string());
        return Some(cycle);
    }
    if done.iter().any(|m| m == at) {
        return None;
    }
    path.push(at.to_string());
    for next in &graph[at] {
        if let Some(cycle) = find_cycle(graph, next, path, done) {
            return Some(cycle);
        }
    }
    path.pop();
    done.push(at.to_string());
    None
}

#[test]
fn no_module_imports_one_that_imports_it_back() {
    let graph = module_graph();
    assert!(graph.len() > 10, "the modules of env/src: {graph:?}");
    let mut done = Vec::new();
    for module in graph.keys() {
        if let Some(cycle) = find_cycle(&graph, module, &mut Vec::new(), &mut done) {
            panic!("module cycle: {}", cycle.join(" -> "));
        }
    }
}

#[test]
fn the_vocabulary_imports_nothing_of_the_crate() {
    let graph = module_graph();
    for leaf in ["player", "board", "switches", "pool"] {
        assert_eq!(graph[leaf], Vec::<String>::new(), "{leaf} imports");
    }
}

#[test]
fn a_cycle_is_found_where_there_is_one() {
    let graph: BTreeMap<String, Vec<String>> = [
        ("error", vec!["rules"]),
        ("rules", vec!["state"]),
        ("state", vec!["error"]),
    ]
    .into_iter()
    .map(|(m, uses)| (m.to_string(), uses.into_iter().map(String::from).collect()))
    .collect();
    let cycle = find_cycle(&graph, "error", &mut Vec::new(), &mut Vec::new());
    assert_eq!(
        cycle.map(|c| c.join(" -> ")).as_deref(),
        Some("error -> rules -> state -> error")
    );
}
