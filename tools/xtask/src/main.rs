//! The project's tasks, run as `cargo xtask TASK` (the alias is in
//! `.cargo/config.toml`):
//!
//! - `cargo xtask test [ARGS]`: [`setup`], then `cargo test --features std
//!   ARGS` at the workspace root; its exit status is the tests'.
//! - `cargo xtask setup`: only installs what the tests need.
//!
//! A Rust program rather than a script: it needs nothing but the toolchain
//! that builds the project, and `cargo xtask` is the usual place Rust
//! projects keep such tasks.

use std::env;
use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

mod setup;

const USAGE: &str = "\
usage: cargo xtask test [ARGS]   install what the tests need, then run
                                 `cargo test --features std ARGS`
       cargo xtask setup         only install what the tests need";

/// Why a task stopped: one line a person can act on.
#[derive(Debug)]
pub struct Failure(String);

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

fn main() -> ExitCode {
    let mut args = env::args_os().skip(1);
    let task = args.next();
    let outcome = match task.as_ref().and_then(|t| t.to_str()) {
        Some("test") => setup::run(&repo()).and_then(|()| test(&repo(), args.collect())),
        Some("setup") => setup::run(&repo()).map(|()| ExitCode::SUCCESS),
        Some("help" | "-h" | "--help") => {
            println!("{USAGE}");
            Ok(ExitCode::SUCCESS)
        }
        Some(_) | None => Err(Failure(format!(
            "no such task: {}\n{USAGE}",
            task.as_deref().unwrap_or_default().to_string_lossy()
        ))),
    };
    outcome.unwrap_or_else(|failure| {
        eprintln!("xtask: {failure}");
        ExitCode::FAILURE
    })
}

/// The workspace root: this crate is `tools/xtask` in it.
fn repo() -> PathBuf {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    repo.canonicalize().unwrap_or(repo)
}

/// The cargo that runs this task (cargo sets `CARGO` for `cargo run`).
pub fn cargo() -> OsString {
    env::var_os("CARGO").unwrap_or_else(|| "cargo".into())
}

/// `cargo test --features std ARGS`, the README's test command.
fn test(repo: &Path, args: Vec<OsString>) -> Result<ExitCode, Failure> {
    setup::say("running `cargo test --features std` (the whole suite)");
    let status = Command::new(cargo())
        .args(["test", "--features", "std"])
        .args(args)
        .current_dir(repo)
        .status()
        .map_err(|e| Failure(format!("cannot run cargo: {e}")))?;
    // The tests' own status: 101 when one failed, as with plain cargo test.
    Ok(status
        .code()
        .and_then(|c| u8::try_from(c).ok())
        .map_or(ExitCode::FAILURE, ExitCode::from))
}
