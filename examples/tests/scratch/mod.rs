//! A test's own directory under the system's temporary directory: made
//! empty when the test starts, removed when it passes, kept (and named on
//! stderr) when it fails, so the pictures of a failing run can be looked at.

use std::fs;
use std::ops::Deref;
use std::path::{Path, PathBuf};

/// The directory; removed on drop unless the test is panicking.
pub struct Scratch(PathBuf);

impl Scratch {
    /// `<tmp>/<prefix>-<pid>-<name>`, empty.
    pub fn new(prefix: &str, name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("{prefix}-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        Scratch(dir)
    }
}

impl Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("kept for a look: {}", self.0.display());
        } else {
            let _ = fs::remove_dir_all(&self.0);
        }
    }
}
