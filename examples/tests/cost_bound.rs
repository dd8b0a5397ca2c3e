//! Issue 11: the cost bound itself, measured in instructions.
//!
//! `agui-bench-core run client <workload> <n>` feeds a generated stream to
//! the whole client inside one function, `measure`; callgrind counts the
//! instructions executed there (deterministic, unlike time). On generated
//! hostile streams (`workloads::hostile_mix`: history that used to make
//! small events expensive, then those small events), the instructions per
//! input byte must stay under a constant, and must not grow when the
//! stream, history included, is four times longer: a cost per event that
//! grows with the history shows up as a per-byte count that grows with n.
//!
//! Needs valgrind (`.ci/run` installs it); without it the test fails and
//! says so.

use std::path::PathBuf;
use std::process::Command;

use proptest::prelude::*;

/// Instructions per input byte the debug build may spend on any hostile
/// stream (it spends about 2,000; an optimised build about 300).
const MAX_PER_BYTE: f64 = 4_000.0;

/// How much the per-byte count may grow from n to 4n (maps of ids are
/// `O(log n)`, so a little growth is expected; history-proportional costs
/// grow it by about 4).
const MAX_GROWTH: f64 = 1.3;

fn bench() -> &'static str {
    env!("CARGO_BIN_EXE_agui-bench-core")
}

fn require_valgrind() {
    let ok = Command::new("valgrind")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        ok,
        "the cost-bound test needs valgrind (callgrind counts the instructions): \
         install it with `apt-get install valgrind` (.ci/run does)"
    );
}

/// (instructions in `measure`, input bytes) for `workload` at `n`, read
/// by the client `stage` (`client`, or `client-v1` for AG-UI 1.0).
fn instructions(stage: &str, workload: &str, n: usize) -> (u64, u64) {
    let out_file: PathBuf = std::env::temp_dir().join(format!(
        "agui-cost-{}-{}-{n}.callgrind",
        std::process::id(),
        workload.replace(':', "_")
    ));
    let out = Command::new("valgrind")
        .arg("--tool=callgrind")
        .arg("--toggle-collect=*measure*")
        .arg(format!("--callgrind-out-file={}", out_file.display()))
        .args([bench(), "run", stage, workload, &n.to_string(), "ndjson"])
        .output()
        .expect("valgrind runs");
    let _ = std::fs::remove_file(&out_file);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{workload} {n}: {stdout}{stderr}");
    let collected = stderr
        .lines()
        .find_map(|l| l.split("Collected :").nth(1))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no instruction count in: {stderr}"));
    let bytes = stdout
        .split(" bytes")
        .next()
        .and_then(|s| s.rsplit(' ').next())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no byte count in: {stdout}"));
    (collected, bytes)
}

/// Asserts the bound for `workload` at `n` and `4n`.
fn bounded(workload: &str, n: usize) {
    bounded_in("client", workload, n);
}

/// The same, read by the client `stage`.
fn bounded_in(stage: &str, workload: &str, n: usize) {
    let (ir, bytes) = instructions(stage, workload, n);
    let (ir4, bytes4) = instructions(stage, workload, 4 * n);
    let per_byte = ir as f64 / bytes as f64;
    let per_byte4 = ir4 as f64 / bytes4 as f64;
    assert!(
        per_byte4 <= MAX_PER_BYTE,
        "{workload} at {}: {per_byte4:.0} instructions per byte",
        4 * n
    );
    assert!(
        per_byte4 <= per_byte * MAX_GROWTH,
        "{workload}: {per_byte:.0} instructions per byte at {n}, {per_byte4:.0} at {}",
        4 * n
    );
}

/// The named hostile workloads of BENCHMARKS.md, each at n and 4n.
#[test]
fn hostile_workloads_cost_per_byte_is_bounded() {
    require_valgrind();
    for workload in [
        "many_snapshots",
        "state_copies",
        "activity_deltas",
        "parallel_results",
        "state_removals",
    ] {
        bounded(workload, 60);
    }
}

/// AG-UI 1.0: tiny snapshots over many client-only activity and reasoning
/// messages (kept, never looked at), and the owner tables the 1.0 reader
/// keeps for every id of the run.
#[test]
fn v1_hostile_workloads_cost_per_byte_is_bounded() {
    require_valgrind();
    bounded_in("client-v1", "kept_snapshots", 60);
    bounded_in("client-v1", "owner_lookups", 60);
    // Keep-going mode takes each frame back if it fails: through a journal
    // of what it changed, not a copy of the tables it holds.
    bounded_in("client-v1-keep-going", "owner_lookups", 60);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4, failure_persistence: None, ..ProptestConfig::default() })]

    /// Random mixes of the hostile kinds, at random sizes.
    #[test]
    fn generated_hostile_streams_cost_per_byte_is_bounded(seed in 1u64..u64::MAX, n in 40usize..120) {
        require_valgrind();
        bounded(&format!("mix:{seed}"), n);
    }
}
