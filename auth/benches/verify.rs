//! Access-token verification, the CPU core of `GET /auth/userinfo`: `TokenKeys::verify` (RSA public keys parsed
//! once) against the baseline measured in the same run, `jsonwebtoken::decode` with the same key and checks (which
//! rebuilds the RSA public key from its modulus and exponent on every call, as this service did before).

use std::hint::black_box;

use auth::config::DEVELOPMENT_JWT_KEY_PEM;
use auth::tokens::{ACCESS_TOKEN_SECONDS, AccessClaims, TokenKeys, UserClaims};
use criterion::{Criterion, criterion_group, criterion_main};
use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};

fn bench(c: &mut Criterion) {
    let keys = TokenKeys::from_pem(DEVELOPMENT_JWT_KEY_PEM).unwrap();
    let iat = chrono::Utc::now().timestamp();
    let token = keys
        .sign(&AccessClaims {
            iss: "POS".into(),
            iat,
            exp: iat + ACCESS_TOKEN_SECONDS,
            jti: "bench".into(),
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
        .unwrap();
    let jwk: Jwk = serde_json::from_value(keys.jwks()["keys"][0].clone()).unwrap();
    let decoding = DecodingKey::from_jwk(&jwk).unwrap();
    let mut validation = Validation::new(Algorithm::RS256);
    validation.set_issuer(&["POS"]);
    validation.set_required_spec_claims(&["exp", "iss", "sub"]);
    validation.validate_aud = false;

    let mut group = c.benchmark_group("verify_access_token");
    group.bench_function("jsonwebtoken_baseline", |b| {
        b.iter(|| {
            jsonwebtoken::decode::<AccessClaims>(black_box(&token), &decoding, &validation).unwrap()
        })
    });
    group.bench_function("token_keys", |b| {
        b.iter(|| keys.verify(black_box(&token), "POS").unwrap())
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
