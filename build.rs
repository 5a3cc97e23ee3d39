//! Build script: stamps the version with the git revision and checks that the UI has been built
//! (`ui/embed/`, what `ui/scripts/compress.mjs` chose from `ui/dist/` to embed), so a fresh clone
//! gets one clear line instead of a macro panic from rust-embed.
use std::path::Path;
use std::process::Command;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(hearth_ui_missing)");
    println!("cargo::rerun-if-changed=ui/embed/index.html");
    println!("cargo::rerun-if-changed=.git/HEAD");
    println!("cargo::rerun-if-changed=.git/refs/heads");
    println!("cargo::rerun-if-env-changed=HEARTH_GIT_REV");

    if !Path::new("ui/embed/index.html").exists() {
        println!("cargo::rustc-cfg=hearth_ui_missing");
    }

    let rev = std::env::var("HEARTH_GIT_REV")
        .ok()
        .filter(|r| !r.is_empty())
        .or_else(|| {
            Command::new("git")
                .args(["rev-parse", "--short=12", "HEAD"])
                .output()
                .ok()
                .filter(|o| o.status.success())
                .and_then(|o| String::from_utf8(o.stdout).ok())
                .map(|s| s.trim().to_owned())
                .filter(|s| !s.is_empty())
        });
    println!(
        "cargo::rustc-env=HEARTH_GIT_REV={}",
        rev.unwrap_or_else(|| "unknown".to_owned())
    );

    hot_functions_first();
}

/// Where scripts/hot-functions.sh lists the functions that run in make footprint's visit.
const HOT_FUNCTIONS: &str = "link/hot-functions.txt";

/// The release binary with the functions of a start and a page visit side by side at the start
/// of its code (lld's `--symbol-ordering-file`): the kernel maps code in runs of pages around each
/// page that runs, so the same functions spread over the whole `.text` made 5.3 MB of it resident
/// against 1.6 MB together. Only where lld links: rustc's own for x86_64 Linux since Rust 1.90
/// (1.95 here); GNU ld (the Raspberry Pi cross builds, an older rustc) has no such option, and
/// there the binary is laid out as before. A name the list does not find (renamed since it was
/// made) is skipped without a warning; its function is placed with the rest.
fn hot_functions_first() {
    println!("cargo::rerun-if-changed={HOT_FUNCTIONS}");
    let env = |name: &str| std::env::var(name).unwrap_or_default();
    let target_links_with_lld = env("TARGET") == "x86_64-unknown-linux-gnu"
        && rustc_minor().is_some_and(|minor| minor >= 90)
        // A linker of the builder's own choosing (`-C linker=`, `-C linker-features=-lld`, …).
        && !env("CARGO_ENCODED_RUSTFLAGS").contains("link")
        && env("CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER").is_empty();
    if env("PROFILE") != "release" || !target_links_with_lld {
        return;
    }
    let list = Path::new(&env("CARGO_MANIFEST_DIR")).join(HOT_FUNCTIONS);
    if !list.exists() {
        return;
    }
    println!(
        "cargo::rustc-link-arg-bins=-Wl,--symbol-ordering-file={}",
        list.display()
    );
    println!("cargo::rustc-link-arg-bins=-Wl,--no-warn-symbol-ordering");
}

/// The minor version of the rustc that builds this (`1.95.0` → 95).
fn rustc_minor() -> Option<u32> {
    let rustc = std::env::var("RUSTC").ok()?;
    let output = Command::new(rustc).arg("--version").output().ok()?;
    let version = String::from_utf8(output.stdout).ok()?;
    let mut numbers = version.split_whitespace().nth(1)?.split('.');
    (numbers.next()? == "1").then_some(())?;
    numbers.next()?.parse().ok()
}
