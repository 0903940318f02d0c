//! Finding the external programs the tests start, and the one rule for when one is missing: a loud `SKIPPED` on
//! stderr, or a failure when `REQUIRE_EXTERNAL_TESTS=1` (as in CI).

use std::path::{Path, PathBuf};

/// `name` on the PATH or in one of `dirs` (glob-free prefixes such as `/usr/lib/postgresql`, searched one level deep
/// for `bin/name`).
pub fn find_program(name: &str, versioned_dirs: &[&str]) -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .map(|dir| dir.join(name));
    let versioned = versioned_dirs.iter().flat_map(|dir| {
        let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|entry| entry.path().join("bin").join(name))
            .collect();
        found.sort();
        found.into_iter().rev()
    });
    on_path.chain(versioned).find(|p| Path::new(p).is_file())
}

/// Whether a missing program must fail the run.
pub fn required() -> bool {
    std::env::var("REQUIRE_EXTERNAL_TESTS").is_ok_and(|v| v == "1")
}

/// Reports a missing program: panics when required, else prints `SKIPPED: <why>` and returns.
pub fn skip(why: &str) {
    if required() {
        panic!("REQUIRE_EXTERNAL_TESTS=1 but {why}");
    }
    eprintln!("SKIPPED: {why}");
}
