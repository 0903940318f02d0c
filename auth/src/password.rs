//! Password digests: bcrypt, verified off the async workers.
//!
//! bcrypt silently ignores everything past 72 bytes, so two long passwords sharing a prefix would be equal. New
//! digests use the non-truncating API, and a longer password never verifies. Verification of an unknown (or
//! deleted) account runs against a dummy digest of the same cost, so response time does not reveal which emails
//! exist. Each verification costs tens of milliseconds of CPU: it runs on the blocking pool, never on an async worker.

/// bcrypt's input limit.
pub const MAX_PASSWORD_BYTES: usize = 72;

#[derive(Debug, thiserror::Error)]
pub enum PasswordError {
    #[error("passwords are limited to {MAX_PASSWORD_BYTES} bytes")]
    TooLong,
    #[error("bcrypt: {0}")]
    Bcrypt(#[from] bcrypt::BcryptError),
}

pub fn hash(password: &str, cost: u32) -> Result<String, PasswordError> {
    if password.len() > MAX_PASSWORD_BYTES {
        return Err(PasswordError::TooLong);
    }
    Ok(bcrypt::non_truncating_hash(password, cost)?)
}

/// A digest of a random password at `cost`, made once at start for [`verify`] to burn time on.
pub fn dummy_digest(cost: u32) -> Result<String, PasswordError> {
    hash(&crate::ids::random_token(), cost)
}

/// Whether `password` matches `digest`; with no digest (unknown user), a verification against `dummy` that never
/// succeeds, taking the same time.
pub async fn verify(password: String, digest: Option<String>, dummy: std::sync::Arc<str>) -> bool {
    let checked = tokio::task::spawn_blocking(move || {
        let too_long = password.len() > MAX_PASSWORD_BYTES;
        // A too-long password still pays for one verification, against its first 72 bytes, then fails.
        let input = &password.as_bytes()[..password.len().min(MAX_PASSWORD_BYTES)];
        match digest {
            Some(digest) => bcrypt::verify(input, &digest).unwrap_or(false) && !too_long,
            None => {
                let _ = bcrypt::verify(input, &dummy);
                false
            }
        }
    })
    .await;
    checked.unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn verifies_and_refuses_long_passwords() {
        let digest = hash("correct horse", 4).unwrap();
        let dummy: std::sync::Arc<str> = dummy_digest(4).unwrap().into();
        assert!(verify("correct horse".into(), Some(digest.clone()), dummy.clone()).await);
        assert!(!verify("wrong".into(), Some(digest), dummy.clone()).await);
        assert!(!verify("correct horse".into(), None, dummy.clone()).await);
        let long = "a".repeat(73);
        assert!(matches!(hash(&long, 4), Err(PasswordError::TooLong)));
        // A legacy digest of the first 72 bytes must not accept a longer password.
        let legacy = bcrypt::hash("a".repeat(72), 4).unwrap();
        assert!(!verify(long, Some(legacy), dummy).await);
    }
}
