"""requests-oauthlib (on oauthlib) drives the same authorization code flow with PKCE S256, independently of
Authlib: a browser signs in and follows the authorization URL, the client redeems the code, refreshes and
revokes; then the family's access token and the revoked refresh token are refused."""

import requests
from oauthlib.oauth2.rfc6749.errors import InvalidGrantError
from requests.auth import HTTPBasicAuth
from requests_oauthlib import OAuth2Session

from common import CLIENT_ID, CLIENT_SECRET, EMAIL, REDIRECT_URI, discovery, expect, redirect_location, sign_in

meta = discovery()
client = OAuth2Session(CLIENT_ID, redirect_uri=REDIRECT_URI, scope=["openid", "public"], pkce="S256")
browser = requests.Session()
sign_in(browser)
url, state = client.authorization_url(meta["authorization_endpoint"])
expect("code_challenge_method=S256" in url, f"requests-oauthlib did not ask for S256: {url}")
location = redirect_location(browser.get(url, allow_redirects=False, timeout=10))
basic = HTTPBasicAuth(CLIENT_ID, CLIENT_SECRET)
token = client.fetch_token(meta["token_endpoint"], authorization_response=location, auth=basic)
for field in ("access_token", "refresh_token", "id_token"):
    expect(field in token, f"the token answer lacks {field}: {token}")
expect(token["scope"] == ["openid", "public"], f"scope: {token['scope']}")

me = client.get(meta["userinfo_endpoint"])
expect(me.status_code == 200 and me.json()["email"] == EMAIL, f"userinfo answered {me.status_code}: {me.text}")

old_refresh = token["refresh_token"]
refreshed = client.refresh_token(meta["token_endpoint"], refresh_token=old_refresh, auth=basic)
expect(refreshed["refresh_token"] != old_refresh, "the refresh token was not rotated")
expect(client.get(meta["userinfo_endpoint"]).status_code == 200, "the refreshed access token is refused")

revoked = requests.post(
    meta["revocation_endpoint"],
    data={"token": refreshed["refresh_token"], "token_type_hint": "refresh_token"},
    auth=basic,
    timeout=10,
)
expect(revoked.status_code == 200, f"revoke answered {revoked.status_code}: {revoked.text}")
after = requests.get(meta["userinfo_endpoint"], headers={"Authorization": f"Bearer {refreshed['access_token']}"}, timeout=10)
expect(after.status_code == 401, f"the access token of a revoked family answered {after.status_code}")
try:
    client.refresh_token(meta["token_endpoint"], refresh_token=refreshed["refresh_token"], auth=basic)
    expect(False, "a revoked refresh token was accepted")
except InvalidGrantError:
    pass
print("ok: requests-oauthlib code flow + PKCE, refresh, revoke")
