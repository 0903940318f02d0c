//! The first-time setup: while no admin exists, the first one can be created only with a one-time token that
//! the proxy prints to its log at start and writes to a 0600 file in the data directory. Only someone who can
//! read the proxy's log or its data directory can claim the panel (an earlier design made the first visitor
//! admin).
//!
//! The token dies once used: the creation itself is one conditional insert (`Store::create_first_admin`), so of
//! two setups racing exactly one creates the admin; the token is then forgotten and its file removed.
use sha2::{Digest, Sha256};
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use subtle::ConstantTimeEq;

pub const TOKEN_FILE: &str = "setup-token";

/// The token in force, kept only as its SHA-256 (compared in constant time).
pub struct SetupToken {
    digest: Mutex<Option<[u8; 32]>>,
    file: PathBuf,
}

impl SetupToken {
    /// No token: an admin exists already.
    pub fn none(dir: &Path) -> SetupToken {
        SetupToken {
            digest: Mutex::new(None),
            file: dir.join(TOKEN_FILE),
        }
    }

    /// A fresh random token, written to `dir/setup-token` (mode 0600, replacing any older one) and logged.
    pub fn issue(dir: &Path) -> std::io::Result<SetupToken> {
        let token = hex::encode(rand::random::<[u8; 24]>());
        let file = dir.join(TOKEN_FILE);
        let _ = std::fs::remove_file(&file);
        let mut out = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&file)?;
        out.write_all(token.as_bytes())?;
        out.write_all(b"\n")?;
        // The one place a secret is logged, on purpose: the operator reads it to run the setup wizard; it is
        // single-use and useless once an admin exists.
        tracing::warn!(
            "admin setup token: {token} (also in {}; it creates the first admin once)",
            file.display()
        );
        Ok(SetupToken {
            digest: Mutex::new(Some(Sha256::digest(token.as_bytes()).into())),
            file,
        })
    }

    pub fn pending(&self) -> bool {
        self.digest.lock().map(|d| d.is_some()).unwrap_or(false)
    }

    pub fn matches(&self, candidate: &str) -> bool {
        let digest: [u8; 32] = Sha256::digest(candidate.trim().as_bytes()).into();
        match *self.digest.lock().unwrap_or_else(|e| e.into_inner()) {
            Some(expected) => bool::from(expected.ct_eq(&digest)),
            None => false,
        }
    }

    /// Forgets the token and removes its file: called once the first admin exists.
    pub fn spend(&self) {
        *self.digest.lock().unwrap_or_else(|e| e.into_inner()) = None;
        let _ = std::fs::remove_file(&self.file);
    }
}
