"""The Python MCP SDK's OAuth client (mcp.client.auth.OAuthClientProvider), as an agent uses it against a resource
on this host: its first request is refused (401), it finds the protected resource metadata (RFC 9728), follows it
to the authorization server metadata, registers itself (RFC 7591, a public client on a loopback redirect URI),
sends the signed-in user's browser through the authorization endpoint with PKCE, redeems the code and repeats the
request with the token. The resource is the service's own userinfo endpoint."""

import asyncio
import urllib.parse

import httpx2
import requests
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider
from mcp.shared.auth import OAuthClientMetadata

from common import BASE, EMAIL, expect, sign_in

LOOPBACK_REDIRECT = "http://127.0.0.1:43123/callback"


class MemoryStorage:
    """The SDK's TokenStorage protocol, in memory."""

    def __init__(self):
        self.tokens = None
        self.client_info = None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens):
        self.tokens = tokens

    async def get_client_info(self):
        return self.client_info

    async def set_client_info(self, client_info):
        self.client_info = client_info


async def main():
    browser = requests.Session()
    sign_in(browser)
    seen = {}

    async def redirect_handler(url):
        """The user's browser follows the authorization URL; the redirect lands on the agent's loopback listener."""
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)
        expect(query.get("code_challenge_method") == ["S256"], f"no PKCE in {url}")
        expect(url.startswith(f"{BASE}/auth/authorize?"), f"the SDK chose another authorization endpoint: {url}")
        response = browser.get(url, allow_redirects=False, timeout=10)
        expect(response.status_code == 302, f"authorize answered {response.status_code}: {response.text}")
        location = response.headers["Location"]
        expect(location.startswith(LOOPBACK_REDIRECT + "?"), f"authorize redirected elsewhere: {location}")
        seen["callback"] = urllib.parse.parse_qs(urllib.parse.urlsplit(location).query)

    async def callback_handler():
        callback = seen["callback"]
        return AuthorizationCodeResult(code=callback["code"][0], state=callback.get("state", [None])[0])

    storage = MemoryStorage()
    resource = f"{BASE}/auth/userinfo"
    auth = OAuthClientProvider(
        server_url=resource,
        client_metadata=OAuthClientMetadata(
            client_name="MCP agent",
            redirect_uris=[LOOPBACK_REDIRECT],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="none",
        ),
        storage=storage,
        redirect_handler=redirect_handler,
        callback_handler=callback_handler,
    )
    async with httpx2.AsyncClient(auth=auth, timeout=10) as client:
        response = await client.get(resource)
    expect(response.status_code == 200, f"the resource answered {response.status_code}: {response.text}")
    expect(response.json().get("email") == EMAIL, f"userinfo names someone else: {response.text}")
    info = storage.client_info
    expect(info is not None and info.client_id, "the SDK registered no client")
    expect(info.token_endpoint_auth_method == "none" and info.client_secret is None, f"not a public client: {info}")
    expect([str(u) for u in info.redirect_uris] == [LOOPBACK_REDIRECT], f"redirect URIs: {info.redirect_uris}")
    expect(storage.tokens.refresh_token, "no refresh token")
    # The client the SDK registered is a real one: the server refuses it a foreign redirect URI.
    refused = browser.get(
        f"{BASE}/auth/authorize",
        params={"response_type": "code", "client_id": info.client_id, "redirect_uri": "https://evil.example/cb"},
        allow_redirects=False,
        timeout=10,
    )
    expect(refused.status_code == 400, f"a foreign redirect URI answered {refused.status_code}")


asyncio.run(main())
