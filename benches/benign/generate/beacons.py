"""beacons.txt: what browsers send in the background. navigator.sendBeacon() with a string (Content-Type
text/plain;charset=UTF-8), Google Analytics 4 hits (/g/collect, Measurement Protocol v2 query shape, as gtag.js sends
them to Google or to a server-side tagging host), image pixels (Meta /tr/, Microsoft UET, LinkedIn Insight, TikTok, a
site's own 1x1 GIF), Matomo, Plausible, Segment, Amplitude, Mixpanel and PostHog
collectors, the Reporting API (application/reports+json: csp-violation, deprecation, intervention, coep, crash and
Network Error Logging reports), CSP level 2 report-uri (application/csp-report), Sentry envelopes (browser SDK
through a tunnel as text/plain, native SDKs as application/x-sentry-envelope), Datadog / New Relic / Elastic RUM
batches and web-vitals JSON, batches compressed in the page and posted without a Content-Encoding (PostHog's
gzip-js, Datadog's deflate, Microsoft Clarity's gzip under `application/x-clarity-gzip`), hyperlink-auditing pings (text/ping), Google's JSON-encoded protobuf calls
(application/json+protobuf), a session recorder's page start (the page's URL, size and document type declaration),
web frameworks' page views with the route of the page (`/blog/[slug]`), Akamai Bot Manager's sensor posts (`{"sensor_data":"3;0;1;0;...;<base64>;..."}`, the
script a protected site serves under a random path), and what SDKs report of a person and a program (PostHog's,
Amplitude's and Mixpanel's person properties updated with `$set`/`$unset`, Bugsnag's and Rollbar's error events with
the exception's class and message, breadcrumbs, frame locals and `location.search`, OTLP/JSON spans quoting database
statements, telemetry naming its source by URN, page titles naming a brand after a bar or a dash), and a log
shipper posting container log lines and logging records to Splunk's HTTP Event Collector (each event naming the
log file it came from).
"""
import base64
import gzip
import json
import random
import zlib
from urllib.parse import quote

from . import text
from .common import (Corpus, b64url, cookie_header, fetch, hexid, host, iso, jsonb, pick, qs, ts, uid, browser,
                     alnum, weighted)

PAGES = ["/", "/products/{k}", "/blog/{slug}", "/checkout", "/cart", "/account/orders", "/search?q={q}",
         "/category/{slug}?page={k}", "/help/article/{k}-{slug}", "/de/produkte/{k}", "/fr/panier", "/ja/"]
SLUGS = ["winter-sale", "how-to-choose-a-tent", "new-arrivals", "shipping-and-returns", "gift-ideas",
         "kitchen", "running-shoes", "about-us", "privacy", "faq"]


def page_url(rng, hst):
    p = pick(rng, PAGES).replace("{k}", str(rng.randint(1, 99999))).replace("{slug}", pick(rng, SLUGS))
    p = p.replace("{q}", quote(text.search_query(rng), safe=""))
    return f"https://{hst}{p}"


def beacon_headers(rng, hst, page, ctype, b=None, cookie=True):
    """sendBeacon: a no-cors POST with the page's cookies (same site) and Sec-Fetch-Dest: empty."""
    fam, ua, hints, _ = b or browser(rng)
    same_site = page.split("/")[2].split(".", 1)[1] == hst.split(".", 1)[1]
    h = [("Host", hst), ("Connection", "keep-alive")]
    if fam == "chrome":
        h += hints
    h += [("User-Agent", ua), ("Content-Type", ctype), ("Accept", "*/*"), ("Origin", "https://" + page.split("/")[2]),
          ("Sec-Fetch-Site", "same-origin" if page.split("/")[2] == hst else "same-site" if same_site else "cross-site"),
          ("Sec-Fetch-Mode", "no-cors"), ("Sec-Fetch-Dest", "empty"), ("Referer", page),
          ("Accept-Encoding", "gzip, deflate, br"), ("Accept-Language", pick(rng, text.L[pick(rng, text.LANGUAGES)]["accept"]))]
    if cookie and same_site:  # third-party collectors get no first-party cookies
        c = cookie_header(rng)
        if c:
            h.append(("Cookie", c))
    return h


def send_beacon(rng, c):
    site = host(rng, "www")
    page = page_url(rng, site)
    ev = pick(rng, ["page_hide", "visibility_change", "session_end", "click", "scroll_depth", "video_progress",
                    "form_abandon", "add_to_cart", "error"])
    body = {"event": ev, "url": page, "ts": ts(rng) * 1000 + rng.randint(0, 999), "sid": uid(rng),
            "ref": pick(rng, ["", "https://www.google.com/", "https://t.co/" + alnum(rng, 10), "android-app://com.google.android.gm/"]),
            "vp": [rng.choice([360, 390, 414, 768, 1280, 1440, 1920]), rng.choice([640, 800, 844, 900, 1080])]}
    if ev == "scroll_depth":
        body["depth"] = pick(rng, [25, 50, 75, 90, 100])
    if ev == "click":
        body["target"] = pick(rng, ["button.add-to-cart", "a[href='/checkout']", "#newsletter-submit", "nav > ul > li:nth-child(3) > a"])
        body["text"] = text.title(rng)
    if ev == "error":
        body["message"] = pick(rng, ["Script error.", "ResizeObserver loop completed with undelivered notifications.",
                                     "TypeError: Failed to fetch", "Uncaught (in promise) AbortError: The user aborted a request.",
                                     "Uncaught SyntaxError: Unexpected token '<'",
                                     "TypeError: Cannot read properties of undefined (reading 'map')",
                                     "TypeError: undefined is not an object (evaluating 'e.length')"])
    if ev == "form_abandon":
        body["fields"] = rng.sample(["email", "name", "phone", "address", "zip", "card"], rng.randint(1, 4))
    endpoint = pick(rng, ["/api/beacon", "/_/log", "/collect", "/t/e", "/analytics/v1/events", "/rum", "/api/telemetry"])
    c.add("POST", endpoint, beacon_headers(rng, site, page, "text/plain;charset=UTF-8"), jsonb(body))


def ga4(rng, c):
    site = host(rng, "www")
    page = page_url(rng, site)
    tid = "G-" + alnum(rng, 10, "ABCDEFGHJKLMNPQRSTUVWXYZ0123456789")
    t = ts(rng)
    fam, ua, hints, kind = b = browser(rng)
    # The browser's brands from its client hints (navigator.userAgentData), Edge's its own, with Chromium's made-up
    # brand of the version ("Not" and "A" and "Brand" with greasy punctuation between), in the order the browser
    # shuffled them, each name encodeURIComponent'ed by gtag (then the whole value once more, by qs below).
    grease = pick(rng, [("Not_A Brand", "24.0.0.0"), ("Not/A)Brand", "8.0.0.0"), ("Not(A:Brand", "99.0.0.0"),
                        ("Not)A;Brand", "99.0.0.0"), ("Not.A/Brand", "8.0.0.0"), ("Not-A.Brand", "99.0.0.0"),
                        ("Not;A=Brand", "24.0.0.0"), ("Not?A_Brand", "99.0.0.0")])
    listed = [("Chromium", "131.0.6778.86"), ("Microsoft Edge", "131.0.2903.70") if kind == "edge" else ("Google Chrome", "131.0.6778.86"), grease]
    rng.shuffle(listed)
    brands = "|".join(f"{quote(name, safe=chr(39) + '()*!~-_.')};{version}" for name, version in listed)
    en = pick(rng, ["page_view", "scroll", "user_engagement", "view_item", "add_to_cart", "begin_checkout",
                    "purchase", "form_start", "click", "file_download", "view_search_results"])
    q = [("v", "2"), ("tid", tid), ("gtm", f"45je4{alnum(rng, 2).lower()}{rng.randint(0, 9)}v{rng.randint(100000000, 999999999)}za200"),
         ("_p", str(t * 1000 + rng.randint(0, 999))), ("gcs", pick(rng, ["G111", "G100", "G101"])),
         ("gcd", pick(rng, ["13l3l3l3l1l1", "13r3r3r2r5l1", "13q3q3q2q5l1"])), ("npa", "0"), ("dma", pick(rng, ["0", "1"])),
         ("cid", f"{rng.randint(100000000, 2147483647)}.{t - rng.randint(0, 9000000)}"),
         ("ul", pick(rng, ["en-us", "de-de", "fr-fr", "ja-jp", "pt-br", "tr-tr", "pl"])),
         ("sr", pick(rng, ["1920x1080", "390x844", "1440x900", "412x915", "2560x1440"])),
         ("uaa", "x86"), ("uab", "64"), ("uafvl", brands),
         ("uamb", "0"), ("uam", ""), ("uap", pick(rng, ["Windows", "macOS", "Android"])), ("uapv", pick(rng, ["15.0.0", "10.0.0", "14.6.1"])),
         ("uaw", "0"), ("are", "1"), ("frm", "0"), ("pscdl", "noapi"), ("_eu", "AAAAAAQ"), ("_s", str(rng.randint(1, 30))),
         ("sid", str(t)), ("sct", str(rng.randint(1, 60))), ("seg", "1"), ("dl", page),
         ("dr", pick(rng, ["", "https://www.google.com/", "https://www.bing.com/", "https://duckduckgo.com/"])),
         ("dt", text.title(rng)), ("en", en), ("_et", str(rng.randint(1, 90000))), ("tfd", str(rng.randint(500, 900000)))]
    if en == "scroll":
        q.append(("epn.percent_scrolled", "90"))
    if en in ("view_item", "add_to_cart", "purchase", "begin_checkout"):
        for i in range(1, rng.randint(2, 4)):
            q.append((f"pr{i}", f"id{rng.randint(1000, 99999)}~nm{text.product(rng, pick(rng, text.LANGUAGES))}~pr"
                                f"{rng.randint(1, 500)}.{rng.randint(0, 99)}~qt{rng.randint(1, 3)}~ca{pick(rng, ['Outdoor', 'Küche', 'Maison & Jardin'])}"))
        q.append(("cu", pick(rng, ["EUR", "USD", "GBP", "JPY", "PLN"])))
        if en == "purchase":
            q += [("ep.transaction_id", f"T-{rng.randint(100000, 999999)}"), ("epn.value", f"{rng.randint(5, 900)}.{rng.randint(0, 99)}")]
    if en == "view_search_results":
        q.append(("ep.search_term", text.search_query(rng)))
    if en == "file_download":
        q += [("ep.file_name", f"/downloads/{pick(rng, ['catalogue-2025.pdf', 'manual_v2 (EN).pdf', 'price list.xlsx'])}"),
              ("ep.link_url", page)]
    target = "/g/collect?" + qs(q)
    gh = pick(rng, ["region1.google-analytics.com", "www.google-analytics.com", "analytics." + site.split(".", 1)[1],
                    "sgtm." + site.split(".", 1)[1]])
    body = b""
    if rng.random() < 0.3:  # batched events ride in the body, one per line
        body = "\r\n".join(f"en={pick(rng, ['scroll', 'user_engagement', 'click'])}&_et={rng.randint(1, 9000)}"
                           for _ in range(rng.randint(1, 4))).encode()
    h = beacon_headers(rng, gh, page, "text/plain;charset=UTF-8", b=b, cookie=gh.startswith(("analytics.", "sgtm.")))
    if not body:
        h = [(k, v) for k, v in h if k != "Content-Type"]
    c.add("POST", target, h, body)


def other_collectors(rng, c):
    site = host(rng, "www")
    page = page_url(rng, site)
    kind = rng.randrange(7)
    if kind == 0:  # Matomo
        t = [("action_name", text.title(rng)), ("idsite", str(rng.randint(1, 40))), ("rec", "1"),
             ("r", str(rng.randint(100000, 999999))), ("h", str(rng.randint(0, 23))), ("m", str(rng.randint(0, 59))),
             ("s", str(rng.randint(0, 59))), ("url", page), ("urlref", pick(rng, ["https://www.google.com/", ""])),
             ("_id", hexid(rng, 16)), ("_idn", "0"), ("send_image", "0"), ("_refts", "0"), ("pv_id", alnum(rng, 6)),
             ("pf_net", str(rng.randint(0, 300))), ("pf_srv", str(rng.randint(10, 900))), ("uadata", json.dumps({})),
             ("res", pick(rng, ["1920x1080", "390x844"])), ("cookie", "1")]
        h = beacon_headers(rng, "matomo." + site.split(".", 1)[1], page, "application/x-www-form-urlencoded; charset=UTF-8")
        c.add("POST", "/matomo.php?" + qs(t), h)
    elif kind == 1:  # Plausible
        body = {"n": pick(rng, ["pageview", "Outbound Link: Click", "Signup", "File Download"]), "u": page,
                "d": site.split(".", 1)[1], "r": pick(rng, [None, "https://news.ycombinator.com/", "https://www.reddit.com/"])}
        if body["n"] != "pageview":
            body["p"] = json.dumps({"url": page, "plan": pick(rng, ["free", "pro"])})
        c.add("POST", "/api/event", beacon_headers(rng, "plausible.io" if rng.random() < 0.5 else site, page, "text/plain"), jsonb(body))
    elif kind == 2:  # Segment analytics.js
        body = {"timestamp": iso(rng), "integrations": {}, "type": pick(rng, ["track", "page", "identify"]),
                "properties": {"path": page.split("/", 3)[-1], "title": text.title(rng), "url": page,
                               "search": "", "referrer": ""},
                "context": {"page": {"path": "/", "referrer": "", "title": text.title(rng), "url": page},
                            "userAgent": browser(rng)[1], "locale": "en-US", "library": {"name": "analytics.js", "version": "next-1.74.0"}},
                "messageId": "ajs-next-" + hexid(rng, 32), "anonymousId": uid(rng), "writeKey": alnum(rng, 32),
                "userId": pick(rng, [None, str(rng.randint(1, 99999))]), "sentAt": iso(rng)}
        if body["type"] == "track":
            body["event"] = pick(rng, ["Product Viewed", "Order Completed", "Checkout Started", "Signed Up"])
        c.add("POST", f"/v1/{body['type'][0]}", beacon_headers(rng, "api.segment.io", page, "text/plain"), jsonb(body))
    elif kind == 3:  # Amplitude HTTP API v2
        body = {"api_key": hexid(rng, 32), "events": [{"user_id": pick(rng, [None, f"user-{rng.randint(1, 9999)}"]),
                "device_id": uid(rng), "session_id": ts(rng) * 1000, "time": ts(rng) * 1000,
                "event_type": pick(rng, ["[Amplitude] Page Viewed", "button_clicked", "song_played"]),
                "event_properties": {"[Amplitude] Page URL": page, "[Amplitude] Page Title": text.title(rng)},
                "platform": "Web", "language": pick(rng, ["en-US", "de-DE", "ko-KR"]), "insert_id": uid(rng)}
                for _ in range(rng.randint(1, 5))], "options": {}}
        c.add("POST", "/2/httpapi", fetch(rng, "api2.amplitude.com", page, content_type="application/json", accept="*/*"), jsonb(body))
    elif kind == 4:  # Mixpanel: base64 JSON in a form field
        data = {"event": pick(rng, ["$mp_web_page_view", "Sign Up", "Purchase"]), "properties": {
            "$os": "Windows", "$browser": "Chrome", "$current_url": page, "distinct_id": "$device:" + uid(rng),
            "token": hexid(rng, 32), "time": ts(rng) + rng.random(), "$insert_id": alnum(rng, 16)}}
        body = "data=" + quote(base64.b64encode(jsonb([data])).decode(), safe="")
        c.add("POST", f"/track/?verbose=1&ip=1&_={ts(rng)}{rng.randint(100, 999)}",
              beacon_headers(rng, "api-js.mixpanel.com", page, "application/x-www-form-urlencoded"), body)
    elif kind == 5:  # PostHog batch
        body = {"api_key": "phc_" + alnum(rng, 43), "batch": [{"event": pick(rng, ["$pageview", "$autocapture", "$pageleave"]),
                "properties": {"$current_url": page, "$host": site, "$pathname": "/" + page.split("/", 3)[-1],
                               "$session_id": uid(rng), "$window_id": uid(rng), "$lib": "web", "$lib_version": "1.194.1",
                               "$elements_chain": pick(rng, ["", 'a:nth-child="2"nth-of-type="1"href="/pricing"attr__class="nav-link"'])},
                "timestamp": iso(rng), "uuid": uid(rng)} for _ in range(rng.randint(1, 4))], "sent_at": iso(rng)}
        c.add("POST", f"/e/?ip=1&_={ts(rng)}123&ver=1.194.1", beacon_headers(rng, "eu.i.posthog.com", page, "text/plain"), jsonb(body))
    else:  # web-vitals to the site's own endpoint
        name = pick(rng, ["LCP", "INP", "CLS", "FCP", "TTFB"])
        val = round(rng.uniform(0.01, 0.4), 4) if name == "CLS" else round(rng.uniform(40, 6000), 1)
        body = {"name": name, "value": val, "rating": pick(rng, ["good", "needs-improvement", "poor"]), "delta": val,
                "id": f"v4-{ts(rng)}{rng.randint(100, 999)}-{rng.randint(1000000000000, 9999999999999)}",
                "navigationType": pick(rng, ["navigate", "reload", "back-forward", "prerender"]), "page": page}
        if name == "LCP":
            body["attribution"] = {"element": pick(rng, ["#hero > img", "main h1", "div.product-gallery > picture > img"]),
                                   "url": f"https://cdn.{site.split('.', 1)[1]}/img/{hexid(rng, 12)}.webp"}
        c.add("POST", "/api/vitals", beacon_headers(rng, site, page, pick(rng, ["text/plain;charset=UTF-8", "application/json"])), jsonb(body))


def reporting_api(rng, c):
    site = host(rng, "www")
    page = page_url(rng, site)
    b = browser(rng)
    reports = []
    for _ in range(rng.randint(1, 4)):
        typ = weighted(rng, [(5, "csp-violation"), (3, "deprecation"), (2, "intervention"), (2, "network-error"),
                             (1, "coep"), (1, "crash"), (1, "permissions-policy-violation")])
        if typ == "csp-violation":
            body = {"documentURL": page, "referrer": "", "blockedURL": pick(rng, [
                "https://www.googletagmanager.com/gtag/js?id=G-" + alnum(rng, 10), "inline", "eval", "data",
                "https://fonts.gstatic.com/s/inter/v13/UcC73FwrK3iLTeHuS_fvQtMwCp50KnMa1ZL7.woff2",
                "chrome-extension://" + alnum(rng, 32).lower()]),
                "effectiveDirective": pick(rng, ["script-src-elem", "style-src-elem", "img-src", "connect-src", "font-src"]),
                "originalPolicy": "default-src 'self'; script-src 'self' 'nonce-" + b64url(rng.randbytes(16)) +
                                  "' https://www.googletagmanager.com; img-src 'self' data: https:; report-to csp-endpoint",
                "sourceFile": page, "sample": pick(rng, ["", "window.dataLayer = window.dataLayer || [];",
                                                        ".hero{background:url(/img/bg.jpg) no-repeat}"]),
                "disposition": pick(rng, ["enforce", "report"]), "statusCode": 200,
                "lineNumber": rng.randint(1, 400), "columnNumber": rng.randint(1, 120)}
        elif typ == "deprecation":
            body = {"id": pick(rng, ["UnloadHandler", "PrefixedStorageInfo", "RangeExpand", "ThirdPartyCookies"]),
                    "message": pick(rng, ["Unload event listeners are deprecated and will be removed.",
                                          "Chrome is moving towards a new experience that allows users to choose to browse without third-party cookies."]),
                    "sourceFile": f"https://{site}/assets/app.{hexid(rng, 8)}.js", "lineNumber": rng.randint(1, 9000),
                    "columnNumber": rng.randint(1, 300)}
        elif typ == "intervention":
            body = {"id": "HeavyAdIntervention", "message": "Ad was removed because its network usage exceeded the limit."}
        elif typ == "network-error":
            body = {"elapsed_time": rng.randint(10, 30000), "method": pick(rng, ["GET", "POST"]), "phase": pick(rng, ["dns", "connection", "application"]),
                    "protocol": pick(rng, ["h2", "h3", "http/1.1"]), "referrer": page, "sampling_fraction": pick(rng, [1.0, 0.05, 0.01]),
                    "server_ip": pick(rng, ["", f"203.0.113.{rng.randint(1, 254)}", "2001:db8::1"]), "status_code": pick(rng, [0, 502, 503, 404]),
                    "type": pick(rng, ["dns.name_not_resolved", "tcp.timed_out", "http.error", "tcp.reset", "ok", "h2.protocol.error"])}
        elif typ == "coep":
            body = {"type": "corp", "blockedURL": f"https://cdn.other.example/widget.js", "destination": "script", "disposition": "reporting"}
        elif typ == "crash":
            body = {"reason": pick(rng, ["oom", "unresponsive"]), "is_top_level": True, "visibility_state": "visible"}
        else:
            body = {"featureId": pick(rng, ["geolocation", "camera", "interest-cohort"]), "disposition": "enforce",
                    "sourceFile": page, "lineNumber": rng.randint(1, 200), "columnNumber": rng.randint(1, 80)}
        reports.append({"age": rng.randint(0, 60000), "body": body, "type": typ,
                        "url": page if typ != "network-error" else f"https://{host(rng)}/", "user_agent": b[1]})
    h = beacon_headers(rng, pick(rng, [site, "reports." + site.split(".", 1)[1], "o" + str(rng.randint(10000, 99999)) + ".ingest.sentry.io"]),
                       page, "application/reports+json", b=b, cookie=False)
    c.add("POST", pick(rng, ["/reports", "/_/reporting", "/csp-report", "/nel", "/api/" + str(rng.randint(1, 9999999)) + "/security/?sentry_key=" + hexid(rng, 32)]),
          h, jsonb(reports))


def csp_report(rng, c):
    site = host(rng, "www")
    page = page_url(rng, site)
    nonce = b64url(rng.randbytes(16))
    body = {"csp-report": {
        "document-uri": page, "referrer": pick(rng, ["", "https://www.google.com/"]),
        "violated-directive": pick(rng, ["script-src-elem", "style-src", "img-src", "connect-src", "frame-src", "font-src"]),
        "effective-directive": pick(rng, ["script-src-elem", "style-src-attr", "img-src", "connect-src"]),
        "original-policy": f"default-src 'self'; script-src 'self' 'nonce-{nonce}' 'strict-dynamic' https:; object-src 'none'; "
                           f"base-uri 'self'; style-src 'self' 'unsafe-inline' https://fonts.googleapis.com; report-uri /csp-report",
        "disposition": pick(rng, ["enforce", "report"]),
        "blocked-uri": pick(rng, ["inline", "eval", "https://connect.facebook.net", "https://static.hotjar.com",
                                  "moz-extension", "data", "https://www.youtube.com", "blob"]),
        "line-number": rng.randint(1, 3000), "column-number": rng.randint(1, 200),
        "source-file": pick(rng, [page, f"https://{site}/static/js/main.{hexid(rng, 8)}.js", "moz-extension"]),
        "status-code": pick(rng, [0, 200]), "script-sample": pick(rng, [
            "", "(function(w,d,s,l,i){w[l]=w[l]||[];w[l].", "console.log(\"hello from extension\")",
            "this.style.display='none'", "document.getElementById('promo').remove()"])}}
    fam, ua, hints, _ = browser(rng)
    h = [("Host", site), ("User-Agent", ua), ("Accept", "*/*"), ("Content-Type", "application/csp-report"),
         ("Origin", "https://" + site), ("Referer", page), ("Accept-Language", pick(rng, ["en-US,en;q=0.5", "de,en-US;q=0.7,en;q=0.3"])),
         ("Accept-Encoding", "gzip, deflate, br"), ("Connection", "keep-alive"), ("Sec-Fetch-Dest", "report"),
         ("Sec-Fetch-Mode", "no-cors"), ("Sec-Fetch-Site", "same-origin")]
    c.add("POST", pick(rng, ["/csp-report", "/csp/report", "/api/csp-violations", "/__cspreport__"]), h,
          jsonb(body, pretty=rng.random() < 0.2))


def sentry_envelope(rng, c):
    site = host(rng, "www")
    page = page_url(rng, site)
    key = hexid(rng, 32)
    project = rng.randint(1000000, 9999999)
    dsn = f"https://{key}@o{rng.randint(100000, 999999)}.ingest.sentry.io/{project}"
    event_id = hexid(rng, 32)
    native = rng.random() < 0.35
    sdk = pick(rng, [("sentry.javascript.browser", "8.42.0"), ("sentry.javascript.react", "8.38.0"),
                     ("sentry.javascript.nextjs", "8.40.0"), ("sentry.javascript.vue", "7.120.1")]) if not native else \
        pick(rng, [("sentry.cocoa", "8.40.1"), ("sentry.java.android", "7.18.0"), ("sentry.dart.flutter", "8.10.1"),
                   ("sentry.python", "2.19.0")])
    head = {"event_id": event_id, "sent_at": iso(rng), "sdk": {"name": sdk[0], "version": sdk[1]}, "dsn": dsn}
    kind = pick(rng, ["event", "session", "transaction", "client_report"])
    if kind == "event":
        frames = [{"filename": f"https://{site}/_next/static/chunks/{pick(rng, ['pages/_app', 'main', 'framework'])}-{hexid(rng, 16)}.js",
                   "function": pick(rng, ["onClick", "r.handleSubmit", "Object.fetchCart", "async Promise.all (index 0)", "?"]),
                   "in_app": True, "lineno": 1, "colno": rng.randint(100, 90000)} for _ in range(rng.randint(2, 8))]
        payload = {"exception": {"values": [{"type": pick(rng, ["TypeError", "Error", "ChunkLoadError", "UnhandledRejection"]),
                                             "value": pick(rng, ["Cannot read properties of null (reading 'id')", "Failed to fetch",
                                                                 "Loading chunk 387 failed.\n(error: https://" + site + "/_next/static/chunks/387.js)",
                                                                 "Non-Error promise rejection captured with value: undefined"]),
                                             "stacktrace": {"frames": frames}, "mechanism": {"type": "onerror", "handled": False}}]},
                   "level": "error", "platform": "javascript", "request": {"url": page, "headers": {"User-Agent": browser(rng)[1]}},
                   "event_id": event_id, "timestamp": ts(rng) + rng.random(), "environment": pick(rng, ["production", "staging"]),
                   "release": f"web@{rng.randint(1, 9)}.{rng.randint(0, 90)}.{rng.randint(0, 9)}",
                   "breadcrumbs": [{"timestamp": ts(rng) + rng.random(), "category": pick(rng, ["ui.click", "fetch", "navigation", "console"]),
                                    "message": pick(rng, ["button#checkout.btn.btn-primary", text.title(rng), "GET /api/cart [200]"]),
                                    "level": "info"} for _ in range(rng.randint(0, 6))],
                   "user": {"ip_address": "{{auto}}", "id": str(rng.randint(1, 999999))},
                   "tags": {"locale": pick(rng, ["en", "de", "ja"]), "transaction": "/" + page.split("/", 3)[-1].split("?")[0]}}
        item = {"type": "event"}
    elif kind == "session":
        payload = {"sid": hexid(rng, 32), "init": rng.random() < 0.5, "started": iso(rng), "timestamp": iso(rng),
                   "status": pick(rng, ["ok", "exited", "crashed"]), "errors": rng.randint(0, 3), "duration": rng.randint(0, 3000),
                   "attrs": {"release": f"app@{rng.randint(1, 5)}.{rng.randint(0, 40)}.0", "environment": "production",
                             "user_agent": browser(rng)[1]}}
        item = {"type": "session"}
    elif kind == "transaction":
        start = ts(rng) + rng.random()
        payload = {"contexts": {"trace": {"op": "pageload", "span_id": hexid(rng, 16), "trace_id": hexid(rng, 32), "status": "ok"}},
                   "spans": [{"op": pick(rng, ["resource.script", "http.client", "browser", "ui.long-task"]),
                              "description": pick(rng, [f"GET https://api.{site.split('.', 1)[1]}/v1/cart", "domContentLoadedEvent",
                                                        f"/static/js/{hexid(rng, 8)}.chunk.js", "Main UI thread blocked"]),
                              "start_timestamp": start, "timestamp": start + rng.random(), "span_id": hexid(rng, 16),
                              "parent_span_id": hexid(rng, 16), "trace_id": hexid(rng, 32)} for _ in range(rng.randint(1, 10))],
                   "start_timestamp": start, "timestamp": start + rng.uniform(0.3, 9), "transaction": "/" + page.split("/", 3)[-1].split("?")[0],
                   "type": "transaction", "measurements": {"lcp": {"value": rng.uniform(300, 5000), "unit": "millisecond"}}}
        item = {"type": "transaction"}
    else:
        payload = {"timestamp": ts(rng), "discarded_events": [{"reason": "sample_rate", "category": "transaction", "quantity": rng.randint(1, 20)}]}
        item = {"type": "client_report"}
    pb = jsonb(payload)
    if rng.random() < 0.5:
        item["length"] = len(pb)
    body = jsonb(head) + b"\n" + jsonb(item) + b"\n" + pb
    if native:
        h = [("Host", f"o{rng.randint(100000, 999999)}.ingest.sentry.io")]
        h += [("User-Agent", f"{sdk[0]}/{sdk[1]}"), ("Content-Type", "application/x-sentry-envelope"),
              ("X-Sentry-Auth", f"Sentry sentry_version=7,sentry_client={sdk[0]}/{sdk[1]},sentry_key={key}"),
              ("Accept", "*/*"), ("Accept-Encoding", "gzip")]
        c.add("POST", f"/api/{project}/envelope/", h, body)
    else:
        tunnel = rng.random() < 0.5
        target = (pick(rng, ["/monitoring", "/api/sentry-tunnel", "/bugs"]) + (f"?o={rng.randint(100000, 999999)}&p={project}" if rng.random() < 0.5 else "")) if tunnel else \
            f"/api/{project}/envelope/?sentry_key={key}&sentry_version=7&sentry_client={quote(sdk[0] + '/' + sdk[1], safe='')}"
        hst = site if tunnel else f"o{rng.randint(100000, 999999)}.ingest.{pick(rng, ['us.', 'de.', ''])}sentry.io"
        c.add("POST", target, fetch(rng, hst, page, content_type="text/plain;charset=UTF-8", accept="*/*"), body)


def rum(rng, c):
    site = host(rng, "www")
    page = page_url(rng, site)
    kind = rng.randrange(3)
    if kind == 0:  # Datadog browser RUM: NDJSON in text/plain
        app = uid(rng)
        events = []
        for _ in range(rng.randint(1, 6)):
            typ = pick(rng, ["view", "action", "resource", "long_task", "error"])
            ev = {"date": ts(rng) * 1000, "application": {"id": app}, "session": {"id": uid(rng), "type": "user"},
                  "view": {"id": uid(rng), "url": page, "referrer": "", "name": "/" + page.split("/", 3)[-1].split("?")[0]},
                  "type": typ, "service": pick(rng, ["storefront", "web-app", "dashboard"]), "version": f"{rng.randint(1, 9)}.{rng.randint(0, 50)}.0",
                  "_dd": {"format_version": 2, "drift": 0}, "source": "browser"}
            if typ == "resource":
                ev["resource"] = {"type": pick(rng, ["fetch", "xhr", "image", "js"]), "url": f"https://api.{site.split('.', 1)[1]}/v1/{pick(rng, ['cart', 'me', 'products?page=2'])}",
                                  "status_code": 200, "duration": rng.randint(1000000, 900000000)}
            if typ == "action":
                ev["action"] = {"type": "click", "target": {"name": text.title(rng)}}
            if typ == "error":
                ev["error"] = {"message": "Script error.", "source": "source"}
            events.append(jsonb(ev))
        q = [("ddsource", "browser"), ("ddtags", f"sdk_version:5.{rng.randint(10, 35)}.0,api:fetch,env:prod,service:storefront,version:1.{rng.randint(0, 9)}"),
             ("dd-api-key", "pub" + hexid(rng, 32)), ("dd-evp-origin-version", "5.30.0"), ("dd-evp-origin", "browser"),
             ("dd-request-id", uid(rng)), ("batch_time", str(ts(rng) * 1000))]
        c.add("POST", "/api/v2/rum?" + qs(q), beacon_headers(rng, "browser-intake-datadoghq.eu", page, "text/plain;charset=UTF-8", cookie=False),
              b"\n".join(events))
    elif kind == 1:  # Elastic APM RUM agent: NDJSON
        lines = [jsonb({"metadata": {"service": {"name": "shop-frontend", "version": "2.3.1", "agent": {"name": "rum-js", "version": "5.16.1"},
                                                 "language": {"name": "javascript"}}}})]
        for _ in range(rng.randint(1, 3)):
            lines.append(jsonb({"transaction": {"id": hexid(rng, 16), "trace_id": hexid(rng, 32), "name": "/" + page.split("/", 3)[-1].split("?")[0],
                                                "type": "page-load", "duration": rng.uniform(100, 8000), "span_count": {"started": rng.randint(1, 40)},
                                                "context": {"page": {"referer": "", "url": page}}, "sampled": True}}))
        c.add("POST", "/intake/v2/rum/events", fetch(rng, "apm." + site.split(".", 1)[1], page, content_type="application/x-ndjson", accept="*/*"),
              b"\n".join(lines) + b"\n")
    else:  # New Relic browser agent
        body = {"xhr": [{"params": {"method": "GET", "host": f"api.{site.split('.', 1)[1]}:443", "pathname": "/v1/cart", "status": 200},
                         "metrics": {"count": rng.randint(1, 9), "duration": {"t": rng.randint(10, 900)}, "rxSize": {"t": rng.randint(100, 90000)}}}]}
        q = [("a", str(rng.randint(100000000, 999999999))), ("sa", "1"), ("v", "1.274.0"), ("t", "Unnamed Transaction"),
             ("rst", str(rng.randint(1000, 90000))), ("ck", "0"), ("s", "0"), ("ref", page.split("?")[0]), ("ptid", hexid(rng, 16))]
        c.add("POST", f"/jserrors/1/NRJS-{hexid(rng, 19)}?" + qs(q), beacon_headers(rng, "bam.eu01.nr-data.net", page, "text/plain", cookie=False), jsonb(body))


ROUTES = ["/blog/[slug]", "/products/[id]", "/[locale]/checkout", "/docs/[...path]", "/shop/[[...filters]]",
          "/project/[ref]/editor/[id]", "/u/[username]/settings", "/orgs/[org]/repos/[repo]/issues/[number]"]


def route_beacon(rng, c):
    """A web framework's page view as its analytics report it: the URL, and the route of the page in the framework's
    file-system router with its dynamic segments (Vercel Web Analytics' `route`, a Next.js app's own telemetry)."""
    site = host(rng, "www")
    page = page_url(rng, site)
    route = pick(rng, ROUTES)
    if rng.random() < 0.5:
        body = {"o": page, "sv": "0.1.3", "sdkn": "@vercel/analytics/next", "sdkv": "1.4.1", "ts": ts(rng) * 1000,
                "r": pick(rng, ["", "https://www.google.com/"]), "route": route}
        c.add("POST", "/_vercel/insights/view", beacon_headers(rng, site, page, "application/json"), jsonb(body))
    else:
        body = {"referrer": "", "title": text.title(rng), "route": route, "pathname": "/" + page.split("/", 3)[-1].split("?")[0],
                "ga": {"screen_resolution": pick(rng, ["1280x800", "1920x1080", "390x844"]), "language": pick(rng, ["en-US", "de-DE", "pt-BR"])}}
        c.add("POST", "/platform/telemetry/page", fetch(rng, "api." + site.split(".", 1)[1], page, content_type="application/json"), jsonb(body))


def compressed(rng, c):
    """Batches compressed in the page and posted without a Content-Encoding: PostHog's `compression=gzip-js`
    (gzip, text/plain), Datadog's browser SDK with compressIntakeRequests (deflate, zlib-wrapped, text/plain) and
    Microsoft Clarity's session replay (gzip under its own label, `application/x-clarity-gzip`)."""
    site = host(rng, "www")
    page = page_url(rng, site)
    which = rng.random()
    if which >= 0.8:
        envelope = ["0.7.49", rng.randint(1, 40), ts(rng) * 1000, rng.randint(500, 90000), alnum(rng, 10).lower(),
                    alnum(rng, 7).lower(), alnum(rng, 7).lower(), rng.randint(1, 9), 1, 0, 0, page]
        events = [[rng.randint(0, 90000), pick(rng, [4, 9, 10, 13, 28, 34]), rng.randint(0, 1920), rng.randint(0, 1080)]
                  for _ in range(rng.randint(2, 12))]
        body = gzip.compress(jsonb({"e": envelope, "a": events, "p": []}), mtime=0)
        c.add("POST", "/collect", beacon_headers(rng, pick(rng, ["a.clarity.ms", "k.clarity.ms", "x.clarity.ms"]), page,
                                                 "application/x-clarity-gzip", cookie=False), body)
    elif which < 0.4:
        batch = [{"event": pick(rng, ["$pageview", "$autocapture", "$pageleave", "$web_vitals"]),
                  "properties": {"$current_url": page, "$host": site, "$pathname": "/" + page.split("/", 3)[-1],
                                 "$referrer": pick(rng, ["$direct", "https://www.google.com/", "https://duckduckgo.com/"]),
                                 "$session_id": uid(rng), "$window_id": uid(rng), "$lib": "web", "$lib_version": "1.200.2",
                                 "title": text.title(rng), "token": "phc_" + alnum(rng, 43), "distinct_id": uid(rng)},
                  "timestamp": iso(rng), "uuid": uid(rng)} for _ in range(rng.randint(1, 8))]
        # gzip's header holds a time; 0 keeps the corpus deterministic.
        body = gzip.compress(jsonb(batch), mtime=0)
        q = f"/e/?compression=gzip-js&ip=1&_={ts(rng)}{rng.randint(100, 999)}&ver=1.200.2"
        c.add("POST", q, beacon_headers(rng, pick(rng, ["us.i.posthog.com", "eu.i.posthog.com"]), page, "text/plain"), body)
    else:
        events = [jsonb({"date": ts(rng) * 1000, "application": {"id": uid(rng)}, "session": {"id": uid(rng)},
                         "view": {"id": uid(rng), "url": page, "name": text.title(rng)}, "type": "view", "source": "browser",
                         "_dd": {"format_version": 2}}) for _ in range(rng.randint(1, 6))]
        q = [("ddsource", "browser"), ("dd-api-key", "pub" + hexid(rng, 32)), ("dd-evp-origin", "browser"),
             ("dd-request-id", uid(rng)), ("batch_time", str(ts(rng) * 1000))]
        c.add("POST", "/api/v2/rum?" + qs(q), beacon_headers(rng, "browser-intake-datadoghq.com", page, "text/plain;charset=UTF-8",
                                                               cookie=False), zlib.compress(b"\n".join(events)))


def ping(rng, c):
    """Hyperlink auditing: a click on `<a href=... ping=...>` makes the browser POST `PING` as text/ping, with the
    page and the target in Ping-From and Ping-To (HTML Living Standard); search result pages use it."""
    site = host(rng, "www")
    page = page_url(rng, site)
    target = page_url(rng, host(rng, "www"))
    q = [("sa", "t"), ("source", "web"), ("rct", "j"), ("url", target), ("ved", "2ahUKEw" + alnum(rng, 40)),
         ("usg", "AOvVaw" + alnum(rng, 22)), ("opi", str(rng.randint(10 ** 7, 10 ** 8)))]
    h = beacon_headers(rng, site, page, "text/ping")
    h += [("Ping-From", page), ("Ping-To", target)]
    c.add("POST", "/url?" + qs(q), h, b"PING")


def jspb(rng, c):
    """Google's web clients call their APIs with JSON-encoded protobuf arrays (`application/json+protobuf`)."""
    site = host(rng, "www")
    page = page_url(rng, site)
    service = pick(rng, ["google.internal.waa.v1.Waa/Create", "google.internal.people.v2.minimal.InternalPeopleMinimalService/ListPeopleByKnownId",
                         "google.internal.waa.v1.Waa/GenerateIT"])
    body = [[alnum(rng, 24), None, [rng.randint(1, 9), rng.randint(1, 99)]], pick(rng, [None, alnum(rng, 40)]), [text.title(rng)]]
    h = fetch(rng, pick(rng, ["waa-pa.clients6.google.com", "people-pa.clients6.google.com", "jnn-pa.googleapis.com"]), page,
              content_type="application/json+protobuf", accept="*/*",
              extra=[("X-Goog-Api-Key", "AIza" + alnum(rng, 35)), ("X-User-Agent", "grpc-web-javascript/0.1")])
    c.add("POST", "/$rpc/" + service, h, jsonb(body))


def pixel(rng, c):
    """Image beacons (GET, Sec-Fetch-Dest: image): the Meta pixel, Microsoft UET, LinkedIn Insight, TikTok and a
    site's own 1x1 GIF, as their tags request them when fetch or sendBeacon are not used."""
    site = host(rng, "www")
    page = page_url(rng, site)
    fam, ua, hints, _ = b = browser(rng)
    t = ts(rng) * 1000 + rng.randint(0, 999)
    kind = rng.randrange(5)
    if kind == 0:
        hst, path = "www.facebook.com", "/tr/"
        q = [("id", str(rng.randint(10 ** 14, 10 ** 16))), ("ev", pick(rng, ["PageView", "ViewContent", "AddToCart", "Purchase", "Lead"])),
             ("dl", page), ("rl", pick(rng, ["", "https://www.google.com/"])), ("if", "false"), ("ts", str(t)),
             ("sw", pick(rng, ["1920", "390", "1440"])), ("sh", pick(rng, ["1080", "844", "900"])), ("v", "2.9.179"), ("r", "stable"),
             ("ec", str(rng.randint(0, 5))), ("o", "4126"), ("fbp", f"fb.1.{t}.{rng.randint(10 ** 8, 2 * 10 ** 9)}"),
             ("cs_est", "true"), ("ler", "empty"), ("it", str(t - rng.randint(100, 9000))), ("coo", "false"), ("rqm", "GET")]
        if rng.random() < 0.4:
            q += [("cd[content_ids]", json_list(rng)), ("cd[content_type]", "product"), ("cd[value]", f"{rng.randint(1, 500)}.{rng.randint(0, 99):02d}"),
                  ("cd[currency]", pick(rng, ["EUR", "USD", "BRL"]))]
    elif kind == 1:
        hst, path = "bat.bing.com", "/action/0"
        q = [("ti", str(rng.randint(10 ** 6, 10 ** 8))), ("tm", "gtm002"), ("Ver", "2"), ("mid", uid(rng)), ("bo", "1"),
             ("sid", hexid(rng, 32)), ("vid", hexid(rng, 32)), ("vids", "0"), ("msclkid", "N"), ("uach", "pv=10.0.0"),
             ("pi", "918639831"), ("lg", pick(rng, ["en-US", "de-DE", "fr-FR"])), ("sw", "1920"), ("sh", "1080"), ("sc", "24"),
             ("tl", text.title(rng)), ("p", page), ("r", ""), ("lt", str(rng.randint(300, 9000))), ("evt", pick(rng, ["pageLoad", "custom"])),
             ("sv", "1"), ("cdb", "AQAQ"), ("rn", str(rng.randint(10 ** 5, 10 ** 6)))]
    elif kind == 2:
        hst, path = "px.ads.linkedin.com", "/collect/"
        q = [("v", "2"), ("fmt", "js"), ("pid", str(rng.randint(10 ** 5, 10 ** 7))), ("time", str(t)), ("url", page)]
    elif kind == 3:
        hst, path = "analytics.tiktok.com", "/api/v2/pixel/img"
        q = [("sdkid", alnum(rng, 20).upper()), ("event", pick(rng, ["Pageview", "ClickButton", "CompletePayment"])), ("ts", str(t)),
             ("url", page), ("ttp", alnum(rng, 27))]
    else:
        hst, path = site, pick(rng, ["/pixel.gif", "/t.gif", "/img/p.png", "/__utm.gif"])
        q = [("e", pick(rng, ["pv", "open", "imp"])), ("u", page), ("r", str(rng.random())[2:12]), ("c", hexid(rng, 16)),
             ("t", text.title(rng))]
    h = [("Host", hst), ("Connection", "keep-alive")]
    if fam == "chrome":
        h += hints
    h += [("User-Agent", ua), ("Accept", "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8"),
          ("Sec-Fetch-Site", "same-origin" if hst == site else "cross-site"), ("Sec-Fetch-Mode", "no-cors"),
          ("Sec-Fetch-Dest", "image"), ("Referer", page if rng.random() < 0.5 else "https://" + site + "/"),
          ("Accept-Encoding", "gzip, deflate, br"), ("Accept-Language", pick(rng, text.L[pick(rng, text.LANGUAGES)]["accept"]))]
    if hst == site:
        ck = cookie_header(rng)
        if ck:
            h.append(("Cookie", ck))
    c.add("GET", path + "?" + qs(q), h)


def json_list(rng):
    return "[" + ",".join(f'"{rng.randint(1000, 99999)}"' for _ in range(rng.randint(1, 4))) + "]"


def akamai_sensor(rng, c):
    """Akamai Bot Manager's sensor data, posted as JSON by its script on the site's own host: `;`-separated
    fields, one of them the base64 of the encrypted browser fingerprint, one a list of timings."""
    hst = host(rng, "www")
    page = page_url(rng, hst)
    blob = base64.b64encode(rng.randbytes(rng.randint(300, 900))).decode()
    timings = ",".join(str(rng.randint(80, 999)) for _ in range(20))
    data = f"3;0;1;0;{rng.randint(1000000, 9999999)};{blob};{timings}"
    h = beacon_headers(rng, hst, page, "text/plain;charset=UTF-8")
    path = "/" + "/".join(alnum(rng, rng.randint(5, 10)) for _ in range(rng.randint(3, 5)))
    c.add("POST", path, h, jsonb({"sensor_data": data}))


def session_recorder(rng, c):
    """A session-replay script's page start: the recorded page's URL, its size and its document type declaration."""
    hst = pick(rng, ["rs.fullstory.com", "r.lr-in-prod.com", "rec.smartlook.com"])
    page = page_url(rng, host(rng, "www"))
    doctype = pick(rng, ["<!DOCTYPE html>", "<!doctype html>",
                         '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" '
                         '"http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">'])
    body = {"OrgId": alnum(rng, 5).upper(), "UserId": uid(rng), "Url": page, "Base": page, "Width": rng.choice([1280, 1440, 1920]),
            "Height": rng.choice([720, 900, 1080]), "ScreenWidth": 1920, "ScreenHeight": 1080, "Doctype": doctype,
            "Referrer": pick(rng, ["", "https://www.google.com/"]), "PreviewMode": False, "ClientTime": ts(rng) * 1000}
    c.add("POST", "/rec/page", beacon_headers(rng, hst, page, "text/plain;charset=UTF-8"), jsonb(body))


# Shops and brands whose names are words of SQL's, a shell's or a database's (Microsoft's sample company among them).
BRANDS = ["Northwind Outdoor", "Sleep Number", "Select Comfort", "Master Lock", "Union Square Café", "Order Express",
          "Sample Road Books", "Tempdb Labs", "Drop Shop", "Exec Coaching Co"]


def page_title(rng):
    """A page's title as a shop writes it: the page, then the brand after a bar or a dash."""
    page = pick(rng, [text.title(rng, "en"), "Returns & Exchanges", "Terms & Conditions", "Shipping & Delivery",
                      "Ridgeline 2P Ultralight Tent", "Men's Rain Jacket"])
    return f"{page} {pick(rng, ['|', '-', '–'])} {pick(rng, BRANDS)}"


def sdk_reports(rng, c):
    """What analytics, error-reporting and tracing SDKs send of a person and a program: a person's properties
    updated with MongoDB-style operators (PostHog's `$identify` with `$set`, Amplitude's identify with `$set` and
    `$unset`, Mixpanel's engage records), error events that name the exception and what came before it (Bugsnag's
    `errorClass`, breadcrumbs and `runtimeVersions`, Rollbar's frames with their `locals` and the page's query as
    `location.search` gives it, a JavaScript stack whose Next.js route has brackets), OTLP/JSON spans that quote
    the program's database statements and element paths, telemetry naming its source by URN, and log events
    posted to Splunk's HTTP Event Collector."""
    site = host(rng, "www")
    page = page_url(rng, site)
    email = f"{pick(rng, ['ana', 'jan', 'mei', 'omar', 'liv'])}.{pick(rng, ['silva', 'devries', 'chen', 'haddad'])}@example.com"
    kind = rng.randrange(8)
    if kind == 0:  # PostHog identify through the site's own proxy or the cloud
        body = {"api_key": "phc_" + alnum(rng, 43), "batch": [{"event": "$identify", "properties": {
                "$current_url": page, "$pathname": "/" + page.split("/", 3)[-1], "$title": page_title(rng),
                "distinct_id": uid(rng),
                "$anon_distinct_id": uid(rng), "$set": {"email": email, "plan": pick(rng, ["free", "pro", "team"])},
                "$set_once": {"$initial_referrer": pick(rng, ["$direct", "https://www.google.com/"]),
                              "$initial_utm_source": pick(rng, ["newsletter", "google", None])}},
                "timestamp": iso(rng), "uuid": uid(rng)}], "sent_at": iso(rng)}
        c.add("POST", pick(rng, ["/ingest/e/", "/e/"]) + f"?ip=1&_={ts(rng)}123&ver=1.194.1",
              beacon_headers(rng, pick(rng, [site, "eu.i.posthog.com"]), page, "text/plain"), jsonb(body))
    elif kind == 1:  # Amplitude identify
        props = {"$set": {"email": email, "referrer": pick(rng, ["https://www.google.com/", "android-app://com.slack"])}}
        if rng.random() < 0.5:
            props["$unset"] = {"utm_source": "-", "utm_campaign": "-"}
        body = {"api_key": hexid(rng, 32), "events": [{"user_id": f"user-{rng.randint(1, 99999)}", "device_id": uid(rng),
                "event_type": "$identify", "user_properties": props, "time": ts(rng) * 1000, "platform": "Web",
                "event_properties": {"[Amplitude] Page Title": page_title(rng), "[Amplitude] Page URL": page}}]}
        c.add("POST", "/2/httpapi", fetch(rng, "api2.amplitude.com", page, content_type="application/json", accept="*/*"), jsonb(body))
    elif kind == 2:  # Mixpanel engage
        data = [{"$token": hexid(rng, 32), "$distinct_id": uid(rng), "$set": {"$email": email, "$name": text.title(rng)}}]
        body = "data=" + quote(base64.b64encode(jsonb(data)).decode(), safe="")
        c.add("POST", f"/engage/?verbose=1&ip=1&_={ts(rng)}{rng.randint(100, 999)}",
              beacon_headers(rng, "api-js.mixpanel.com", page, "application/x-www-form-urlencoded"), body)
    elif kind == 3:  # Bugsnag Android
        cls, msg = pick(rng, [("java.lang.NullPointerException", "Attempt to invoke virtual method 'java.lang.String "
                               "com.example.shop.model.Cart.getId()' on a null object reference"),
                              ("java.lang.ClassCastException", "java.lang.Integer cannot be cast to java.lang.String"),
                              ("java.net.SocketTimeoutException", "timeout while connecting to java.net.Socket api.example.com/443")])
        event = {"exceptions": [{"errorClass": cls, "message": msg, "type": "android", "stacktrace": [
                    {"method": "com.example.shop.ui.CartFragment.onViewCreated", "file": "CartFragment.kt",
                     "lineNumber": rng.randint(20, 400), "inProject": True}]}],
                 "breadcrumbs": [{"timestamp": iso(rng), "name": pick(rng, ["fetch() succeeded", "XMLHttpRequest succeeded", "Activity#onResume()"]),
                                  "type": pick(rng, ["request", "state"]), "metaData": {"method": "GET", "url": "https://api.example.com/v2/cart"}}
                                 for _ in range(rng.randint(1, 4))],
                 "device": {"manufacturer": "samsung", "model": "SM-A145R", "osName": "android", "osVersion": "13",
                            "runtimeVersions": {"androidApiLevel": "33", "osBuild": "TP1A.220624.014"}},
                 "app": {"id": "com.example.shop", "version": f"3.{rng.randint(0, 40)}.0"}, "severity": "error", "unhandled": True}
        body = {"apiKey": hexid(rng, 32), "payloadVersion": "4.0", "notifier": {"name": "Android Bugsnag Notifier", "version": "6.6.1"},
                "events": [event]}
        c.add("POST", "/", [("Host", "notify.bugsnag.com"), ("Bugsnag-Api-Key", body["apiKey"]), ("Bugsnag-Payload-Version", "4.0"),
                            ("Content-Type", "application/json"), ("User-Agent", "okhttp/4.12.0")], jsonb(body))
    elif kind == 4:  # Rollbar from a Django app and from a Next.js page
        query = "?q=" + quote(text.title(rng)) + "&options%5Bprefix%5D=last"
        stack = ("SyntaxError: Unexpected token '<', \"<!DOCTYPE \"... is not valid JSON\n"
                 f"    at trackEvent (https://{site}/_next/static/chunks/app/(shop)/products/%5Bslug%5D/page-{hexid(rng, 16)}.js:1:{rng.randint(100, 9999)})")
        data = {"environment": "production", "level": "error", "platform": pick(rng, ["browser", "python"]),
                "body": {"trace": {"exception": {"class": "SyntaxError", "message": "Unexpected token '<', \"<!DOCTYPE \"... is not valid JSON"},
                                   "frames": [{"filename": "/app/orders/views.py", "lineno": rng.randint(10, 300), "method": "create",
                                               "locals": {"request": "<rest_framework.request.Request: POST '/api/v2/orders/'>",
                                                          "self": "<orders.views.OrderViewSet object at 0x7f3a2c1d5e50>"}}]}},
                "request": {"url": page, "query_string": query},
                "server": {"host": f"web-{rng.randint(1, 9)}", "root": pick(rng, ["/var/www/app", "/srv/app/current", "/app"])},
                "notifier": {"name": "rollbar-browser-js", "version": "2.26.4", "diagnostic": {"raw_error": {"stack": stack}}}}
        token = hexid(rng, 32)
        c.add("POST", "/api/1/item/", fetch(rng, "api.rollbar.com", page, content_type="application/json", accept="*/*",
                                            extra=[("X-Rollbar-Access-Token", token)]),
              jsonb({"access_token": token, "data": data}))
    elif kind == 5:  # OTLP/JSON traces
        def attr(k, v):
            return {"key": k, "value": {"stringValue": v}}
        spans = [{"traceId": hexid(rng, 32), "spanId": hexid(rng, 16), "name": pick(rng, ["products.find", "click", "GET /api/cart"]),
                  "kind": 3, "startTimeUnixNano": str(ts(rng) * 10**9), "endTimeUnixNano": str(ts(rng) * 10**9 + 5 * 10**6),
                  "attributes": [attr("db.system", "mongodb"),
                                 attr("db.statement", json.dumps({"find": "products", "filter": {"rating": {"$gte": rng.randint(1, 5)}}})),
                                 attr("target_xpath", f"//*[@id='root']/div[{rng.randint(1, 4)}]/main/button"),
                                 attr("http.url", page)]} for _ in range(rng.randint(1, 3))]
        body = {"resourceSpans": [{"resource": {"attributes": [attr("service.name", pick(rng, ["web", "checkout"]))]},
                                   "scopeSpans": [{"scope": {"name": "@opentelemetry/instrumentation-mongodb"}, "spans": spans}]}]}
        c.add("POST", "/v1/traces", [("Host", pick(rng, ["otel." + site.split(".", 1)[1], "otlp.eu01.nr-data.net"])),
                                     ("User-Agent", pick(rng, ["OTel-OTLP-Exporter-JavaScript/0.55.0", "OTel-OTLP-Exporter-Go/1.32.0"])),
                                     ("Content-Type", "application/json")], jsonb(body))
    elif kind == 7:  # a log shipper posting to Splunk's HTTP Event Collector: container log lines and Python logging records
        pod = f"{pick(rng, ['web', 'checkout', 'worker'])}-{hexid(rng, 10)}-{alnum(rng, 5).lower()}"
        events = []
        for _ in range(rng.randint(1, 4)):
            record = pick(rng, [
                {"levelname": "ERROR", "name": "django.request", "pathname": "/usr/local/lib/python3.12/site-packages/django/utils/log.py",
                 "msg": f"Internal Server Error: /checkout/{rng.randint(1, 999)}/",
                 "request": f"<WSGIRequest: POST '/checkout/{rng.randint(1, 999)}/'>",
                 "exc_info": 'Traceback (most recent call last):\n  File "/app/shop/views.py", line 88, in pay\n    order.capture()\n'
                             "ValueError: card declined"},
                f"{iso(rng)} level=info msg=\"GET /api/cart 200\" duration_ms={rng.randint(2, 900)} user_agent=\"Mozilla/5.0\"",
                {"action": "login.success", "actor": {"email": email}, "http": {"method": "POST", "path": "/api/auth/login"}}])
            events.append(json.dumps({"time": ts(rng), "host": f"ip-10-0-{rng.randint(0, 255)}-{rng.randint(0, 255)}.compute.internal",
                                      "source": f"/var/log/containers/{pod}_shop_app-{hexid(rng, 64)}.log",
                                      "sourcetype": pick(rng, ["kube:container:app", "_json", "python:logging"]), "index": "app",
                                      "event": record}, ensure_ascii=False, separators=(",", ":")))
        c.add("POST", "/services/collector/event", [("Host", f"splunk.{site.split('.', 1)[1]}:8088"),
                                                    ("Authorization", f"Splunk {uid(rng)}"), ("User-Agent", "Fluent-Bit"),
                                                    ("Content-Type", "application/json")], "".join(events).encode())
    else:  # telemetry naming its source and subject by URN
        body = [{"data": {"playheadPosition": rng.randint(0, 5000000), "mediaId": uid(rng)},
                 "datacontenttype": "application/json;charset=utf-8", "id": uid(rng),
                 "source": "urn:dss:source:sdk:" + pick(rng, ["javascript:windows:chrome", "javascript:macosx:safari", "android:phone"]),
                 "subject": f"sessionId={uid(rng)},profileId={uid(rng)}", "time": iso(rng),
                 "type": "urn:dss:event:fed:media:playback:heartbeat"}]
        c.add("POST", "/telemetry", beacon_headers(rng, "telemetry." + site.split(".", 1)[1], page, "application/json"), jsonb(body))


def build(n=2500, seed=0xBEAC0):
    rng = random.Random(seed)
    c = Corpus("beacons")
    makers = [(4, send_beacon), (5, ga4), (2, pixel), (4, other_collectors), (3, reporting_api), (2, csp_report),
              (3, sentry_envelope), (2, rum), (1, compressed), (1, ping), (1, jspb), (1, akamai_sensor), (1, session_recorder),
              (1, route_beacon), (2, sdk_reports)]
    for _ in range(n):
        weighted(rng, makers)(rng, c)
    return c
