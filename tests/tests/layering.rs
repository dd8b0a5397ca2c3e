//! The house has no import loop (issue 26): in each library crate, the
//! graph of its top-level modules, with an edge wherever one module names
//! another (`use crate::a::b`, a `crate::a::` or `$crate::a::` path in code,
//! a `super::` path resolved, a grouped `use crate::{a, b::c}`), has no
//! cycle.
//!
//! A folder module and its files are one node (`reduce` is `reduce/mod.rs`
//! and `reduce/*.rs`, `chunk` is `chunk.rs` and `chunk/*.rs`), so a file
//! using its own parent (`super::Reducer` in `reduce/tools.rs`) is no loop.
//! Test code is left out: files named `tests.rs` and the items under
//! `#[cfg(test)]`. Comments and string literals are left out too, so a doc
//! link is not an import. The crate root (`lib.rs`) declares every module
//! and is no node; a path through one of its re-exports (`crate::Config`)
//! counts as a path to the module it re-exports from.
//!
//! Run with `--nocapture` to see each crate's graph.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fs;
use std::path::Path;

/// The library crates: the name a report uses, and the source folder from
/// the workspace root.
const CRATES: [(&str, &str); 3] = [
    ("core", "core/src"),
    ("alloc", "alloc-ext/src"),
    ("kiosk", "kiosk/src"),
];

/// One library source file: its path under the crate's `src` and its text.
struct Source {
    path: String,
    text: String,
}

/// The edges between top-level modules: from, to, and the first place
/// (`file:line`) that makes the edge.
type Graph = BTreeMap<String, BTreeMap<String, String>>;

#[test]
fn core_has_no_import_loop() {
    no_import_loop(0);
}

#[test]
fn alloc_has_no_import_loop() {
    no_import_loop(1);
}

#[test]
fn kiosk_has_no_import_loop() {
    no_import_loop(2);
}

/// Prints the graph of `CRATES[which]` and fails with every loop spelled
/// out, each edge with the place that makes it.
fn no_import_loop(which: usize) {
    let (name, dir) = CRATES[which];
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let sources = read_sources(&root.join(dir));
    assert!(sources.len() > 3, "{name}: no sources found in {dir}");
    let graph = module_graph(&sources);
    println!("{name}:");
    for (from, tos) in &graph {
        let tos: Vec<&str> = tos.keys().map(String::as_str).collect();
        println!("  {from} -> {}", tos.join(", "));
    }
    let loops: Vec<String> = cycles(&graph)
        .iter()
        .map(|c| spell(name, c, &graph, dir))
        .collect();
    assert!(
        loops.is_empty(),
        "import loops (the shortest through each module on one):\n{}",
        loops.join("\n")
    );
}

/// The check itself can fail: a loop through a grouped `use`, a `crate::`
/// path in code and a resolved `super::super::` is found; a submodule
/// using its parent, test code, comments and strings are not edges.
/// One name, one meaning: no two public types of the library crates and
/// the host tools (`examples/src`, its binaries included) share a name,
/// so that a name read anywhere says which thing it is.
#[test]
fn no_two_public_types_share_a_name() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut seen: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let dirs = CRATES.iter().map(|(_, dir)| *dir).chain(["examples/src"]);
    for dir in dirs {
        for source in read_sources(&root.join(dir)) {
            for name in public_types(&code_only(&source.text)) {
                let place = format!("{dir}/{}", source.path);
                seen.entry(name).or_default().push(place);
            }
        }
    }
    let shared: Vec<String> = seen
        .iter()
        .filter(|(_, places)| places.len() > 1)
        .map(|(name, places)| format!("{name}: {}", places.join(", ")))
        .collect();
    assert!(
        shared.is_empty(),
        "public types sharing a name:\n{}",
        shared.join("\n")
    );
}

/// The names after `pub struct`, `pub enum`, `pub trait` and `pub type`
/// (macro-made names, `$name`, are not names).
fn public_types(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in code.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        for pair in words.windows(3) {
            let [vis, kind, name] = pair else { continue };
            let is_type = matches!(*kind, "struct" | "enum" | "trait" | "type");
            if *vis == "pub" && is_type {
                let ident: String = name
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !ident.is_empty() {
                    out.push(ident);
                }
            }
        }
    }
    out
}

#[test]
fn a_loop_is_found_and_spelled_out() {
    let files = [
        (
            "lib.rs",
            "pub mod a; pub mod b; pub mod c; pub use c::Thing;",
        ),
        ("a.rs", "use crate::{b::{x::X, Y}, c};\n"),
        ("b/mod.rs", "mod x;\npub struct Y;\n"),
        (
            "b/x.rs",
            "use super::Y;\npub struct X;\nfn f() { super::super::c::g(); }\n",
        ),
        (
            "c.rs",
            "// crate::a::no\nconst S: &str = \"crate::a::no\";\n\
             pub struct Thing;\npub fn g() {}\n\
             #[cfg(test)]\nmod t { use crate::a::no; }\n\
             #[cfg(test)]\nuse crate::b::no;\n\
             fn h() -> crate::Thing { crate::a::i() }\n",
        ),
        ("tests.rs", "use crate::b::no;"),
    ];
    let sources: Vec<Source> = files
        .iter()
        .filter(|(path, _)| !is_test_file(Path::new(path)))
        .map(|(path, text)| Source {
            path: (*path).into(),
            text: (*text).into(),
        })
        .collect();
    let graph = module_graph(&sources);
    let edges: Vec<String> = graph
        .iter()
        .flat_map(|(from, tos)| tos.keys().map(move |to| format!("{from}->{to}")))
        .collect();
    assert_eq!(edges, ["a->b", "a->c", "b->c", "c->a"]);
    assert_eq!(graph["c"]["a"], "c.rs:9");
    let found: Vec<String> = cycles(&graph)
        .iter()
        .map(|c| spell("t", c, &graph, "src"))
        .collect();
    assert_eq!(found.len(), 2, "{found:?}");
    assert_eq!(
        found[0],
        "t: a -> b -> c -> a\n    a -> b: src/a.rs:1\n    b -> c: src/b/x.rs:3\n    c -> a: src/c.rs:9"
    );
    assert!(found[1].starts_with("t: a -> c -> a\n"), "{}", found[1]);
}

/// Test-only files: `tests.rs` anywhere, and anything under a `tests` folder.
fn is_test_file(path: &Path) -> bool {
    path.components().any(|c| {
        let c = c.as_os_str();
        c == "tests.rs" || c == "tests"
    })
}

/// Every `.rs` file under `dir` but the test-only ones.
fn read_sources(dir: &Path) -> Vec<Source> {
    let mut out = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(at) = pending.pop() {
        for entry in fs::read_dir(&at).expect("read a source folder") {
            let path = entry.expect("read a folder entry").path();
            let rel = path.strip_prefix(dir).expect("under the folder");
            if is_test_file(rel) {
                continue;
            }
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(Source {
                    path: rel.to_string_lossy().replace('\\', "/"),
                    text: fs::read_to_string(&path).expect("read a source file"),
                });
            }
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// The module path of a file: `reduce/tools.rs` is `reduce::tools`,
/// `reduce/mod.rs` is `reduce`, `lib.rs` the root (empty).
fn module_of(path: &str) -> Vec<String> {
    let mut parts: Vec<String> = path.split('/').map(String::from).collect();
    if let Some(last) = parts.pop() {
        let stem = last.trim_end_matches(".rs");
        let is_root = parts.is_empty() && stem == "lib";
        if stem != "mod" && !is_root {
            parts.push(stem.into());
        }
    }
    parts
}

/// The graph of the crate's top-level modules.
fn module_graph(sources: &[Source]) -> Graph {
    let code: Vec<(Vec<String>, String)> = sources
        .iter()
        .map(|s| (module_of(&s.path), drop_test_items(&code_only(&s.text))))
        .collect();
    let modules: BTreeSet<String> = code
        .iter()
        .filter_map(|(m, _)| m.first().cloned())
        .collect();
    let reexports = root_reexports(&code, &modules);
    let mut graph = Graph::new();
    for (source, (module, text)) in sources.iter().zip(&code) {
        let Some(from) = module.first() else {
            continue; // the root: it declares every module
        };
        graph.entry(from.clone()).or_default();
        for (path, line) in paths(module, text) {
            let Some(first) = path.first() else { continue };
            let to = if modules.contains(first) {
                first
            } else if let Some(to) = reexports.get(first) {
                to
            } else {
                continue; // an item of the root itself
            };
            if to != from {
                let at = format!("{}:{line}", source.path);
                graph
                    .entry(from.clone())
                    .or_default()
                    .entry(to.clone())
                    .or_insert(at);
            }
        }
    }
    graph
}

/// The names the root re-exports, and the top-level module each comes from.
fn root_reexports(
    code: &[(Vec<String>, String)],
    modules: &BTreeSet<String>,
) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for (_, text) in code.iter().filter(|(m, _)| m.is_empty()) {
        let bytes = text.as_bytes();
        let mut at = 0;
        while let Some(found) = text[at..].find("use ") {
            let start = at + found;
            at = start + 4;
            if start > 0 && is_ident(bytes[start - 1]) {
                continue;
            }
            let mut trees = Vec::new();
            use_tree(bytes, at, Vec::new(), &mut trees);
            for tree in trees {
                let first = tree.first().filter(|f| modules.contains(*f));
                if let (Some(first), Some(last)) = (first, tree.last()) {
                    out.insert(last.clone(), first.clone());
                }
            }
        }
    }
    out
}

/// Every crate-internal path in `text` (a file of module `module`), made
/// absolute (without the leading `crate`), with its line.
fn paths(module: &[String], text: &str) -> Vec<(Vec<String>, usize)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    // Inline modules (`mod kinds { ... }`) the scan is in, with the brace
    // depth at which each closes.
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'{' {
            depth += 1;
        } else if b == b'}' {
            depth -= 1;
            if inline.last().is_some_and(|(_, d)| *d == depth) {
                inline.pop();
            }
        }
        if !is_ident(b) || (i > 0 && is_ident(bytes[i - 1])) {
            i += 1;
            continue;
        }
        let word = ident_at(bytes, i);
        let after = i + word.len();
        if word == "mod" {
            let name_at = skip_ws(bytes, after);
            let name = ident_at(bytes, name_at);
            let next = skip_ws(bytes, name_at + name.len());
            if !name.is_empty() && bytes.get(next) == Some(&b'{') {
                inline.push((name.into(), depth));
            }
        } else if (word == "crate" || word == "super") && starts_path(bytes, after) {
            let mut trees = Vec::new();
            use_tree(bytes, i, Vec::new(), &mut trees);
            let mut here: Vec<String> = module.to_vec();
            here.extend(inline.iter().map(|(n, _)| n.clone()));
            let line = text[..i].matches('\n').count() + 1;
            out.extend(
                trees
                    .iter()
                    .filter_map(|t| resolve(&here, t))
                    .map(|p| (p, line)),
            );
        }
        i = after;
    }
    out
}

/// True when `::` follows (after blanks) at `at`.
fn starts_path(bytes: &[u8], at: usize) -> bool {
    let at = skip_ws(bytes, at);
    bytes.get(at..at + 2) == Some(b"::".as_slice())
}

/// A path starting with `crate` or `super`, made absolute from module
/// `here`; `None` for a `super` above the root.
fn resolve(here: &[String], tree: &[String]) -> Option<Vec<String>> {
    let mut base = here.to_vec();
    let mut rest = tree;
    if rest.first().is_some_and(|s| s == "crate") {
        base.clear();
        rest = &rest[1..];
    }
    while rest.first().is_some_and(|s| s == "super") {
        base.pop()?;
        rest = &rest[1..];
    }
    base.extend(rest.iter().filter(|s| *s != "self").cloned());
    Some(base)
}

/// Reads a path or use tree at `at` (`a::b::{c, d::{e, f}}`), adding each
/// complete path to `out`, every one prefixed by `prefix`.
fn use_tree(bytes: &[u8], at: usize, prefix: Vec<String>, out: &mut Vec<Vec<String>>) -> usize {
    let mut at = skip_ws(bytes, at);
    let mut path = prefix;
    loop {
        if bytes.get(at) == Some(&b'{') {
            at += 1;
            loop {
                at = skip_ws(bytes, at);
                match bytes.get(at) {
                    Some(b'}') => return at + 1,
                    Some(b',') => at += 1,
                    Some(_) => at = use_tree(bytes, at, path.clone(), out),
                    None => return at,
                }
            }
        }
        let word = ident_at(bytes, at);
        if !word.is_empty() {
            path.push(word.into());
            at += word.len();
        }
        let next = skip_ws(bytes, at);
        if bytes.get(next..next + 2) == Some(b"::".as_slice()) {
            at = skip_ws(bytes, next + 2);
            continue;
        }
        // `*`, `as`, or the end of the path.
        out.push(path);
        return skip_to_tree_end(bytes, next);
    }
}

/// Skips what ends a tree member (`as name`, `*`) up to `,` `}` or `;`.
fn skip_to_tree_end(bytes: &[u8], mut at: usize) -> usize {
    let at_word = ident_at(bytes, at);
    if at_word == "as" {
        at = skip_ws(bytes, at + 2);
        at += ident_at(bytes, at).len();
    } else if bytes.get(at) == Some(&b'*') {
        at += 1;
    }
    at
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

fn ident_at(bytes: &[u8], at: usize) -> &str {
    let end = bytes[at.min(bytes.len())..]
        .iter()
        .position(|b| !is_ident(*b))
        .map_or(bytes.len(), |n| at + n);
    std::str::from_utf8(&bytes[at.min(end)..end]).unwrap_or("")
}

fn skip_ws(bytes: &[u8], mut at: usize) -> usize {
    while bytes.get(at).is_some_and(u8::is_ascii_whitespace) {
        at += 1;
    }
    at
}

/// The text with comments, string literals and character literals blanked
/// (newlines kept, so that lines still count).
fn code_only(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let mut i = 0;
    while i < b.len() {
        let rest = &b[i..];
        let literal = if rest.starts_with(b"//") {
            Some(
                rest.iter()
                    .position(|c| *c == b'\n')
                    .map_or(b.len(), |n| i + n),
            )
        } else if rest.starts_with(b"/*") {
            Some(block_comment_end(b, i))
        } else if b[i] == b'"' {
            Some(string_end(b, i + 1, b'"'))
        } else if b[i] == b'\'' {
            char_end(b, i)
        } else {
            raw_string_end(b, i)
        };
        if let Some(end) = literal {
            for c in &mut out[i..end] {
                if *c != b'\n' {
                    *c = b' ';
                }
            }
            i = end;
        } else if is_ident(b[i]) {
            i += ident_at(b, i).len(); // so that `br"` is not read inside a name
        } else {
            i += 1;
        }
    }
    // Only whole literals and comments were blanked: still UTF-8.
    String::from_utf8_lossy(&out).into_owned()
}

fn block_comment_end(b: &[u8], start: usize) -> usize {
    let mut depth = 0;
    let mut i = start;
    while i + 1 < b.len() {
        if &b[i..i + 2] == b"/*" {
            depth += 1;
            i += 2;
        } else if &b[i..i + 2] == b"*/" {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            i += 1;
        }
    }
    b.len()
}

/// The end of a string literal whose body starts at `i`.
fn string_end(b: &[u8], mut i: usize, close: u8) -> usize {
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            c if c == close => return i + 1,
            _ => i += 1,
        }
    }
    b.len()
}

/// The end of `r"…"`, `r#"…"#`, `br"…"` starting at `i`, if one starts there.
fn raw_string_end(b: &[u8], i: usize) -> Option<usize> {
    if i > 0 && is_ident(b[i - 1]) {
        return None;
    }
    let mut at = i;
    if b.get(at) == Some(&b'b') {
        at += 1;
    }
    if b.get(at) != Some(&b'r') {
        return None;
    }
    at += 1;
    let hashes = b[at..].iter().take_while(|c| **c == b'#').count();
    at += hashes;
    if b.get(at) != Some(&b'"') {
        return None;
    }
    let mut close = vec![b'"'];
    close.extend(std::iter::repeat_n(b'#', hashes));
    let body = at + 1;
    b[body..]
        .windows(close.len())
        .position(|w| w == close.as_slice())
        .map(|n| body + n + close.len())
        .or(Some(b.len()))
}

/// The end of a character literal at `i` (`'a'`, `'\\n'`, `'\\u{..}'`), or
/// `None` for a lifetime.
fn char_end(b: &[u8], i: usize) -> Option<usize> {
    let first = *b.get(i + 1)?;
    if first == b'\\' {
        return Some(string_end(b, i + 1, b'\''));
    }
    let len = match first {
        0..0x80 => 1,
        0x80..0xE0 => 2,
        0xE0..0xF0 => 3,
        _ => 4,
    };
    (b.get(i + 1 + len) == Some(&b'\'')).then_some(i + 2 + len)
}

/// The text without the items under `#[cfg(test)]` (blanked, newlines kept).
fn drop_test_items(code: &str) -> String {
    let b = code.as_bytes();
    let mut out = b.to_vec();
    let mut from = 0;
    while let Some(found) = code[from..].find("#[cfg(test)]") {
        let start = from + found;
        let end = item_end(b, start + "#[cfg(test)]".len());
        for c in &mut out[start..end] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
        from = end;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The end of the item starting at `at` (after its attribute): its first
/// `;` outside braces, or the brace that closes its body.
fn item_end(b: &[u8], at: usize) -> usize {
    let mut depth = 0usize;
    for (i, c) in b.iter().enumerate().skip(at) {
        match c {
            b'{' => depth += 1,
            b'}' => {
                depth = depth.saturating_sub(1);
                let next = skip_ws(b, i + 1);
                if depth == 0 && b.get(next) != Some(&b';') {
                    return i + 1;
                }
            }
            b';' if depth == 0 => return i + 1,
            _ => {}
        }
    }
    b.len()
}

/// The loops of the graph: for each module on one, the shortest loop
/// through it (each loop once, starting at its first module by name).
fn cycles(graph: &Graph) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = Vec::new();
    for start in graph.keys() {
        let Some(mut cycle) = shortest_cycle(graph, start) else {
            continue;
        };
        cycle.pop();
        let first = (0..cycle.len()).min_by_key(|i| &cycle[*i]).unwrap_or(0);
        cycle.rotate_left(first);
        cycle.push(cycle[0].clone());
        if !out.contains(&cycle) {
            out.push(cycle);
        }
    }
    out.sort();
    out
}

/// The shortest path from `start` back to itself (breadth first).
fn shortest_cycle(graph: &Graph, start: &str) -> Option<Vec<String>> {
    let mut came_from: BTreeMap<&str, &str> = BTreeMap::new();
    let mut queue = VecDeque::from([start]);
    while let Some(at) = queue.pop_front() {
        for next in graph.get(at).into_iter().flat_map(BTreeMap::keys) {
            if next == start {
                let mut back = vec![start.to_string()];
                let mut node = at;
                while node != start {
                    back.push(node.to_string());
                    node = came_from[node];
                }
                back.push(start.to_string());
                back.reverse();
                return Some(back);
            }
            if !came_from.contains_key(next.as_str()) {
                came_from.insert(next, at);
                queue.push_back(next);
            }
        }
    }
    None
}

/// `alloc: event -> rules -> reduce -> event`, then where each edge is made.
fn spell(name: &str, cycle: &[String], graph: &Graph, dir: &str) -> String {
    let mut out = format!("{name}: {}", cycle.join(" -> "));
    for pair in cycle.windows(2) {
        let at = &graph[&pair[0]][&pair[1]];
        out += &format!("\n    {} -> {}: {dir}/{at}", pair[0], pair[1]);
    }
    out
}
