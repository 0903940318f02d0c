//! The second factor: time-based one-time passwords (RFC 6238: HMAC-SHA-1, 30-second steps, 6 digits, the
//! parameters every authenticator app uses by default) and single-use recovery codes.
//!
//! A code is accepted for the step it belongs to and the one before and after (clocks drift; RFC 6238 §5.2), and
//! never twice: the caller stores the last step used and passes it back. Recovery codes are 7 random bytes in
//! base32 (56 bits, 12 characters), kept as SHA-256 hashes: their entropy makes a slow hash unnecessary.
use data_encoding::BASE32_NOPAD;
use sha1::Sha1;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use totp_hmac::{Hmac, KeyInit, Mac};

/// Seconds per step (RFC 6238's default, what apps assume).
const STEP: i64 = 30;
const DIGITS: u32 = 6;
/// Steps either side of now that are accepted.
const SKEW: i64 = 1;
/// Recovery codes made at enrolment.
pub const RECOVERY_CODES: usize = 10;

/// A new secret: 20 random bytes (RFC 4226 §4 recommends 160 bits), as base32 without padding.
pub fn new_secret() -> String {
    BASE32_NOPAD.encode(&rand::random::<[u8; 20]>())
}

/// The `otpauth://` URI authenticator apps read (from a QR code or pasted).
pub fn uri(secret: &str, username: &str) -> String {
    let label: String = format!("waf:{username}")
        .bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'.' | b'_' | b'-' | b':' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect();
    format!(
        "otpauth://totp/{label}?secret={secret}&issuer=waf&algorithm=SHA1&digits={DIGITS}&period={STEP}"
    )
}

/// The code of `step` for a base32 `secret` (`None`: not a valid secret).
fn code_at(secret: &str, step: i64) -> Option<u32> {
    let key = BASE32_NOPAD.decode(secret.as_bytes()).ok()?;
    let mut mac = Hmac::<Sha1>::new_from_slice(&key).ok()?;
    mac.update(&step.to_be_bytes());
    let digest = mac.finalize().into_bytes();
    // Dynamic truncation (RFC 4226 §5.3).
    let offset = usize::from(digest[digest.len() - 1] & 0x0f);
    let bin = u32::from_be_bytes([
        digest[offset] & 0x7f,
        digest[offset + 1],
        digest[offset + 2],
        digest[offset + 3],
    ]);
    Some(bin % 10u32.pow(DIGITS))
}

/// The step `code` belongs to, when it is valid at Unix time `now` and later than `last_used` (replay).
pub fn verify(secret: &str, code: &str, now: i64, last_used: Option<i64>) -> Option<i64> {
    let code = code.trim();
    if code.len() != DIGITS as usize || !code.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let current = now.div_euclid(STEP);
    (current - SKEW..=current + SKEW)
        .filter(|step| last_used.is_none_or(|last| *step > last))
        .find(|step| {
            code_at(secret, *step).is_some_and(|expected| {
                let expected = format!("{expected:0width$}", width = DIGITS as usize);
                bool::from(expected.as_bytes().ct_eq(code.as_bytes()))
            })
        })
}

/// New recovery codes, as shown once to the admin.
pub fn recovery_codes() -> Vec<String> {
    (0..RECOVERY_CODES)
        .map(|_| {
            BASE32_NOPAD
                .encode(&rand::random::<[u8; 7]>())
                .to_ascii_lowercase()
        })
        .collect()
}

/// How a recovery code is stored (and looked up): its SHA-256, hex.
pub fn recovery_hash(code: &str) -> String {
    hex::encode(Sha256::digest(code.trim().to_ascii_lowercase().as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 6238 appendix B (SHA-1 key "12345678901234567890"), the last 6 of its 8 digits.
    #[test]
    fn rfc_6238_vectors() {
        let secret = BASE32_NOPAD.encode(b"12345678901234567890");
        for (time, code) in [
            (59, "287082"),
            (1111111109, "081804"),
            (1234567890, "005924"),
            (2000000000, "279037"),
        ] {
            assert_eq!(verify(&secret, code, time, None), Some(time / 30), "{time}");
        }
        // One step of drift either way, not two; a code used once is not taken again.
        assert!(verify(&secret, "287082", 59 + 30, None).is_some());
        assert!(verify(&secret, "287082", 59 + 60, None).is_none());
        assert!(verify(&secret, "287082", 59, Some(1)).is_none());
        assert!(verify(&secret, "28708", 59, None).is_none());
    }

    #[test]
    fn recovery_codes_are_random_and_hashed_case_blind() {
        let codes = recovery_codes();
        assert_eq!(codes.len(), RECOVERY_CODES);
        assert_ne!(codes[0], codes[1]);
        assert_eq!(
            recovery_hash(&codes[0]),
            recovery_hash(&codes[0].to_uppercase())
        );
        assert!(uri("JBSWY3DP", "a b").starts_with("otpauth://totp/waf:a%20b?secret=JBSWY3DP"));
    }
}
