"""PyJWT verifies the access and ID tokens the way a resource server and a relying party do: the JWKS found
through discovery (PyJWKClient, keyed by the token's `kid`), RS256 only, the issuer and the audience. The JWKS
`kid` must be the key's RFC 7638 thumbprint, and a token altered after signing must not verify."""

import hashlib
import json

import jwt

from common import BASE, CLIENT_ID, EMAIL, b64url, code_flow_tokens, discovery, env, expect, fail

meta = discovery()
expect(meta["jwks_uri"].startswith(BASE), f"jwks_uri {meta['jwks_uri']} is not under {BASE}")
_, tokens = code_flow_tokens()
jwks = jwt.PyJWKClient(meta["jwks_uri"], cache_keys=False)
for jwk in jwks.get_jwk_set().keys:
    fields = {name: jwk._jwk_data[name] for name in ("e", "kty", "n")}
    thumbprint = b64url(hashlib.sha256(json.dumps(fields, separators=(",", ":"), sort_keys=True).encode()).digest())
    expect(jwk.key_id == thumbprint, f"kid {jwk.key_id} is not the RFC 7638 thumbprint {thumbprint}")

checks = [
    ("access token", tokens["access_token"], env("ACCESS_ISSUER"), env("ACCESS_AUDIENCE")),
    ("ID token", tokens["id_token"], meta["issuer"], CLIENT_ID),
]
for what, token, issuer, audience in checks:
    header = jwt.get_unverified_header(token)
    expect(header.get("alg") == "RS256", f"{what}: alg {header.get('alg')}")
    expect(header.get("kid"), f"{what}: no kid in the header {header}")
    key = jwks.get_signing_key_from_jwt(token)  # raises unless the kid is in the JWKS
    claims = jwt.decode(
        token,
        key.key,
        algorithms=["RS256"],
        issuer=issuer,
        audience=audience,
        options={"require": ["iss", "aud", "sub", "iat", "exp"]},
    )
    if what == "access token":
        expect(claims["u"]["e"] == EMAIL and claims["scope"] == ["openid", "public"], f"access claims: {claims}")
    else:
        expect(claims["email"] == EMAIL, f"ID token claims: {claims}")
    head, payload, signature = token.split(".")
    altered = json.loads(jwt.utils.base64url_decode(payload))
    altered["sub"] = "someone-else"
    forged = f"{head}.{b64url(json.dumps(altered).encode())}.{signature}"
    try:
        jwt.decode(forged, key.key, algorithms=["RS256"], issuer=issuer, audience=audience)
        fail(f"{what}: an altered token verified")
    except jwt.InvalidSignatureError:
        pass
    for wrong in ({"issuer": "https://elsewhere.test"}, {"audience": "someone-else"}):
        try:
            jwt.decode(token, key.key, algorithms=["RS256"], **{"issuer": issuer, "audience": audience, **wrong})
            fail(f"{what}: verified with {wrong}")
        except (jwt.InvalidIssuerError, jwt.InvalidAudienceError):
            pass
print("ok: PyJWT verifies the access and ID tokens through discovery and JWKS")
