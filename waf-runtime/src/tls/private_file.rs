//! Writing key and certificate files: atomically (a reader never sees half a file, a crash leaves the old one)
//! and, for private keys, readable by the owner only.
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// A file or directory operation that failed: what was done, on which path, and the system's reason.
#[derive(Debug, thiserror::Error)]
#[error("{action} {}: {source}", path.display())]
pub struct FileError {
    pub action: &'static str,
    pub path: PathBuf,
    pub source: std::io::Error,
}

impl FileError {
    /// A closure turning an I/O error of `action` on `path` into a [`FileError`].
    pub fn of(action: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> FileError {
        let path = path.to_path_buf();
        move |source| FileError {
            action,
            path,
            source,
        }
    }
}

/// Writes a private key: mode 0600 from the moment the file exists, then renamed into place.
pub fn write(path: &Path, bytes: &[u8]) -> Result<(), FileError> {
    write_mode(path, bytes, 0o600)
}

/// Writes a certificate (public).
pub fn write_public(path: &Path, bytes: &[u8]) -> Result<(), FileError> {
    write_mode(path, bytes, 0o644)
}

/// Creates `dir` and its parents.
pub fn create_dir(dir: &Path) -> Result<(), FileError> {
    std::fs::create_dir_all(dir).map_err(FileError::of("creating", dir))
}

fn write_mode(path: &Path, bytes: &[u8], mode: u32) -> Result<(), FileError> {
    let tmp = path.with_extension("tmp");
    let _ = std::fs::remove_file(&tmp);
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .open(&tmp)
        .map_err(FileError::of("creating", &tmp))?;
    file.write_all(bytes)
        .and_then(|()| file.sync_all())
        .map_err(FileError::of("writing", &tmp))?;
    std::fs::rename(&tmp, path).map_err(FileError::of("renaming to", path))
}
