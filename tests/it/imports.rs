//! The module graph: imports point down the pipeline, so no two files of `src/` import each
//! other (`use crate::…`, `use super::…` or a `crate::…` path in code; test modules aside).
//! A parent module reaching its own children through its `mod` lines is the tree, not an
//! import, and is not counted.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type Module = Vec<String>;

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `src/watch/set.rs` is `watch::set`, `src/run/mod.rs` is `run`, `src/lib.rs` the root.
fn module_of(src: &Path, file: &Path) -> Module {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Module = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// The code of a file without its comments and its `#[cfg(test)] mod tests`.
fn code(text: &str) -> String {
    let text = text.split("#[cfg(test)]\nmod tests").next().unwrap_or(text);
    text.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The modules a file's code names through `crate::` or `super::` paths.
fn imports(module: &Module, text: &str, known: &BTreeSet<Module>) -> BTreeSet<Module> {
    let paths = regex::Regex::new(r"\b(crate|super)((?:::(?:\w+|\{))*)").unwrap();
    let mut out = BTreeSet::new();
    for m in paths.captures_iter(&code(text)) {
        let mut segments: Vec<&str> = m[2].split("::").skip(1).take_while(|s| *s != "{").collect();
        let mut base: Module = if &m[1] == "crate" {
            Vec::new()
        } else {
            module[..module.len().saturating_sub(1)].to_vec()
        };
        while segments.first() == Some(&"super") {
            base.pop();
            segments.remove(0);
        }
        base.extend(segments.iter().map(|s| (*s).to_string()));
        // The longest prefix that is a file: `crate::input::Table` is `input`.
        while !base.is_empty() && !known.contains(&base) {
            base.pop();
        }
        if &base != module && known.contains(&base) {
            out.insert(base);
        }
    }
    out
}

#[test]
fn no_two_modules_import_each_other() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut all = Vec::new();
    files(&src, &mut all);
    let all: Vec<PathBuf> = all
        .into_iter()
        .filter(|f| !f.starts_with(src.join("bin")) && !f.ends_with("main.rs"))
        .collect();
    let known: BTreeSet<Module> = all.iter().map(|f| module_of(&src, f)).collect();
    let mut graph: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for file in &all {
        let module = module_of(&src, file);
        let text = std::fs::read_to_string(file).unwrap();
        graph.insert(module.clone(), imports(&module, &text, &known));
    }
    let name = |m: &Module| {
        if m.is_empty() {
            "crate".to_string()
        } else {
            m.join("::")
        }
    };
    let mut cycles = Vec::new();
    for (a, uses) in &graph {
        for b in uses {
            if a < b && graph.get(b).is_some_and(|u| u.contains(a)) {
                cycles.push(format!("{} <-> {}", name(a), name(b)));
            }
        }
    }
    assert!(known.len() > 40, "found only {} modules", known.len());
    assert!(
        graph[&vec!["watch".to_string(), "set".to_string()]].contains(&vec!["watch".to_string()]),
        "the scan sees `use super::{{…}}`"
    );
    assert!(
        cycles.is_empty(),
        "modules that import each other: {cycles:?}"
    );
}
