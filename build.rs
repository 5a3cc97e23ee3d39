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
}
