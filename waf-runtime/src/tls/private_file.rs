//! Writing key and certificate files: atomically (a reader never sees half a file, a crash leaves the old one)
//! and, for private keys, readable by the owner only.
use anyhow::Context;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// Writes a private key: mode 0600 from the moment the file exists, then renamed into place.
pub fn write(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    write_mode(path, bytes, 0o600)
}

/// Writes a certificate (public).
pub fn write_public(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    write_mode(path, bytes, 0o644)
}

fn write_mode(path: &Path, bytes: &[u8], mode: u32) -> anyhow::Result<()> {
    let tmp = path.with_extension("tmp");
    let _ = std::fs::remove_file(&tmp);
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .open(&tmp)
        .with_context(|| format!("creating {}", tmp.display()))?;
    file.write_all(bytes)
        .and_then(|()| file.sync_all())
        .with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("renaming to {}", path.display()))
}
