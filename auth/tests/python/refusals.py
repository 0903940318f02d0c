"""What the server must refuse, each with its exact status and RFC 6749 / RFC 6750 error code: redirect URIs
that are not exactly a registered one, missing or wrong PKCE verifiers, code replay, refresh replay after the
grace window, a wrong client secret, `alg: none` and HS256 forgeries, expired tokens, tokens of another
authority, and tokens after logout. Each refusal has a control beside it that the server accepts, so a refusal
for the wrong reason (say, a broken request) cannot pass."""

import hmac
import json
import time

import jwt
import requests
from cryptography.hazmat.primitives import serialization

from common import (
    BASE,
    CLIENT_ID,
    CLIENT_SECRET,
    OTHER_BASE,
    REDIRECT_URI,
    authorization_code,
    b64url,
    code_flow_tokens,
    discovery,
    env,
    expect,
    expect_error,
    pkce_pair,
    sign_in,
)

meta = discovery()
TOKEN = meta["token_endpoint"]
USERINFO = meta["userinfo_endpoint"]


def userinfo(token, base=BASE):
    return requests.get(f"{base}/auth/userinfo", headers={"Authorization": f"Bearer {token}"}, timeout=10)


def refused_at_userinfo(token, why, base=BASE):
    response = userinfo(token, base)
    expect_error(response, 401, "invalid_token", why)
    challenge = response.headers.get("WWW-Authenticate", "")
    expect(challenge.startswith("Bearer") and 'error="invalid_token"' in challenge, f"{why}: WWW-Authenticate {challenge!r}")


def accepted_at_userinfo(token, why, base=BASE):
    response = userinfo(token, base)
    expect(response.status_code == 200, f"{why}: userinfo answered {response.status_code}: {response.text}")


def post_token(data, auth=(CLIENT_ID, CLIENT_SECRET)):
    return requests.post(TOKEN, data=data, auth=auth, timeout=10)


# Redirect URIs: anything but an exact registered one is 400 invalid_request, without redirecting.
browser = requests.Session()
sign_in(browser)
verifier, challenge = pkce_pair()
for redirect in [
    REDIRECT_URI.replace("app.test", "APP.test"),
    REDIRECT_URI.upper().replace("HTTPS://", "https://"),
    REDIRECT_URI + "?next=/admin",
    REDIRECT_URI.replace("app.test", "evil.test"),
]:
    response = browser.get(
        meta["authorization_endpoint"],
        params={"response_type": "code", "client_id": CLIENT_ID, "redirect_uri": redirect, "state": "s",
                "code_challenge": challenge, "code_challenge_method": "S256"},
        allow_redirects=False,
        timeout=10,
    )
    expect(response.status_code == 400, f"redirect {redirect}: expected 400, got {response.status_code} to {response.headers.get('Location')}")
    expect("Location" not in response.headers, f"redirect {redirect}: redirected to {response.headers.get('Location')}")
    expect(response.json().get("error") == "invalid_request", f"redirect {redirect}: {response.text}")

# Redemption mistakes: none of them spends the code, which then redeems once and only once.
code = authorization_code(browser, BASE, CLIENT_ID, challenge)
redeem = {"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT_URI, "code_verifier": verifier}
other_verifier, _ = pkce_pair()
for why, data, auth, status, error in [
    ("no PKCE verifier", {k: v for k, v in redeem.items() if k != "code_verifier"}, None, 400, "invalid_grant"),
    ("wrong PKCE verifier", {**redeem, "code_verifier": other_verifier}, None, 400, "invalid_grant"),
    ("redirect URI with a query added", {**redeem, "redirect_uri": REDIRECT_URI + "?x=1"}, None, 400, "invalid_grant"),
    ("wrong client secret", redeem, (CLIENT_ID, CLIENT_SECRET + "x"), 401, "invalid_client"),
    ("unknown client", redeem, ("nobody", CLIENT_SECRET), 401, "invalid_client"),
]:
    expect_error(post_token(data, auth or (CLIENT_ID, CLIENT_SECRET)), status, error, why)
first = post_token(redeem)
expect(first.status_code == 200, f"the code was spent by a refused attempt: {first.status_code} {first.text}")
first_access = first.json()["access_token"]
accepted_at_userinfo(first_access, "the redeemed code's token")
expect_error(post_token(redeem), 400, "invalid_grant", "code replay")
refused_at_userinfo(first_access, "a token of a replayed code")

# Refresh replay: within the grace window a double submit is honoured; after it, the family is revoked.
grace = int(env("REFRESH_REPLAY_GRACE_SECONDS"))
_, tokens = code_flow_tokens()
r1 = tokens["refresh_token"]
refresh = lambda token: post_token({"grant_type": "refresh_token", "refresh_token": token})  # noqa: E731
second = refresh(r1)
expect(second.status_code == 200, f"refresh answered {second.status_code}: {second.text}")
r2 = second.json()["refresh_token"]
time.sleep(grace + 1.5)
expect_error(refresh(r1), 400, "invalid_grant", "refresh replay after the grace window")
expect_error(refresh(r2), 400, "invalid_grant", "the successor of a replayed refresh token")
refused_at_userinfo(second.json()["access_token"], "an access token of the revoked family")

# Forgeries at userinfo, built on a genuine token that is accepted as it is.
_, tokens = code_flow_tokens()
genuine = tokens["access_token"]
accepted_at_userinfo(genuine, "the genuine token")
head, payload, _ = genuine.split(".")
kid = jwt.get_unverified_header(genuine)["kid"]
none_header = b64url(json.dumps({"alg": "none", "typ": "JWT", "kid": kid}).encode())
refused_at_userinfo(f"{none_header}.{payload}.", "alg none")
refused_at_userinfo(f"{none_header}.{payload}", "alg none without a signature part")
jwk = next(k for k in requests.get(meta["jwks_uri"], timeout=10).json()["keys"] if k["kid"] == kid)
public_pem = jwt.algorithms.RSAAlgorithm.from_jwk(jwk).public_bytes(
    serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
)
hs_header = b64url(json.dumps({"alg": "HS256", "typ": "JWT", "kid": kid}).encode())
signing_input = f"{hs_header}.{payload}".encode()
mac = b64url(hmac.new(public_pem, signing_input, "sha256").digest())
refused_at_userinfo(f"{hs_header}.{payload}.{mac}", "HS256 signed with the public key")

# Expired: the genuine claims re-signed with the server's own key, once current (accepted) and once expired.
with open(env("JWT_KEY_FILE"), "rb") as f:
    private_key = serialization.load_pem_private_key(f.read(), password=None)
claims = jwt.decode(genuine, options={"verify_signature": False})
now = int(time.time())
resigned = jwt.encode({**claims, "iat": now - 5, "exp": now + 600}, private_key, algorithm="RS256", headers={"kid": kid})
accepted_at_userinfo(resigned, "the claims re-signed with the server's key")
# Ten minutes past `exp`: beyond the verifier's 60 s clock-skew leeway.
expired = jwt.encode({**claims, "iat": now - 7800, "exp": now - 600}, private_key, algorithm="RS256", headers={"kid": kid})
refused_at_userinfo(expired, "an expired token")

# Another authority's token: genuine there, refused here.
_, foreign = code_flow_tokens(OTHER_BASE, env("FOREIGN_CLIENT_ID"), env("FOREIGN_CLIENT_SECRET"))
accepted_at_userinfo(foreign["access_token"], "a token at its own authority", OTHER_BASE)
refused_at_userinfo(foreign["access_token"], "a token of another authority")

# Logout ends the tokens issued before it (last: the user's later tokens in the same second would end too).
browser, tokens = code_flow_tokens()
accepted_at_userinfo(tokens["access_token"], "a token before logout")
logout = browser.get(f"{BASE}/auth/logout", allow_redirects=False, timeout=10)
expect(logout.status_code == 302, f"logout answered {logout.status_code}: {logout.text}")
refused_at_userinfo(tokens["access_token"], "a token after logout")
expect_error(refresh(tokens["refresh_token"]), 400, "invalid_grant", "a refresh token after logout")
print("ok: every refusal has its status and error code")
