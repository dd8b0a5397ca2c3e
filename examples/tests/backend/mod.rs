//! The real AG-UI backends of `examples/agents/`, started by a test on a
//! free port and stopped when it ends. Shared by several test binaries;
//! each uses a part.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// The repository's root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The backends' Python: `$AGUI_PYTHON`, or the venv of setup.sh.
pub fn python() -> PathBuf {
    if let Some(p) = std::env::var_os("AGUI_PYTHON") {
        return PathBuf::from(p);
    }
    let venv = repo().join(".venv/bin/python");
    assert!(
        venv.exists(),
        "the AG-UI test backends are not installed: run `cargo xtask setup` (or \
         examples/agents/setup.sh; it creates {}), or set AGUI_PYTHON",
        venv.display()
    );
    venv
}

/// The TypeScript backends' node, once their packages are installed
/// (`examples/agents/node_modules`, from its lockfile by setup.sh).
pub fn node() -> PathBuf {
    let modules = repo().join("examples/agents/node_modules/@ag-ui/encoder");
    assert!(
        modules.exists(),
        "the TypeScript AG-UI test backend is not installed: run `cargo xtask setup` (or \
         examples/agents/setup.sh; it runs `npm ci` in examples/agents, making {})",
        modules.display()
    );
    PathBuf::from("node")
}

/// A backend server process, killed when dropped (even if the test failed).
pub struct Backend {
    child: Child,
    /// Where it listens (`http://127.0.0.1:N/`, or https).
    pub url: String,
}

impl Backend {
    /// `examples/agents/<script>` with `--port 0` (Python, or node for a
    /// `.mjs` script), once it printed its `listening on` line.
    pub fn start(script: &str) -> Backend {
        Backend::start_with(script, &[])
    }

    /// With extra arguments for the script (e.g. `--certfile`).
    pub fn start_with(script: &str, args: &[&str]) -> Backend {
        let path = repo().join("examples/agents").join(script);
        let program = if script.ends_with(".mjs") {
            node()
        } else {
            python()
        };
        let mut child = Command::new(program)
            .arg(&path)
            .args(["--port", "0"])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("{} starts: {e}", path.display()));
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        // Wrap first, so that a server that never gets ready is killed.
        let mut backend = Backend {
            child,
            url: String::new(),
        };
        let line = rx
            .recv_timeout(Duration::from_secs(120))
            .unwrap_or_else(|_| panic!("{script} did not print its 'listening on' line"));
        backend.url = line
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("{script} printed {line:?}"))
            .to_owned();
        backend
    }
}

impl Drop for Backend {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
