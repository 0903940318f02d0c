//! Access-token verification, the CPU core of `GET /auth/userinfo`, against the baseline measured in the same run:
//! `jsonwebtoken::decode` with the same key and checks, which rebuilds the RSA public key from its modulus and
//! exponent on every call, as this service did before. `TokenKeys::verify` is measured on tokens it has not seen
//! (one RSA verification with the key parsed once) and on a token it has verified before (remembered).

use std::hint::black_box;
use std::time::{Duration, Instant};

use auth::config::DEVELOPMENT_JWT_KEY_PEM;
use auth::tokens::{ACCESS_TOKEN_SECONDS, AccessClaims, TokenKeys, UserClaims};
use criterion::{Criterion, criterion_group, criterion_main};
use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};

/// Distinct tokens verified by one `TokenKeys` before a fresh one (with nothing remembered) takes over.
const UNSEEN: usize = 256;

fn token(keys: &TokenKeys, jti: String) -> String {
    let iat = chrono::Utc::now().timestamp();
    keys.sign(&AccessClaims {
        iss: "POS".into(),
        iat,
        exp: iat + ACCESS_TOKEN_SECONDS,
        jti,
        aud: Some("localhost".into()),
        scope: vec!["public".into()],
        sub: "u1".into(),
        u: Some(UserClaims {
            n: "Bench".into(),
            e: "bench@localhost".into(),
            p: 0,
            r: vec![],
        }),
    })
    .unwrap()
}

fn bench(c: &mut Criterion) {
    let keys = TokenKeys::from_pem(DEVELOPMENT_JWT_KEY_PEM).unwrap();
    let unseen: Vec<String> = (0..UNSEEN).map(|i| token(&keys, format!("t{i}"))).collect();
    let token = &unseen[0];
    let jwk: Jwk = serde_json::from_value(keys.jwks()["keys"][0].clone()).unwrap();
    let decoding = DecodingKey::from_jwk(&jwk).unwrap();
    let mut validation = Validation::new(Algorithm::RS256);
    validation.set_issuer(&["POS"]);
    validation.set_required_spec_claims(&["exp", "iss", "sub"]);
    validation.validate_aud = false;

    let mut group = c.benchmark_group("verify_access_token");
    group.bench_function("jsonwebtoken_baseline", |b| {
        b.iter(|| {
            jsonwebtoken::decode::<AccessClaims>(black_box(token), &decoding, &validation).unwrap()
        })
    });
    group.bench_function("token_keys_unseen", |b| {
        b.iter_custom(|iters| {
            let mut spent = Duration::ZERO;
            let mut done = 0;
            while done < iters {
                let fresh = TokenKeys::from_pem(DEVELOPMENT_JWT_KEY_PEM).unwrap();
                let batch = (iters - done).min(UNSEEN as u64) as usize;
                let start = Instant::now();
                for token in &unseen[..batch] {
                    black_box(fresh.verify(black_box(token), "POS").unwrap());
                }
                spent += start.elapsed();
                done += batch as u64;
            }
            spent
        })
    });
    group.bench_function("token_keys_remembered", |b| {
        b.iter(|| keys.verify(black_box(token), "POS").unwrap())
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
