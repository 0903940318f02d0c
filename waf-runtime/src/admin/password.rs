//! Admin passwords: Argon2id with the `argon2` crate's defaults, which are OWASP's recommendation
//! (m = 19 MiB, t = 2, p = 1, a 16-byte random salt), stored as a PHC string (`$argon2id$v=19$m=19456,t=2,p=1$...`)
//! so the parameters travel with each hash and can be raised later without breaking older hashes.
//!
//! Hashing takes tens of milliseconds of CPU by design: it runs on a blocking thread, never on the async workers.
use argon2::Argon2;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};

/// Shorter passwords are refused: the panel controls what the proxy lets through.
pub const MIN_LEN: usize = 12;
/// Longer inputs are refused before hashing, so nobody can make the server hash megabytes.
pub const MAX_LEN: usize = 1024;

/// Why a new password is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum PolicyError {
    #[error("the password needs at least {MIN_LEN} characters")]
    TooShort,
    #[error("the password is longer than {MAX_LEN} bytes")]
    TooLong,
}

pub fn check_policy(password: &str) -> Result<(), PolicyError> {
    let chars = password.chars().count();
    if chars < MIN_LEN {
        return Err(PolicyError::TooShort);
    }
    if password.len() > MAX_LEN {
        return Err(PolicyError::TooLong);
    }
    Ok(())
}

/// Why a password could not be hashed (never the password's fault: the policy is checked before).
#[derive(Debug, thiserror::Error)]
pub enum HashError {
    #[error("hashing failed: {0}")]
    Hash(argon2::password_hash::Error),
    #[error("hashing task failed: {0}")]
    Task(#[from] tokio::task::JoinError),
}

pub async fn hash(password: String) -> Result<String, HashError> {
    tokio::task::spawn_blocking(move || {
        Argon2::default()
            .hash_password(password.as_bytes())
            .map(|h| h.to_string())
            .map_err(HashError::Hash)
    })
    .await?
}

/// Whether `password` matches the stored PHC string (constant-time comparison inside the crate).
pub async fn verify(password: String, stored: String) -> bool {
    tokio::task::spawn_blocking(move || {
        Argon2::default()
            .verify_password(password.as_bytes(), stored.as_str())
            .is_ok()
    })
    .await
    .unwrap_or(false)
}

/// A hash of a random password, checked when the account does not exist: a sign-in with an unknown name costs
/// as long as one with a wrong password, so timing does not tell which names exist.
pub fn decoy() -> &'static str {
    static DECOY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DECOY.get_or_init(|| {
        Argon2::default()
            .hash_password(&rand::random::<[u8; 16]>())
            .map(|h| h.to_string())
            .unwrap_or_default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn hashes_are_argon2id_and_verify() {
        let h = hash("correct horse battery".into()).await.unwrap();
        assert!(h.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"), "{h}");
        assert!(verify("correct horse battery".into(), h.clone()).await);
        assert!(!verify("correct horse battery!".into(), h).await);
        assert!(!verify("x".into(), "not a hash".into()).await);
    }

    #[test]
    fn policy_bounds_the_length() {
        assert!(check_policy("short").is_err());
        assert!(check_policy(&"a".repeat(MAX_LEN + 1)).is_err());
        assert!(check_policy("twelve chars").is_ok());
    }
}
