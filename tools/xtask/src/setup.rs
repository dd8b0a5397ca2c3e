//! What `cargo test --features std` needs beyond the Rust crates, installed
//! in four steps. Each step first checks whether its part is there (without
//! the network), so a second run takes about a second and works offline.

use std::env;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use crate::{cargo, Failure};

/// The firmware's target: the gateway and OLED tests build the firmware and
/// run it in QEMU.
const FIRMWARE_TARGET: &str = "thumbv7m-none-eabi";

/// Debian packages, each with what needs it and how to see it is there.
struct Need {
    packages: &'static [&'static str],
    present: fn() -> bool,
}

const NEEDS: [Need; 7] = [
    // examples/tests/cost_bound.rs counts instructions with callgrind.
    Need {
        packages: &["valgrind"],
        present: || on_path("valgrind"),
    },
    // examples/tests/{gateway,oled_kiosk}.rs run the firmware in QEMU.
    Need {
        packages: &["qemu-system-arm"],
        present: || on_path("qemu-system-arm"),
    },
    // examples/agents/setup.sh makes the backends' venv.
    Need {
        packages: &["python3", "python3-venv"],
        present: python_venv,
    },
    // examples/agents/setup.sh installs the TypeScript backend with npm
    // (examples/tests/chat_e2e.rs runs it with node).
    Need {
        packages: &["nodejs", "npm"],
        present: || on_path("node") && on_path("npm"),
    },
    // examples/tests/kiosk_window.rs: agui-kiosk's window on a virtual
    // display, screenshot with ImageMagick's `import`.
    Need {
        packages: &["xvfb"],
        present: || on_path("Xvfb"),
    },
    Need {
        packages: &["imagemagick"],
        present: || on_path("import"),
    },
    // minifb loads libX11 and libXcursor at run time; kiosk_window.rs
    // types and clicks through the XTEST extension (libXtst).
    Need {
        packages: &["libx11-6", "libxcursor1", "libxtst6"],
        present: x11_libraries,
    },
];

/// All the steps, in order.
pub fn run(repo: &Path) -> Result<(), Failure> {
    let start = Instant::now();
    let steps: [&dyn Fn() -> Result<(), Failure>; 4] = [
        &firmware_target,
        &system_packages,
        &|| backends(repo),
        &|| crates(repo),
    ];
    for step in steps {
        let began = Instant::now();
        step()?;
        let took = began.elapsed().as_secs_f64();
        if took >= 1.0 {
            say(&format!("  took {took:.0} s"));
        }
    }
    say(&format!(
        "setup done in {:.1} s",
        start.elapsed().as_secs_f64()
    ));
    Ok(())
}

/// One line of progress.
pub fn say(what: &str) {
    eprintln!("xtask: {what}");
}

fn firmware_target() -> Result<(), Failure> {
    say(&format!(
        "Rust target {FIRMWARE_TARGET} (the firmware that the QEMU tests run)"
    ));
    let sysroot = output("rustc", &["--print", "sysroot"]).unwrap_or_default();
    if Path::new(sysroot.trim())
        .join("lib/rustlib")
        .join(FIRMWARE_TARGET)
        .is_dir()
    {
        return already();
    }
    say("  adding it with rustup (a download of about 20 MB)");
    checked(Command::new("rustup").args(["target", "add", FIRMWARE_TARGET]))
}

fn system_packages() -> Result<(), Failure> {
    say("system packages: valgrind, QEMU, Python's venv, Xvfb, ImageMagick, X11 libraries");
    let missing: Vec<&str> = NEEDS
        .iter()
        .filter(|need| !(need.present)())
        .flat_map(|need| need.packages.iter().copied())
        .collect();
    if missing.is_empty() {
        return already();
    }
    let list = missing.join(" ");
    if output("id", &["-u"]).as_deref().map(str::trim) != Some("0") {
        return Err(Failure(format!(
            "missing Debian packages ({list}): run as root, or first: \
             sudo apt-get update && sudo apt-get install -y {list}"
        )));
    }
    say(&format!(
        "  installing {list} with apt-get (a few minutes on a fresh machine)"
    ));
    checked(Command::new("apt-get").arg("update"))?;
    checked(
        Command::new("apt-get")
            .args(["install", "-y"])
            .args(&missing)
            .env("DEBIAN_FRONTEND", "noninteractive"),
    )
}

/// The AG-UI test backends in `<repo>/.venv`: the script checks its own
/// stamp before it touches the network.
fn backends(repo: &Path) -> Result<(), Failure> {
    say("AG-UI test backends in .venv (examples/agents/setup.sh; pip takes a few minutes the first time)");
    checked(Command::new("bash").arg(repo.join("examples/agents/setup.sh")))
}

/// The crates of the workspace and of the firmware (a workspace of its own,
/// that the QEMU tests build) in Cargo's cache, so that later builds work
/// offline.
fn crates(repo: &Path) -> Result<(), Failure> {
    say("crates of the workspace and the firmware in Cargo's cache");
    let manifests = [
        repo.join("Cargo.toml"),
        repo.join("examples/firmware/Cargo.toml"),
    ];
    let mut fetched = false;
    for manifest in &manifests {
        let cached = Command::new(cargo())
            .args(["fetch", "--offline", "--quiet", "--manifest-path"])
            .arg(manifest)
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !cached {
            say(&format!(
                "  downloading the crates of {}",
                manifest.display()
            ));
            checked(
                Command::new(cargo())
                    .arg("fetch")
                    .arg("--manifest-path")
                    .arg(manifest),
            )?;
            fetched = true;
        }
    }
    if fetched {
        Ok(())
    } else {
        already()
    }
}

fn already() -> Result<(), Failure> {
    say("  already there");
    Ok(())
}

/// Runs `cmd` with its output shown; fails with the command if it fails.
fn checked(cmd: &mut Command) -> Result<(), Failure> {
    let shown = format!("{cmd:?}");
    match cmd.status() {
        Ok(status) if status.success() => Ok(()),
        Ok(status) => Err(Failure(format!("{shown} failed ({status})"))),
        Err(e) => Err(Failure(format!("cannot run {shown}: {e}"))),
    }
}

/// What a program printed, when it ran and succeeded.
fn output(program: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(program).args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

fn on_path(program: &str) -> bool {
    env::var_os("PATH")
        .is_some_and(|path| env::split_paths(&path).any(|dir| dir.join(program).is_file()))
}

/// python3 with the venv module and ensurepip (Debian splits them off into
/// python3-venv).
fn python_venv() -> bool {
    output("python3", &["-c", "import venv, ensurepip"]).is_some()
}

fn x11_libraries() -> bool {
    // ldconfig is in /sbin, which a user's PATH may lack.
    let cache = output("ldconfig", &["-p"]).or_else(|| output("/sbin/ldconfig", &["-p"]));
    cache.is_some_and(|c| {
        c.contains("libX11.so.6") && c.contains("libXcursor.so.1") && c.contains("libXtst.so.6")
    })
}
