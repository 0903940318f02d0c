"""Authlib's OAuth2Session drives the authorization code flow with PKCE S256: a browser (a requests session)
signs in and follows the authorization URL Authlib made to the 302, whose Location Authlib redeems; then
Authlib refreshes and revokes, after which introspection says inactive and the refresh token is refused."""

import requests
from authlib.common.security import generate_token
from authlib.integrations.base_client import OAuthError
from authlib.integrations.requests_client import OAuth2Session

from common import CLIENT_ID, CLIENT_SECRET, EMAIL, REDIRECT_URI, discovery, expect, redirect_location, sign_in

meta = discovery()
client = OAuth2Session(
    CLIENT_ID,
    CLIENT_SECRET,
    scope="openid public",
    redirect_uri=REDIRECT_URI,
    code_challenge_method="S256",
    token_endpoint_auth_method="client_secret_basic",
)
browser = requests.Session()
sign_in(browser)
verifier = generate_token(64)
url, state = client.create_authorization_url(meta["authorization_endpoint"], code_verifier=verifier, nonce=generate_token(16))
expect("code_challenge_method=S256" in url, f"Authlib did not ask for S256: {url}")
location = redirect_location(browser.get(url, allow_redirects=False, timeout=10))
token = client.fetch_token(meta["token_endpoint"], authorization_response=location, state=state, code_verifier=verifier)
for field in ("access_token", "refresh_token", "id_token"):
    expect(field in token, f"the token answer lacks {field}: {token}")
expect(token["token_type"] == "Bearer" and token["scope"] == "openid public", f"token answer: {token}")

me = client.get(meta["userinfo_endpoint"])
expect(me.status_code == 200, f"userinfo answered {me.status_code}: {me.text}")
expect(me.json()["email"] == EMAIL, f"userinfo: {me.json()}")

old_refresh = token["refresh_token"]
refreshed = client.refresh_token(meta["token_endpoint"], refresh_token=old_refresh)
expect(refreshed["refresh_token"] != old_refresh, "the refresh token was not rotated")
expect(refreshed["scope"] == "openid public", f"the refresh changed the scope: {refreshed}")
expect(client.get(meta["userinfo_endpoint"]).status_code == 200, "the refreshed access token is refused")

revoked = client.revoke_token(meta["revocation_endpoint"], token=refreshed["refresh_token"], token_type_hint="refresh_token")
expect(revoked.status_code == 200, f"revoke answered {revoked.status_code}: {revoked.text}")
for kind in ("access_token", "refresh_token"):
    described = client.introspect_token(meta["introspection_endpoint"], token=refreshed[kind])
    expect(described.status_code == 200, f"introspect answered {described.status_code}: {described.text}")
    expect(described.json() == {"active": False}, f"revoked {kind} still described as {described.json()}")
try:
    client.refresh_token(meta["token_endpoint"], refresh_token=refreshed["refresh_token"])
    expect(False, "a revoked refresh token was accepted")
except OAuthError as error:
    expect(error.error == "invalid_grant", f"a revoked refresh token: {error.error} instead of invalid_grant")
print("ok: Authlib code flow + PKCE, refresh, revoke")
