//! Random identifiers and secrets, from rand's thread-local CSPRNG (ChaCha, seeded and reseeded from the OS).

use rand::RngCore;

/// `bytes` random bytes as hex.
pub fn random_hex(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    rand::rng().fill_bytes(&mut buf);
    hex::encode(buf)
}

/// A row id: 32 hex digits (128 bits), the legacy shape of API key ids.
pub fn new_id() -> String {
    random_hex(16)
}

/// A secret or session id: 256 bits as 64 hex digits.
pub fn random_token() -> String {
    random_hex(32)
}
