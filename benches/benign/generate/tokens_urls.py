"""tokens-and-urls.txt: tokens, identifiers, URLs and paths in parameters, where real sites carry them:
- tracking parameters of ad and e-mail platforms on landing pages (utm_*, gclid, gbraid, wbraid, fbclid, msclkid,
  ttclid, twclid, li_fat_id, mc_cid/mc_eid (Mailchimp), _hsenc/_hsmi (HubSpot), yclid, dclid, _gl cross-domain
  linker), with _ga and consent cookies;
- OAuth 2.0 / OpenID Connect: authorization requests (response_type, scope, state, nonce, PKCE code_challenge,
  redirect_uri), callbacks (code, state, session_state, iss), token requests (grant_type, code_verifier,
  client_assertion JWT), form_post responses (id_token), refresh and revoke;
- SAML 2.0 HTTP-POST binding (SAMLResponse base64 of signed XML, RelayState) and HTTP-Redirect (SAMLRequest deflated);
- redirect and return-to URLs (next, return_to, returnUrl, redirect_uri, continue, RelayState, callback), nested
  encodings as SSO and login pages produce them;
- file paths and names in parameters (file managers, document viewers, download and thumbnail endpoints: path, file,
  dir, src, key, prefix), with spaces, Unicode and nested folders;
- base64 blobs (cursors, state, filters, encoded JSON), JWTs in headers and parameters, session ids, API keys,
  signed URLs (S3 presigned, CloudFront Policy/Signature/Key-Pair-Id, Google Cloud Storage X-Goog-*), HMAC webhook
  signatures, magic-link and password-reset tokens, unsubscribe links, pagination cursors.
"""
import base64
import random
import zlib
from urllib.parse import quote

from . import text
from .common import (Corpus, alnum, api_ref, b64url, bearer, cookie_header, email, fetch, form, form_post, hexid,
                     host, iso, jsonb, jwt, navigation, pick, qs, sdk_client, site, ts, uid, weighted)

FOLDERS = ["Documents", "Invoices/2024", "Photos/Holiday 2025", "Projekte/Angebot Müller", "Contrats & devis", "写真/旅行",
           "Отчёты/Q3", "shared/marketing/assets", "home/anna/Downloads", "Teklifler", "مستندات", "My Drive/CVs (final)"]
FILES = ["report.pdf", "Q3 results (final).xlsx", "IMG_2024-11-02_14-33-07.jpg", "contract_v2.docx", "facture n°4821.pdf",
         "Präsentation.pptx", "notes.md", "логотип.svg", "backup-2025-01-14.tar.gz", "README.txt", "photo (1).heic",
         "Lebenslauf_Jürgen_Weiß.pdf", "data.csv", "スクリーンショット 2025-01-10.png", "plan & budget.ods"]


def landing(rng, c):
    hst = host(rng, "www")
    path = pick(rng, ["/", "/sale", "/products/" + str(rng.randint(1, 9999)), "/blog/" + alnum(rng, 8).lower(), "/de/angebote", "/landing/black-friday"])
    q = []
    src = pick(rng, ["google", "facebook", "bing", "newsletter", "tiktok", "linkedin", "instagram", "twitter"])
    q += [("utm_source", src), ("utm_medium", pick(rng, ["cpc", "email", "social", "paid_social", "display", "referral"])),
          ("utm_campaign", pick(rng, ["bf_2025", "spring-sale|DE|search", "newsletter_2025-01-14", "brand (exact)", "retargeting_30d", "Soldes d'hiver"]))]
    if rng.random() < 0.5:
        q += [("utm_content", pick(rng, ["hero_cta", "ad-variant-b", "text link", "carousel_3"])), ("utm_term", text.search_query(rng))]
    if rng.random() < 0.5:
        q.append(("utm_id", str(rng.randint(10 ** 9, 10 ** 11))))
    clid = {"google": ("gclid", "Cj0KCQiA" + alnum(rng, 80) + "_BwE"), "facebook": ("fbclid", "IwAR" + alnum(rng, 60)),
            "instagram": ("fbclid", "PAZXh0bgNhZW0CMTEAAa" + alnum(rng, 50) + "_aem_" + alnum(rng, 22)),
            "bing": ("msclkid", hexid(rng, 32)), "tiktok": ("ttclid", alnum(rng, 40)), "linkedin": ("li_fat_id", uid(rng)),
            "twitter": ("twclid", alnum(rng, 25))}.get(src)
    if clid:
        q.append(clid)
    if src == "google" and rng.random() < 0.4:
        q += [("gad_source", "1"), ("gbraid", "0AAAAA" + alnum(rng, 30)), ("wbraid", alnum(rng, 40))]
    if src == "newsletter":
        q += pick(rng, [[("mc_cid", hexid(rng, 10)), ("mc_eid", hexid(rng, 10))],
                        [("_hsenc", "p2ANqtz-" + alnum(rng, 80)), ("_hsmi", str(rng.randint(10 ** 8, 10 ** 9)))],
                        [("sfmc_id", str(rng.randint(10 ** 6, 10 ** 8))), ("cmpid", "EM_" + alnum(rng, 6))]])
    if rng.random() < 0.2:
        q.append(("_gl", f"1*{alnum(rng, 6).lower()}*_gcl_au*{b64url(rng.randbytes(24))}*_ga*{b64url(rng.randbytes(18))}*_ga_{alnum(rng, 10)}*{b64url(rng.randbytes(40))}"))
    rng.shuffle(q)
    ref = pick(rng, ["https://www.google.com/", "https://l.facebook.com/", "https://t.co/" + alnum(rng, 10), None, "https://www.bing.com/",
                     "https://mail.google.com/", "android-app://com.google.android.gm/"])
    c.add("GET", path + "?" + qs(q), navigation(rng, hst, referer=ref if ref and ref.startswith("http") else None,
                                              cookie=cookie_header(rng), site="cross-site" if ref else "none"))


def oauth(rng, c):
    s = site(rng)
    auth_host = pick(rng, [f"auth.{s}", f"login.{s}", "accounts.example.com", f"{alnum(rng, 8).lower()}.eu.auth0.com",
                           "login.microsoftonline.example", f"sso.{s}"])
    app = f"https://app.{s}"
    redirect = pick(rng, [f"{app}/auth/callback", f"{app}/api/auth/callback/{pick(rng, ['google', 'azure-ad', 'okta'])}",
                          f"com.example.{alnum(rng, 5).lower()}:/oauth2redirect", "http://localhost:3000/callback"])
    kind = rng.randrange(5)
    if kind == 0:
        verifier = b64url(rng.randbytes(32))
        import hashlib
        q = [("response_type", "code"), ("client_id", pick(rng, [uid(rng), alnum(rng, 32), f"{rng.randint(10 ** 11, 10 ** 12)}-{alnum(rng, 32).lower()}.apps.example.com"])),
             ("redirect_uri", redirect), ("scope", pick(rng, ["openid profile email", "openid offline_access https://graph.example.com/User.Read", "read:user repo"])),
             ("state", b64url(jsonb({"returnTo": f"/{pick(rng, ['dashboard', 'settings/billing', 'checkout?step=2'])}", "nonce": alnum(rng, 16)}))),
             ("nonce", alnum(rng, 32)), ("code_challenge", b64url(hashlib.sha256(verifier.encode()).digest())), ("code_challenge_method", "S256")]
        if rng.random() < 0.4:
            q += [("prompt", pick(rng, ["login", "consent", "select_account", "none"])), ("ui_locales", pick(rng, ["de", "fr-CA", "ja"])),
                  ("login_hint", email(rng))]
        c.add("GET", pick(rng, ["/authorize", "/oauth2/v2.0/authorize", "/o/oauth2/v2/auth", "/protocol/openid-connect/auth"]) + "?" + qs(q),
              navigation(rng, auth_host, referer=app + "/login", cookie=cookie_header(rng), site="same-site"))
    elif kind == 1:
        q = [("code", pick(rng, [alnum(rng, 40), "4/0A" + alnum(rng, 70), "M." + alnum(rng, 3) + "_" + alnum(rng, 4) + "." + uid(rng)])),
             ("state", b64url(rng.randbytes(24))), ("scope", pick(rng, ["email profile openid https://www.googleapis.com/auth/userinfo.email", "openid"])),
             ("authuser", "0"), ("prompt", "none")]
        if rng.random() < 0.3:
            q += [("session_state", uid(rng)), ("iss", f"https://{auth_host}/")]
        path = "/" + redirect.split("/", 3)[-1] if redirect.startswith("http") else "/auth/callback"
        c.add("GET", path + "?" + qs(q[:rng.randint(2, len(q))]), navigation(rng, "app." + s, referer=f"https://{auth_host}/", cookie=cookie_header(rng), site="cross-site"))
    elif kind == 2:
        fields = [("grant_type", "authorization_code"), ("code", alnum(rng, 40)), ("redirect_uri", redirect), ("code_verifier", b64url(rng.randbytes(32))),
                  ("client_id", alnum(rng, 32))]
        if rng.random() < 0.5:
            fields += [("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"), ("client_assertion", jwt(rng))]
        else:
            fields.append(("client_secret", alnum(rng, 40)))
        c.add("POST", pick(rng, ["/oauth/token", "/oauth2/v2.0/token", "/token", "/protocol/openid-connect/token"]),
              [("Host", auth_host)] + sdk_client(rng) + [("Content-Type", "application/x-www-form-urlencoded")], form(fields))
    elif kind == 3:
        fields = [("id_token", jwt(rng)), ("state", b64url(rng.randbytes(24))), ("session_state", f"{uid(rng)}.{alnum(rng, 10)}")]
        if rng.random() < 0.5:
            fields.insert(0, ("code", alnum(rng, 60)))
        c.add("POST", "/signin-oidc", form_post(rng, "app." + s, f"https://{auth_host}/", "application/x-www-form-urlencoded", cookie=cookie_header(rng)), form(fields))
    else:
        fields = pick(rng, [[("grant_type", "refresh_token"), ("refresh_token", pick(rng, [alnum(rng, 64), "v1." + b64url(rng.randbytes(90)), jwt(rng)])),
                             ("client_id", alnum(rng, 32)), ("scope", "openid offline_access")],
                            [("token", alnum(rng, 64)), ("token_type_hint", "refresh_token")]])
        h, ref = api_ref(rng, "auth", "app")
        c.add("POST", pick(rng, ["/oauth/token", "/oauth/revoke"]), fetch(rng, h, ref, content_type="application/x-www-form-urlencoded"), form(fields))


def saml(rng, c):
    s = site(rng)
    now = iso(rng)
    user = email(rng)
    xml = (f'<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" '
           f'ID="_{hexid(rng, 40)}" Version="2.0" IssueInstant="{now}" Destination="https://app.{s}/saml/acs" InResponseTo="_{hexid(rng, 32)}">'
           f'<saml:Issuer>https://idp.{pick(rng, ["example.com", "example.org"])}/saml2</saml:Issuer><samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>'
           f'<saml:Assertion ID="_{hexid(rng, 40)}" IssueInstant="{now}" Version="2.0"><saml:Issuer>https://idp.example.com/saml2</saml:Issuer>'
           f'<ds:Signature xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:SignedInfo><ds:CanonicalizationMethod Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"/>'
           f'<ds:SignatureMethod Algorithm="http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"/><ds:Reference URI="#_{hexid(rng, 40)}"><ds:DigestValue>{base64.b64encode(rng.randbytes(32)).decode()}</ds:DigestValue></ds:Reference></ds:SignedInfo>'
           f'<ds:SignatureValue>{base64.b64encode(rng.randbytes(256)).decode()}</ds:SignatureValue><ds:KeyInfo><ds:X509Data><ds:X509Certificate>{base64.b64encode(rng.randbytes(rng.randint(600, 900))).decode()}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></ds:Signature>'
           f'<saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">{user}</saml:NameID></saml:Subject>'
           f'<saml:AttributeStatement><saml:Attribute Name="displayName"><saml:AttributeValue>{text.name(rng)}</saml:AttributeValue></saml:Attribute>'
           f'<saml:Attribute Name="groups"><saml:AttributeValue>{pick(rng, ["Engineering", "Sales EMEA", "R&amp;D"])}</saml:AttributeValue></saml:Attribute></saml:AttributeStatement>'
           f'</saml:Assertion></samlp:Response>')
    if rng.random() < 0.7:
        fields = [("SAMLResponse", base64.b64encode(xml.encode()).decode()), ("RelayState", pick(rng, [f"https://app.{s}/dashboard?tab=reports", alnum(rng, 40), "/"]))]
        c.add("POST", pick(rng, ["/saml/acs", "/sso/saml2/acs", "/auth/saml/callback", "/Shibboleth.sso/SAML2/POST"]),
              form_post(rng, "app." + s, "https://idp.example.com/", "application/x-www-form-urlencoded", cookie=cookie_header(rng)), form(fields))
    else:
        req = (f'<samlp:AuthnRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" ID="_{hexid(rng, 32)}" Version="2.0" IssueInstant="{now}" '
               f'AssertionConsumerServiceURL="https://app.{s}/saml/acs"><saml:Issuer xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion">https://app.{s}</saml:Issuer></samlp:AuthnRequest>')
        comp = zlib.compressobj(9, zlib.DEFLATED, -15)
        deflated = comp.compress(req.encode()) + comp.flush()
        q = [("SAMLRequest", base64.b64encode(deflated).decode()), ("RelayState", f"https://app.{s}/"), ("SigAlg", "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"),
             ("Signature", base64.b64encode(rng.randbytes(256)).decode())]
        c.add("GET", "/saml2/idp/SSO?" + qs(q), navigation(rng, "idp.example.com", referer=f"https://app.{s}/login", site="cross-site"))


def redirects(rng, c):
    s = site(rng)
    hst = pick(rng, [f"www.{s}", f"account.{s}", f"login.{s}"])
    inner = pick(rng, [f"https://www.{s}/checkout?step=payment&cart={uid(rng)}", f"/account/orders/{rng.randint(1, 99999)}?tab=returns#item-3",
                       f"https://app.{s}/dashboard/reports?from=2025-01-01&to=2025-01-31&group=week", "/", f"/{pick(rng, ['de', 'fr', 'ja'])}/wishlist",
                       f"https://shop.{s}/search?q={quote(text.search_query(rng))}", f"https://help.{s}/hc/en-us/articles/{rng.randint(10 ** 9, 10 ** 10)}"])
    if rng.random() < 0.2:  # a redirect inside a redirect, as SSO chains build them
        inner = f"https://auth.{s}/login?return_to=" + quote(inner, safe="")
    param = pick(rng, ["next", "return_to", "returnUrl", "redirect", "redirect_uri", "continue", "ReturnUrl", "goto", "callback", "dest", "from", "r"])
    if rng.random() < 0.5:
        c.add("GET", pick(rng, ["/login", "/signin", "/logout", "/auth/sso", "/account/login", "/Account/Login"]) + "?" + qs([(param, inner)]),
              navigation(rng, hst, referer=f"https://www.{s}/", cookie=cookie_header(rng), site="same-site"))
    else:
        fields = [("email", email(rng)), ("password", alnum(rng, 12) + pick(rng, ["!", "#", "%", "&", "'"])), (param, inner), ("remember", "1"),
                  ("csrf_token", alnum(rng, 43))]
        c.add("POST", "/login", form_post(rng, hst, f"https://{hst}/login?{param}={quote(inner, safe='')}", "application/x-www-form-urlencoded",
                                          cookie=cookie_header(rng)), form(fields))


def file_paths(rng, c):
    hst, ref = api_ref(rng, pick(rng, ["files", "drive", "app", "cdn"]), pick(rng, ["app", "drive"]))
    folder, fname = pick(rng, FOLDERS), pick(rng, FILES)
    kind = rng.randrange(6)
    if kind == 0:
        q = [("path", f"/{folder}/{fname}"), ("download", pick(rng, ["1", "true"]))]
    elif kind == 1:
        q = [("dir", f"/{folder}"), ("sort", pick(rng, ["name", "-mtime", "size"])), ("view", pick(rng, ["grid", "list"]))]
    elif kind == 2:
        q = [("file", f"{folder}/{fname}"), ("page", str(rng.randint(1, 40))), ("zoom", pick(rng, ["page-width", "100", "auto"]))]
    elif kind == 3:
        q = [("src", f"/uploads/{rng.randint(2019, 2025)}/{rng.randint(1, 12):02d}/{fname}"), ("w", str(pick(rng, [160, 320, 640, 1280]))), ("fit", "cover"), ("q", "80")]
    elif kind == 4:
        q = [("prefix", f"{folder}/"), ("delimiter", "/"), ("max-keys", "1000"), ("list-type", "2"), ("continuation-token", base64.b64encode(rng.randbytes(60)).decode())]
    else:
        q = [("key", f"tenants/{uid(rng)}/{folder}/{fname}"), ("versionId", alnum(rng, 32))]
    target = pick(rng, ["/api/files", "/viewer", "/download", "/_next/image", "/thumb.php", "/", "/api/v2/objects", "/remote.php/webdav" + quote(f"/{folder}/{fname}")])
    c.add("GET", target + "?" + qs(q), fetch(rng, hst, ref, accept="*/*", auth=bearer(rng) if rng.random() < 0.5 else None, cookie=cookie_header(rng)))


def signed_urls(rng, c):
    kind = rng.randrange(3)
    name = quote(pick(rng, FILES))
    b = navigation(rng, "x", site="cross-site")
    if kind == 0:
        day = pick(rng, ["20250114", "20250602"])
        q = [("X-Amz-Algorithm", "AWS4-HMAC-SHA256"), ("X-Amz-Credential", f"AKIA{alnum(rng, 16, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567')}/{day}/us-east-1/s3/aws4_request"),
             ("X-Amz-Date", f"{day}T093000Z"), ("X-Amz-Expires", str(pick(rng, [300, 3600, 604800]))), ("X-Amz-SignedHeaders", "host"),
             ("response-content-disposition", f"attachment; filename=\"{pick(rng, FILES)}\""), ("X-Amz-Signature", hexid(rng, 64))]
        hst, path = f"{pick(rng, ['assets', 'exports', 'invoices'])}-{alnum(rng, 6).lower()}.s3.amazonaws.com", f"/{uid(rng)}/{name}"
    elif kind == 1:
        policy = b64url(jsonb({"Statement": [{"Resource": f"https://d{alnum(rng, 12).lower()}.cloudfront.net/videos/*", "Condition": {"DateLessThan": {"AWS:EpochTime": ts(rng)}}}]}))
        q = [("Policy", policy.replace("-", "-").replace("_", "~")), ("Signature", base64.b64encode(rng.randbytes(128)).decode().replace("+", "-").replace("=", "_").replace("/", "~")),
             ("Key-Pair-Id", "K" + alnum(rng, 13).upper())]
        hst, path = f"d{alnum(rng, 12).lower()}.cloudfront.net", f"/videos/{uid(rng)}/master.m3u8"
    else:
        q = [("X-Goog-Algorithm", "GOOG4-RSA-SHA256"), ("X-Goog-Credential", f"uploader@{alnum(rng, 8).lower()}.iam.gserviceaccount.com/20250114/auto/storage/goog4_request"),
             ("X-Goog-Date", "20250114T101010Z"), ("X-Goog-Expires", "900"), ("X-Goog-SignedHeaders", "host"), ("X-Goog-Signature", hexid(rng, 512))]
        hst, path = "storage.googleapis.com", f"/{alnum(rng, 8).lower()}-media/{name}"
    h = [(k, v) for k, v in b if k not in ("Host", "Cookie")]
    c.add("GET", path + "?" + qs(q), [("Host", hst)] + h)


def tokens_misc(rng, c):
    s = site(rng)
    kind = rng.randrange(8)
    if kind == 0:  # magic link / password reset / e-mail verification
        q = [("token", pick(rng, [alnum(rng, 64), b64url(rng.randbytes(48)), jwt(rng, alg="HS256")])), ("email", email(rng))]
        c.add("GET", pick(rng, ["/auth/magic", "/password/reset", "/verify-email", "/invite/accept"]) + "?" + qs(q[:rng.randint(1, 2)]),
              navigation(rng, f"app.{s}", referer=pick(rng, [None, "https://mail.google.com/"]), site="cross-site"))
    elif kind == 1:  # unsubscribe (RFC 8058 one-click)
        c.add("POST", f"/unsubscribe/{b64url(rng.randbytes(32))}?uid={uid(rng)}&list={rng.randint(1, 99)}",
              [("Host", f"mail.{s}"), ("User-Agent", pick(rng, ["Mozilla/5.0 (compatible; Google-One-Click-Unsubscribe)", "Yahoo-Mail-Unsubscribe/1.0"])),
               ("Content-Type", "application/x-www-form-urlencoded")], "List-Unsubscribe=One-Click")
    elif kind == 2:  # cursor pagination with base64 JSON cursors
        cursor = base64.b64encode(jsonb({"id": rng.randint(1, 10 ** 7), "created_at": iso(rng), "dir": "next"})).decode()
        hst, ref = api_ref(rng)
        c.add("GET", f"/v1/{pick(rng, ['orders', 'events', 'messages', 'notifications'])}?" + qs([("limit", "50"), ("cursor", cursor),
                                                                                                 ("starting_after", pick(rng, ["ch_", "cus_", "in_"]) + alnum(rng, 24))][:rng.randint(2, 3)]),
              fetch(rng, hst, ref, auth=bearer(rng)))
    elif kind == 3:  # state/filters as base64 JSON in the URL (dashboards, shareable views)
        state = {"filters": [{"field": pick(rng, ["country", "status", "plan"]), "op": pick(rng, ["in", "eq"]), "value": pick(rng, [["DE", "FR"], "active"])}],
                 "range": {"from": iso(rng), "to": iso(rng)}, "groupBy": pick(rng, ["day", "week"]), "title": text.title(rng)}
        c.add("GET", f"/dashboards/{uid(rng)}?" + qs([("state", b64url(jsonb(state))), ("embed", pick(rng, ["0", "1"]))]),
              navigation(rng, f"app.{s}", cookie=cookie_header(rng)))
    elif kind == 4:  # webhook with HMAC signatures
        payload = jsonb({"id": uid(rng), "type": pick(rng, ["order.created", "invoice.paid", "member.added"]), "created_at": iso(rng),
                         "data": {"email": email(rng), "amount": rng.randint(1, 99999), "note": text.sentence(rng)}})
        sig_h = pick(rng, [("X-Hub-Signature-256", "sha256=" + hexid(rng, 64)), ("X-Shopify-Hmac-Sha256", base64.b64encode(rng.randbytes(32)).decode()),
                           ("Stripe-Signature", f"t={ts(rng)},v1={hexid(rng, 64)}"), ("X-Slack-Signature", "v0=" + hexid(rng, 64)),
                           ("Svix-Signature", "v1," + base64.b64encode(rng.randbytes(32)).decode())])
        c.add("POST", pick(rng, ["/webhooks/incoming", "/api/hooks/" + uid(rng), "/integrations/shopify/orders"]),
              [("Host", f"api.{s}")] + sdk_client(rng) + [("Content-Type", "application/json"), sig_h, ("X-Request-Id", uid(rng))], payload)
    elif kind == 5:  # API keys and tokens in query strings (maps, embeds, feeds)
        q = pick(rng, [[("key", "AIzaSy" + alnum(rng, 33)), ("libraries", "places"), ("callback", "initMap"), ("language", "de")],
                       [("access_token", "pk.eyJ1Ijoi" + alnum(rng, 60) + "." + alnum(rng, 22))],
                       [("apikey", hexid(rng, 32)), ("format", "json")], [("token", hexid(rng, 40)), ("feed", "rss")]])
        c.add("GET", pick(rng, ["/maps/api/js", "/styles/v1/streets/tiles/256/12/2145/1434", "/api/v1/feed", "/calendar/ics"]) + "?" + qs(q),
              fetch(rng, f"api.{s}", f"https://www.{s}/", accept="*/*"))
    elif kind == 6:  # session ids in the URL (legacy Java / PHP apps)
        c.add("GET", pick(rng, [f"/shop/cart.do;jsessionid={hexid(rng, 32).upper()}?action=view", f"/index.php?PHPSESSID={alnum(rng, 26).lower()}&page=home",
                                f"/app/(S({alnum(rng, 24).lower()}))/Default.aspx"]),
              navigation(rng, f"www.{s}", cookie=None))
    else:  # base64 blobs in form fields (signed forms, encrypted view state)
        fields = [("__VIEWSTATE", base64.b64encode(rng.randbytes(rng.randint(200, 3000))).decode()), ("__VIEWSTATEGENERATOR", hexid(rng, 8).upper()),
                  ("__EVENTVALIDATION", base64.b64encode(rng.randbytes(rng.randint(60, 400))).decode()), ("ctl00$MainContent$txtSearch", text.search_query(rng)),
                  ("ctl00$MainContent$btnSearch", "Search")]
        c.add("POST", "/Search.aspx", form_post(rng, f"www.{s}", f"https://www.{s}/Search.aspx", "application/x-www-form-urlencoded", cookie=cookie_header(rng)), form(fields))


def build(n=2500, seed=0x70CE):
    rng = random.Random(seed)
    c = Corpus("tokens-and-urls")
    makers = [(6, landing), (4, oauth), (1, saml), (3, redirects), (3, file_paths), (2, signed_urls), (4, tokens_misc)]
    for _ in range(n):
        weighted(rng, makers)(rng, c)
    return c
