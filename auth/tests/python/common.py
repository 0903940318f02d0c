"""What the third-party client scripts share: the fixtures the Rust driver (mod.rs) hands over in the
environment, loud failures, and the few plain-HTTP steps no OAuth library covers (signing in)."""

import base64
import hashlib
import os
import sys
import urllib.parse

import requests


def env(name):
    value = os.environ.get(name)
    if not value:
        fail(f"the driver did not set {name}")
    return value


def fail(message):
    print(f"FAILED: {message}", file=sys.stderr)
    sys.exit(1)


def expect(condition, message):
    if not condition:
        fail(message)


BASE = env("AUTH_BASE")  # http://localhost:PORT, the authority the clients are registered with
OTHER_BASE = env("AUTH_OTHER_BASE")  # http://127.0.0.1:PORT, another authority on the same server
CLIENT_ID = env("CLIENT_ID")
CLIENT_SECRET = env("CLIENT_SECRET")
REDIRECT_URI = env("REDIRECT_URI")
EMAIL = env("USER_EMAIL")
PASSWORD = env("USER_PASSWORD")


def discovery(base=BASE):
    response = requests.get(f"{base}/.well-known/openid-configuration", timeout=10)
    expect(response.status_code == 200, f"discovery answered {response.status_code}: {response.text}")
    return response.json()


def sign_in(session, base=BASE):
    """A real sign-in: the session cookie lands in the requests session's jar."""
    response = session.post(f"{base}/auth/signin", json={"email": EMAIL, "password": PASSWORD}, timeout=10)
    expect(response.status_code == 202, f"sign-in answered {response.status_code}: {response.text}")
    expect(any(c.name == "_coauth_session" for c in session.cookies), "sign-in set no session cookie")


def redirect_location(response):
    """The `Location` of the authorization endpoint's 302, which must lead back to the registered redirect URI."""
    expect(response.status_code == 302, f"authorize answered {response.status_code}: {response.text}")
    location = response.headers["Location"]
    expect(location.startswith(REDIRECT_URI + "?"), f"authorize redirected elsewhere: {location}")
    return location


def expect_error(response, status, error, why):
    """An RFC 6749/6750 refusal: exactly `status`, JSON `error`, and never cacheable."""
    expect(response.status_code == status, f"{why}: expected {status}, got {response.status_code}: {response.text}")
    try:
        body = response.json()
    except ValueError:
        fail(f"{why}: the refusal is not JSON: {response.text!r}")
    expect(body.get("error") == error, f"{why}: expected error {error!r}, got {body}")
    expect(response.headers.get("Cache-Control") == "no-store", f"{why}: Cache-Control is {response.headers.get('Cache-Control')!r}")


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def pkce_pair():
    """A fresh RFC 7636 verifier and its S256 challenge."""
    verifier = b64url(os.urandom(32))
    return verifier, b64url(hashlib.sha256(verifier.encode()).digest())


def authorization_code(session, base, client_id, challenge, scope="openid public"):
    """The code the signed-in `session` is granted for `client_id` (PKCE S256 with `challenge`)."""
    params = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": REDIRECT_URI,
        "scope": scope,
        "state": b64url(os.urandom(8)),
        "code_challenge": challenge,
        "code_challenge_method": "S256",
    }
    location = redirect_location(session.get(f"{base}/auth/authorize", params=params, allow_redirects=False, timeout=10))
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(location).query)
    expect(query.get("state") == [params["state"]], f"state not echoed: {location}")
    return query["code"][0]


def code_flow_tokens(base=BASE, client_id=CLIENT_ID, secret=CLIENT_SECRET):
    """Signs in and runs the code flow by hand (plain requests): the signed-in session and the token answer."""
    session = requests.Session()
    sign_in(session, base)
    verifier, challenge = pkce_pair()
    code = authorization_code(session, base, client_id, challenge)
    response = requests.post(
        f"{base}/auth/token",
        data={"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT_URI, "code_verifier": verifier},
        auth=(client_id, secret),
        timeout=10,
    )
    expect(response.status_code == 200, f"code redemption answered {response.status_code}: {response.text}")
    return session, response.json()
