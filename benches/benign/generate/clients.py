"""clients.txt: the header sets real clients send, on ordinary requests of every method:
- browsers: Chrome (Windows, macOS, Linux, Android), Edge, Opera, Samsung Internet with client hints (sec-ch-ua*),
  Firefox (Windows, Linux, macOS, Android), Safari (macOS, iPhone, iPad), each in its own header order, for
  navigations, reloads (Cache-Control: max-age=0, If-None-Match, If-Modified-Since), subresources (scripts, styles,
  fonts, images with their Accept headers, Range requests for media), prefetch/prerender (Sec-Purpose), CORS
  preflights (OPTIONS with Access-Control-Request-*), fetch() calls, HEAD checks, form-less DELETEs;
- mobile apps: okhttp (Android), CFNetwork and Alamofire (iOS), Dart (Flutter), Ktor, with app-specific headers;
  the SDKs inside them posting their own events as forms with the session id they keep;
- SDKs and tools: python-requests, httpx, axios, node-fetch, undici, Go-http-client, aws-sdk-js and boto3, Stripe
  bindings, curl, wget, Java HttpClient, Apache HttpClient, Faraday, PostmanRuntime, Guzzle, .NET;
- crawlers and link previewers: Googlebot (desktop, smartphone), Bingbot, YandexBot, DuckDuckBot, Baiduspider,
  Applebot, facebookexternalhit, Twitterbot, LinkedInBot, Slackbot, Discordbot, AhrefsBot, SemrushBot, GPTBot,
  ClaudeBot, PetalBot, uptime monitors; robots.txt, sitemaps, feeds, pages;
- infrastructure in front: CDN and load-balancer headers (X-Forwarded-For/Proto/Host, Forwarded, CF-Connecting-IP,
  CF-Ray, CF-IPCountry, CloudFront-Viewer-Country, X-Amzn-Trace-Id, Via, True-Client-IP, traceparent/tracestate,
  X-Request-ID, X-B3-*), with realistic cookies (consent strings, _ga, __cf_bm, session JWTs).
"""
import random

from . import text
from .common import (CRAWLERS, Corpus, alnum, api_ref, app_client, bearer, browser, cookie_header, fetch, hexid, host,
                     jsonb, navigation, pick, qs, sdk_client, site, ts, uid, weighted)

PAGE_PATHS = ["/", "/about", "/pricing", "/products/{n}", "/p/{slug}-{n}", "/blog/{slug}", "/blog/page/{small}", "/category/{slug}",
              "/de/produkte/{slug}", "/fr/boutique/", "/ja/news/{n}", "/account", "/orders/{n}", "/cart", "/help/{slug}", "/docs/v2/{slug}",
              "/search?q={q}", "/tag/{slug}?page={small}", "/u/{user}", "/events/2025/{small}/{slug}", "/index.php?route=product/product&product_id={n}",
              "/item.aspx?id={n}&ref=home", "/wiki/Main_Page", "/shop/{slug}/?orderby=price-desc", "/l/{hex}"]
SLUGS = ["winter-jacket", "how-we-work", "release-notes-2-4", "summer-sale", "faq", "returns", "gift-cards", "getting-started",
         "kitchen-knives", "privacy-policy", "careers", "team", "bio-kaffee", "chaussures-homme", "camisetas", "naczynia"]
ASSETS = [("script", "/static/js/main.{hex}.js", "*/*"), ("style", "/assets/app-{hex}.css", "text/css,*/*;q=0.1"),
          ("font", "/fonts/Inter-{w}.woff2", "*/*"), ("image", "/images/{slug}-{n}.webp", None), ("image", "/media/catalog/product/{h1}/{h2}/{slug}.jpg", None),
          ("image", "/favicon.ico", None), ("script", "/_next/static/chunks/pages/{slug}-{hex}.js", "*/*"), ("manifest", "/site.webmanifest", "*/*"),
          ("video", "/videos/{slug}.mp4", "*/*"), ("style", "https://fonts.googleapis.com/css2?family=Inter:wght@400;600&display=swap", "text/css,*/*;q=0.1")]
ACCEPT_IMG = {"chrome": "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8",
              "firefox": "image/avif,image/webp,image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.5",
              "safari": "image/webp,image/avif,image/jxl,image/heic,image/heic-sequence,video/*;q=0.8,image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.5"}


def fill(rng, p):
    return (p.replace("{n}", str(rng.randint(1, 999999))).replace("{slug}", pick(rng, SLUGS)).replace("{small}", str(rng.randint(1, 30)))
            .replace("{q}", qs([("", text.search_query(rng))])[1:]).replace("{user}", alnum(rng, 8).lower()).replace("{hex}", hexid(rng, pick(rng, [8, 16, 20])))
            .replace("{w}", pick(rng, ["Regular", "SemiBold", "Bold", "Italic"])).replace("{h1}", alnum(rng, 1).lower()).replace("{h2}", alnum(rng, 1).lower()))


def proxy_headers(rng):
    ip = pick(rng, [f"{rng.randint(1, 223)}.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}",
                    f"2a02:{hexid(rng, 4)}:{hexid(rng, 4)}::{hexid(rng, 3)}"])
    kind = rng.randrange(5)
    if kind == 0:
        return [("CF-Connecting-IP", ip), ("CF-IPCountry", pick(rng, ["DE", "US", "JP", "BR", "TR", "IN", "FR"])), ("CF-Ray", f"{hexid(rng, 16)}-{pick(rng, ['FRA', 'CDG', 'NRT', 'GRU', 'IAD'])}"),
                ("CF-Visitor", '{"scheme":"https"}'), ("X-Forwarded-For", ip), ("X-Forwarded-Proto", "https")]
    if kind == 1:
        return [("Via", f"2.0 {hexid(rng, 32)}.cloudfront.net (CloudFront)"), ("X-Amz-Cf-Id", alnum(rng, 54) + "=="), ("CloudFront-Viewer-Country", pick(rng, ["US", "GB", "KR"])),
                ("X-Forwarded-For", f"{ip}, 130.176.{rng.randint(0, 255)}.{rng.randint(1, 254)}")]
    if kind == 2:
        return [("X-Forwarded-For", ip), ("X-Forwarded-Proto", "https"), ("X-Forwarded-Port", "443"), ("X-Amzn-Trace-Id", f"Root=1-{hexid(rng, 8)}-{hexid(rng, 24)}")]
    if kind == 3:
        return [("Forwarded", f'for="{ip}";proto=https;by=10.0.{rng.randint(0, 9)}.{rng.randint(1, 254)}'), ("traceparent", f"00-{hexid(rng, 32)}-{hexid(rng, 16)}-01"),
                ("tracestate", f"rojo=00f067aa0ba902b7,congo=t61rcWkgMzE")]
    return [("X-Real-IP", ip), ("X-Request-ID", uid(rng)), ("X-B3-TraceId", hexid(rng, 32)), ("X-B3-SpanId", hexid(rng, 16)), ("X-B3-Sampled", "1")]


def browser_nav(rng, c):
    hst = host(rng, pick(rng, ["www", "www", "shop", "m", "blog", "help"]))
    b = browser(rng)
    ref = pick(rng, [None, f"https://{hst}/", "https://www.google.com/", "https://duckduckgo.com/", "https://www.reddit.com/", f"https://{hst}/search?q=x"])
    site_rel = "none" if ref is None else ("same-origin" if hst in ref else "cross-site")
    h = navigation(rng, hst, referer=ref, cookie=cookie_header(rng) if rng.random() < 0.8 else None, site=site_rel, b=b)
    r = rng.random()
    if r < 0.15:  # reload with validators
        h.insert(2, ("Cache-Control", "max-age=0"))
        h.append(("If-None-Match", f'W/"{hexid(rng, 8)}-{hexid(rng, 27)}"'))
        h.append(("If-Modified-Since", pick(rng, ["Mon, 13 Jan 2025 08:14:22 GMT", "Tue, 26 Nov 2024 17:03:10 GMT"])))
    elif r < 0.22 and b[0] == "chrome":
        h.append(("Sec-Purpose", pick(rng, ["prefetch", "prefetch;prerender"])))
    if rng.random() < 0.3:
        h += proxy_headers(rng)
    if rng.random() < 0.1:
        h.append(("DNT", "1"))
    if rng.random() < 0.1 and b[0] != "safari":
        h.append(("Sec-GPC", "1"))
    c.add(pick(rng, ["GET"] * 12 + ["HEAD"]), fill(rng, pick(rng, PAGE_PATHS)), h)


def browser_asset(rng, c):
    s = site(rng)
    page = f"https://www.{s}{fill(rng, pick(rng, PAGE_PATHS))}"
    dest, path, accept = pick(rng, ASSETS)
    fam, ua, hints, _ = browser(rng)
    hst = f"{pick(rng, ['www', 'cdn', 'static', 'assets'])}.{s}"
    path = fill(rng, path)
    if path.startswith("https://"):
        hst, path = path.split("/")[2], "/" + path.split("/", 3)[3]
    accept = accept or ACCEPT_IMG[fam]
    h = [("Host", hst), ("Connection", "keep-alive")]
    if fam == "chrome":
        h += hints
    h += [("User-Agent", ua), ("Accept", accept), ("Sec-Fetch-Site", "same-origin" if hst.startswith("www") else "same-site"),
          ("Sec-Fetch-Mode", "cors" if dest in ("font", "manifest") else "no-cors"), ("Sec-Fetch-Dest", dest), ("Referer", page),
          ("Accept-Encoding", "identity;q=1, *;q=0" if dest == "video" else "gzip, deflate, br"), ("Accept-Language", pick(rng, text.L[pick(rng, text.LANGUAGES)]["accept"]))]
    if dest == "font":
        h.append(("Origin", f"https://www.{s}"))
    if dest == "video":
        h.append(("Range", pick(rng, ["bytes=0-", f"bytes={rng.randint(1, 9) * 1048576}-"])))
    if rng.random() < 0.2:
        h.append(("If-None-Match", f'"{hexid(rng, 32)}"'))
    if rng.random() < 0.5 and hst.startswith("www"):
        ck = cookie_header(rng)
        if ck:
            h.append(("Cookie", ck))
    c.add("GET", path, h)


def preflight(rng, c):
    hst, ref = api_ref(rng)
    fam, ua, hints, _ = browser(rng)
    method = pick(rng, ["POST", "PUT", "PATCH", "DELETE", "GET"])
    req_headers = ",".join(sorted(rng.sample(["authorization", "content-type", "x-requested-with", "x-csrf-token", "sentry-trace", "baggage",
                                              "x-client-version", "traceparent", "x-api-key", "apollographql-client-name"], rng.randint(1, 4))))
    h = [("Host", hst), ("Connection", "keep-alive"), ("Accept", "*/*"), ("Access-Control-Request-Method", method),
         ("Access-Control-Request-Headers", req_headers), ("Origin", ref.rstrip("/")), ("User-Agent", ua), ("Sec-Fetch-Mode", "cors"),
         ("Sec-Fetch-Site", "same-site"), ("Sec-Fetch-Dest", "empty"), ("Referer", ref), ("Accept-Encoding", "gzip, deflate, br"),
         ("Accept-Language", pick(rng, text.L[pick(rng, text.LANGUAGES)]["accept"]))]
    if rng.random() < 0.1:
        h.append(("Access-Control-Request-Private-Network", "true"))
    c.add("OPTIONS", fill(rng, pick(rng, ["/api/v1/cart", "/graphql", "/v2/orders/{n}", "/api/me", "/upload", "/api/search?q={q}"])), h)


def browser_api(rng, c):
    hst, ref = api_ref(rng)
    method = weighted(rng, [(6, "GET"), (1, "DELETE"), (1, "HEAD"), (1, "POST")])
    path = fill(rng, pick(rng, ["/api/v1/me", "/api/v1/cart", "/api/v1/orders?page={small}", "/api/notifications?unread=1", "/v2/products/{n}",
                                "/api/v1/cart/items/{n}", "/api/session", "/api/v1/wishlist/{n}", "/api/feature-flags?client=web", "/api/i18n/{slug}.json"]))
    h = fetch(rng, hst, ref, auth=bearer(rng) if rng.random() < 0.6 else None, cookie=cookie_header(rng) if rng.random() < 0.6 else None,
              content_type="application/json" if method == "POST" else None,
              extra=pick(rng, [[], [("X-Requested-With", "XMLHttpRequest")], [("sentry-trace", f"{hexid(rng, 32)}-{hexid(rng, 16)}-1"),
                                                                                ("baggage", f"sentry-environment=production,sentry-release=web%40{rng.randint(1, 9)}.{rng.randint(0, 40)}.0,sentry-public_key={hexid(rng, 32)},sentry-trace_id={hexid(rng, 32)}")],
                                [("X-Client-Version", f"web-{rng.randint(1000, 9999)}")]]))
    c.add(method, path, h, jsonb({"action": pick(rng, ["refresh", "touch", "ping"])}) if method == "POST" else b"")


def mobile_app(rng, c):
    hst = host(rng, "api")
    method = weighted(rng, [(6, "GET"), (2, "POST"), (1, "PUT"), (1, "DELETE"), (1, "PATCH")])
    path = fill(rng, pick(rng, ["/v3/feed?cursor={hex}&limit=20", "/v1/users/me", "/v2/config?platform=android&version=7.3.1", "/v1/stores/nearby?lat=52.52&lng=13.405&radius=5km",
                                "/v1/orders/{n}", "/v1/push/register", "/v1/devices/{hex}", "/v1/messages/{n}/read", "/v1/favorites/{n}", "/v1/cart"]))
    h = [("Host", hst)] + app_client(rng) + [("Authorization", bearer(rng))]
    if rng.random() < 0.5:
        h += [("X-App-Version", f"{rng.randint(1, 9)}.{rng.randint(0, 30)}.{rng.randint(0, 9)}"), ("X-Platform", pick(rng, ["android", "ios"])),
              ("X-Device-Id", uid(rng)), ("X-Timezone", pick(rng, ["Europe/Istanbul", "Asia/Kolkata", "America/Mexico_City"]))]
    if rng.random() < 0.2:
        h.append(("Cookie", cookie_header(rng, session=True) or f"session={alnum(rng, 32)}"))
    body = b""
    if method in ("POST", "PUT", "PATCH"):
        h.append(("Content-Type", "application/json; charset=UTF-8"))
        body = jsonb(pick(rng, [{"token": alnum(rng, 152), "platform": pick(rng, ["fcm", "apns"]), "locale": pick(rng, ["tr_TR", "hi_IN", "es_MX"])},
                                {"read": True, "at": ts(rng)}, {"quantity": rng.randint(1, 5), "note": text.sentence(rng)}]))
    c.add(method, path, h, body)


def sdk_analytics(rng, c):
    """An SDK inside a mobile app reporting its own events as a form, with the session id it keeps (a payment
    SDK's analytics, an ads SDK's events): posted by the app's HTTP client, with no Origin or Referer."""
    ver = f"{rng.randint(10, 21)}.{rng.randint(0, 40)}.{rng.randint(0, 9)}"
    fields = [("analytics_ua", f"analytics.{pick(rng, ['payments', 'ads', 'checkout'])}_android-1.0"),
              ("app_name", f"com.{pick(rng, ['snackr', 'shopwise', 'ridego', 'fitloop'])}.{pick(rng, ['android', 'consumer', 'app'])}"),
              ("app_version", str(rng.randint(1000, 99999999))), ("bindings_version", ver),
              ("device_type", pick(rng, ["samsung_SM-A546B_a54x", "Google_Pixel 6a_bluejay", "OnePlus_CPH2449_OP5958L1"])),
              ("event", pick(rng, ["mc_load_succeeded", "mc_complete_payment_newpm_success", "sheet_presented", "ad_impression"])),
              ("is_development", "false"), ("locale", pick(rng, ["vi_VN", "en_GB", "pt_BR", "tr_TR"])),
              ("network_type", pick(rng, ["", "4G", "5G", "wifi"])), ("os_version", str(rng.randint(28, 35))),
              (pick(rng, ["session_id", "sessionid", "session-id"]), uid(rng)), ("duration", f"{rng.uniform(0, 3):.3f}")]
    h = [("Host", host(rng, "q")), ("User-Agent", f"{pick(rng, ['Stripe/v1 AndroidBindings', 'AdSDK/Android', 'CheckoutKit/Android'])}/{ver}"),
         ("Content-Type", "application/x-www-form-urlencoded"), ("Connection", "Keep-Alive"), ("Accept-Encoding", "gzip")]
    c.add("POST", pick(rng, ["/", "/v1/events", "/collect"]), h, qs(fields))


def sdk(rng, c):
    hst = host(rng, "api")
    method = weighted(rng, [(5, "GET"), (3, "POST"), (1, "PUT"), (1, "DELETE"), (1, "PATCH"), (1, "HEAD")])
    path = fill(rng, pick(rng, ["/v1/customers?limit=100&starting_after=cus_{hex}", "/v1/charges/{n}", "/api/v2/status", "/health", "/metrics",
                                "/api/v1/orders?updated_since=2025-01-14T00:00:00Z", "/v1/exports/{n}", "/api/v4/projects/{n}/jobs?scope[]=failed",
                                "/2015-03-31/functions/{slug}/invocations", "/api/v1/users/{n}", "/robots.txt"]))
    h = [("Host", hst)] + sdk_client(rng)
    if rng.random() < 0.8:
        h.append(("Authorization", bearer(rng)))
    if rng.random() < 0.2:
        h += proxy_headers(rng)
    body = b""
    if method in ("POST", "PUT", "PATCH"):
        h.append(("Content-Type", pick(rng, ["application/json", "application/x-www-form-urlencoded"])))
        body = (jsonb({"email": f"{alnum(rng, 6).lower()}@example.com", "metadata": {"source": "sync-job"}, "description": text.sentence(rng)})
                if "json" in h[-1][1] else qs([("amount", str(rng.randint(100, 99999))), ("currency", "eur"), ("description", text.sentence(rng)),
                                               ("metadata[order_id]", str(rng.randint(1, 99999)))]))
    c.add(method, path, h, body)


def crawler(rng, c):
    hst = host(rng, "www")
    ua = pick(rng, CRAWLERS)
    path = pick(rng, ["/robots.txt", "/sitemap.xml", "/sitemap_index.xml", "/feed/", "/rss.xml", "/ads.txt", "/.well-known/security.txt",
                      "/favicon.ico", "/llms.txt"] + [fill(rng, p) for p in PAGE_PATHS[:12]])
    h = [("Host", hst), ("User-Agent", ua)]
    if "Googlebot" in ua or "bingbot" in ua or "Applebot" in ua:
        h += [("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"), ("Accept-Encoding", "gzip, deflate, br"),
              ("From", "googlebot(at)googlebot.com" if "Google" in ua else "bingbot(at)microsoft.com" if "bing" in ua else "")]
        h = [x for x in h if x[1]]
        if rng.random() < 0.3:
            h.append(("If-Modified-Since", "Sat, 11 Jan 2025 03:12:44 GMT"))
    elif "facebookexternalhit" in ua or "Twitterbot" in ua or "Slackbot" in ua or "Discordbot" in ua or "WhatsApp" in ua:
        h += [("Accept", "*/*"), ("Accept-Encoding", "gzip, deflate"), ("Range", "bytes=0-524287")] if "facebook" in ua else [("Accept", "*/*")]
    else:
        h += [("Accept", pick(rng, ["*/*", "text/html,*/*;q=0.8"])), ("Accept-Encoding", "gzip"), ("Connection", pick(rng, ["close", "keep-alive"]))]
    if rng.random() < 0.3:
        h += proxy_headers(rng)
    c.add(pick(rng, ["GET"] * 9 + ["HEAD"]), path, h)


def build(n=3000, seed=0xC11E7):
    rng = random.Random(seed)
    c = Corpus("clients")
    makers = [(7, browser_nav), (4, browser_asset), (2, preflight), (3, browser_api), (3, mobile_app), (1, sdk_analytics), (3, sdk), (3, crawler)]
    for _ in range(n):
        weighted(rng, makers)(rng, c)
    return c
