"""Shared pieces of the generated benign corpus: the request writer, hosts, the header sets of real clients,
cookies and tokens. Every function takes the class's own `random.Random`, so each file is deterministic on its own.
"""
import base64
import hashlib
import json
import string
import uuid
from pathlib import Path
from urllib.parse import quote, urlencode

OUT = Path(__file__).resolve().parent.parent  # benches/benign

# --- writing ------------------------------------------------------------------------------------------------------


class Corpus:
    """Raw HTTP/1.1 requests for one output file: CRLF line ends, a blank line after each request, a body framed
    by Content-Length (the format of CSIC 2010, `rulec replay` and benches/crs_compare.py)."""

    def __init__(self, name):
        self.name = name
        self.requests = []

    def add(self, method, target, headers, body=b""):
        """headers: (name, value) in wire order, Host first. Content-Length is added when there is a body or the
        method normally carries one; a Content-Length given in headers is replaced by the true length."""
        if isinstance(body, str):
            body = body.encode()
        headers = [(k, v) for k, v in headers if k.lower() != "content-length"]
        lines = [f"{method} {target} HTTP/1.1"] + [f"{k}: {v}" for k, v in headers]
        if body or method in ("POST", "PUT", "PATCH"):
            lines.append(f"Content-Length: {len(body)}")
        self.requests.append(("\r\n".join(lines) + "\r\n\r\n").encode() + body)

    def write(self):
        path = OUT / f"{self.name}.txt"
        # As make_corpus.py: a request without a body ends with its blank line and gets one more; a body gets a
        # line end and a blank line.
        path.write_bytes(b"".join(r + (b"\r\n" if r.endswith(b"\r\n\r\n") else b"\r\n\r\n") for r in self.requests))
        return path, len(self.requests)


# --- small helpers ------------------------------------------------------------------------------------------------

def jsonb(value, pretty=False):
    """JSON as JSON.stringify (compact, UTF-8 as is) or as Python/Jackson pretty-printers write it."""
    if pretty:
        return json.dumps(value, ensure_ascii=False, indent=2).encode()
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def form(fields):
    """application/x-www-form-urlencoded as browsers write it: UTF-8, space as +."""
    return urlencode(fields, encoding="utf-8")


def qs(fields):
    return urlencode(fields, quote_via=quote, safe="-_.~")


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def hexid(rng, n):
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def alnum(rng, n, alphabet=string.ascii_letters + string.digits):
    return "".join(rng.choice(alphabet) for _ in range(n))


def uid(rng):
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def ts(rng):
    """A Unix time in seconds in late 2024 / 2025."""
    return rng.randint(1727740800, 1764547200)


def iso(rng, t=None):
    import datetime
    t = ts(rng) if t is None else t
    d = datetime.datetime.fromtimestamp(t, datetime.timezone.utc)
    return d.strftime("%Y-%m-%dT%H:%M:%S.") + f"{rng.randint(0, 999):03d}Z"


def pick(rng, seq):
    return seq[rng.randrange(len(seq))]


def weighted(rng, pairs):
    """pairs: (weight, value)."""
    total = sum(w for w, _ in pairs)
    x = rng.uniform(0, total)
    for w, v in pairs:
        x -= w
        if x <= 0:
            return v
    return pairs[-1][1]


# --- sites --------------------------------------------------------------------------------------------------------

# Brands under the reserved .example TLD (RFC 2606) and example.com/org/net.
BRANDS = ["northwind", "lumenpay", "bergmann-moebel", "casa-lucia", "tindra", "kobo-books", "velocity-bikes",
          "mapleleaf-health", "sakura-tea", "atlas-travel", "pixelforge", "helios-energy", "orchard-foods",
          "nordlicht", "ribeira-imoveis", "zocalo-market", "kestrel-analytics", "bluefin-bank", "haven-homes",
          "quillpad", "trailhead-gear", "medina-souk", "istanbul-kitap", "warszawa-sklep", "hanoi-shop"]
TLDS = ["example", "example.com", "example.org", "example.net"]


def site(rng):
    return f"{pick(rng, BRANDS)}.{pick(rng, TLDS)}"


def host(rng, sub=None):
    sub = sub or weighted(rng, [(5, "www"), (3, "api"), (3, "app"), (1, "shop"), (1, "m"), (1, "account"),
                                (1, "forum"), (1, "help"), (1, "cdn"), (1, "admin"), (1, "dashboard")])
    return f"{sub}.{site(rng)}"


# --- client header sets ------------------------------------------------------------------------------------------

CHROME_VERSIONS = [124, 125, 126, 127, 128, 129, 130, 131, 132, 133, 134]
FIREFOX_VERSIONS = [115, 125, 127, 128, 129, 130, 131, 132, 133, 134, 135]
SAFARI_VERSIONS = ["16.6", "17.4.1", "17.5", "17.6", "18.0", "18.1", "18.1.1", "18.2", "18.3"]
IOS_VERSIONS = ["16_7_10", "17_5_1", "17_6_1", "18_0", "18_1", "18_1_1", "18_2", "18_3"]
ANDROID = [("10", "K"), ("13", "SM-S911B"), ("14", "Pixel 8"), ("14", "SM-A546B"), ("12", "M2101K6G"),
           ("15", "Pixel 9 Pro")]
NOT_A_BRAND = ['"Not_A Brand";v="24"', '"Not)A;Brand";v="99"', '"Not/A)Brand";v="8"', '"Not A(Brand";v="8"']


def browser(rng):
    """A browser: (family, user agent, client hints or None, platform tag)."""
    kind = weighted(rng, [(30, "chrome-win"), (10, "chrome-mac"), (14, "chrome-android"), (6, "edge"),
                          (7, "firefox-win"), (3, "firefox-linux"), (2, "firefox-mac"), (1, "firefox-android"),
                          (7, "safari-mac"), (14, "safari-iphone"), (2, "safari-ipad"), (2, "samsung"),
                          (1, "opera"), (1, "chrome-linux")])
    cv = pick(rng, CHROME_VERSIONS)
    brand = pick(rng, NOT_A_BRAND)
    if kind.startswith("chrome") or kind in ("edge", "samsung", "opera"):
        if kind == "chrome-win":
            ua = (f"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
                  f"Chrome/{cv}.0.0.0 Safari/537.36")
            plat, mobile = "Windows", "?0"
        elif kind == "chrome-mac":
            ua = (f"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) "
                  f"Chrome/{cv}.0.0.0 Safari/537.36")
            plat, mobile = "macOS", "?0"
        elif kind == "chrome-linux":
            ua = f"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/{cv}.0.0.0 Safari/537.36"
            plat, mobile = "Linux", "?0"
        elif kind == "chrome-android":
            av, model = pick(rng, ANDROID)
            ua = (f"Mozilla/5.0 (Linux; Android {av}; K) AppleWebKit/537.36 (KHTML, like Gecko) "
                  f"Chrome/{cv}.0.0.0 Mobile Safari/537.36")
            plat, mobile = "Android", "?1"
        elif kind == "edge":
            ua = (f"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
                  f"Chrome/{cv}.0.0.0 Safari/537.36 Edg/{cv}.0.{rng.randint(2000, 3000)}.{rng.randint(10, 99)}")
            plat, mobile = "Windows", "?0"
        elif kind == "samsung":
            ua = (f"Mozilla/5.0 (Linux; Android 14; SAMSUNG SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) "
                  f"SamsungBrowser/{rng.randint(24, 27)}.0 Chrome/{cv - 6}.0.0.0 Mobile Safari/537.36")
            plat, mobile = "Android", "?1"
        else:
            ua = (f"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
                  f"Chrome/{cv}.0.0.0 Safari/537.36 OPR/{cv - 15}.0.0.0")
            plat, mobile = "Windows", "?0"
        name = {"edge": "Microsoft Edge", "opera": "Opera", "samsung": "Samsung Internet"}.get(kind, "Google Chrome")
        hints = [("sec-ch-ua", f'"{name}";v="{cv}", "Chromium";v="{cv}", {brand}'), ("sec-ch-ua-mobile", mobile),
                 ("sec-ch-ua-platform", f'"{plat}"')]
        return "chrome", ua, hints, kind
    if kind.startswith("firefox"):
        fv = pick(rng, FIREFOX_VERSIONS)
        os_part = {"firefox-win": "Windows NT 10.0; Win64; x64", "firefox-linux": "X11; Linux x86_64",
                   "firefox-mac": "Macintosh; Intel Mac OS X 10.15", "firefox-android": "Android 14; Mobile"}[kind]
        ua = f"Mozilla/5.0 ({os_part}; rv:{fv}.0) Gecko/{'20100101' if kind != 'firefox-android' else str(fv) + '.0'} Firefox/{fv}.0"
        return "firefox", ua, None, kind
    sv = pick(rng, SAFARI_VERSIONS)
    if kind == "safari-mac":
        ua = (f"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) "
              f"Version/{sv} Safari/605.1.15")
    else:
        dev = "iPhone; CPU iPhone OS" if kind == "safari-iphone" else "iPad; CPU OS"
        ua = (f"Mozilla/5.0 ({dev} {pick(rng, IOS_VERSIONS)} like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
              f"Version/{sv} Mobile/15E148 Safari/604.1")
    return "safari", ua, None, kind


ACCEPT_DOC = {
    "chrome": "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,"
    "application/signed-exchange;v=b3;q=0.7",
    "firefox": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
    "safari": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
}
ENCODING = {"chrome": "gzip, deflate, br, zstd", "firefox": "gzip, deflate, br, zstd", "safari": "gzip, deflate, br"}

LANGS = ["en-US,en;q=0.9", "en-GB,en;q=0.9", "fr-FR,fr;q=0.9,en-US;q=0.8,en;q=0.7", "de-DE,de;q=0.9,en;q=0.8",
         "es-ES,es;q=0.9", "es-MX,es;q=0.9,en;q=0.8", "pt-BR,pt;q=0.9,en-US;q=0.8,en;q=0.7", "it-IT,it;q=0.9",
         "pl-PL,pl;q=0.9,en-US;q=0.8,en;q=0.7", "ru-RU,ru;q=0.9,en-US;q=0.8,en;q=0.7", "tr-TR,tr;q=0.9",
         "ar,en-US;q=0.9,en;q=0.8", "he-IL,he;q=0.9,en-US;q=0.8,en;q=0.7", "hi-IN,hi;q=0.9,en-IN;q=0.8,en;q=0.7",
         "zh-CN,zh;q=0.9", "ja-JP,ja;q=0.9", "ko-KR,ko;q=0.9,en-US;q=0.8,en;q=0.7", "vi-VN,vi;q=0.9",
         "th-TH,th;q=0.9", "el-GR,el;q=0.9,en;q=0.8", "nl-NL,nl;q=0.9,en;q=0.8", "en-US", "en"]


def navigation(rng, hst, *, referer=None, cookie=None, lang=None, site="none", b=None):
    """A top-level navigation in each browser's header order."""
    fam, ua, hints, _ = b or browser(rng)
    lang = lang or pick(rng, LANGS)
    h = [("Host", hst)]
    if fam == "chrome":
        h += [("Connection", "keep-alive")] + hints
        h += [("Upgrade-Insecure-Requests", "1"), ("User-Agent", ua), ("Accept", ACCEPT_DOC[fam]),
              ("Sec-Fetch-Site", site), ("Sec-Fetch-Mode", "navigate"), ("Sec-Fetch-User", "?1"),
              ("Sec-Fetch-Dest", "document")]
        if referer:
            h.append(("Referer", referer))
        h += [("Accept-Encoding", ENCODING[fam]), ("Accept-Language", lang)]
        if cookie:
            h.append(("Cookie", cookie))
        if rng.random() < 0.3:
            h.append(("Priority", "u=0, i"))
    elif fam == "firefox":
        h += [("User-Agent", ua), ("Accept", ACCEPT_DOC[fam]), ("Accept-Language", lang),
              ("Accept-Encoding", ENCODING[fam])]
        if referer:
            h.append(("Referer", referer))
        h += [("Connection", "keep-alive")]
        if cookie:
            h.append(("Cookie", cookie))
        h += [("Upgrade-Insecure-Requests", "1"), ("Sec-Fetch-Dest", "document"), ("Sec-Fetch-Mode", "navigate"),
              ("Sec-Fetch-Site", site), ("Sec-Fetch-User", "?1"), ("Priority", "u=0, i")]
    else:
        h += [("Accept", ACCEPT_DOC[fam]), ("Sec-Fetch-Site", site)]
        if cookie:
            h.append(("Cookie", cookie))
        h += [("Accept-Encoding", ENCODING[fam]), ("Sec-Fetch-Mode", "navigate"), ("User-Agent", ua),
              ("Accept-Language", lang), ("Sec-Fetch-Dest", "document")]
        if referer:
            h.append(("Referer", referer))
        h += [("Priority", "u=0, i"), ("Connection", "keep-alive")]
    return h


def form_post(rng, hst, referer, content_type, *, cookie=None, lang=None, b=None):
    """A form the browser submits (navigation, same origin)."""
    fam, ua, hints, _ = b or browser(rng)
    lang = lang or pick(rng, LANGS)
    origin = f"https://{hst}"
    h = [("Host", hst)]
    if fam == "chrome":
        h += [("Connection", "keep-alive"), ("Cache-Control", "max-age=0")] + hints
        h += [("Origin", origin), ("Content-Type", content_type), ("Upgrade-Insecure-Requests", "1"),
              ("User-Agent", ua), ("Accept", ACCEPT_DOC[fam]), ("Sec-Fetch-Site", "same-origin"),
              ("Sec-Fetch-Mode", "navigate"), ("Sec-Fetch-User", "?1"), ("Sec-Fetch-Dest", "document"),
              ("Referer", referer), ("Accept-Encoding", ENCODING[fam]), ("Accept-Language", lang)]
    elif fam == "firefox":
        h += [("User-Agent", ua), ("Accept", ACCEPT_DOC[fam]), ("Accept-Language", lang),
              ("Accept-Encoding", ENCODING[fam]), ("Content-Type", content_type), ("Origin", origin),
              ("Connection", "keep-alive"), ("Referer", referer), ("Upgrade-Insecure-Requests", "1"),
              ("Sec-Fetch-Dest", "document"), ("Sec-Fetch-Mode", "navigate"), ("Sec-Fetch-Site", "same-origin"),
              ("Sec-Fetch-User", "?1"), ("Priority", "u=0, i")]
    else:
        h += [("Accept", ACCEPT_DOC[fam]), ("Content-Type", content_type), ("Sec-Fetch-Site", "same-origin"),
              ("Origin", origin), ("Accept-Encoding", ENCODING[fam]), ("Sec-Fetch-Mode", "navigate"),
              ("User-Agent", ua), ("Referer", referer), ("Sec-Fetch-Dest", "document"),
              ("Accept-Language", lang), ("Priority", "u=0, i"), ("Connection", "keep-alive")]
    if cookie:
        h.append(("Cookie", cookie))
    return h


def fetch(rng, hst, referer, *, content_type=None, accept="application/json, text/plain, */*", auth=None,
          cookie=None, extra=(), lang=None, b=None, mode="cors"):
    """fetch()/XMLHttpRequest from a page (a single-page app), same site or same origin."""
    fam, ua, hints, _ = b or browser(rng)
    lang = lang or pick(rng, LANGS)
    h = [("Host", hst), ("Connection", "keep-alive")]
    if fam == "chrome":
        h += hints
    h += [("User-Agent", ua), ("Accept", accept)]
    if content_type:
        h.append(("Content-Type", content_type))
    if auth:
        h.append(("Authorization", auth))
    h += list(extra)
    origin_host = referer.split("/", 3)[2]
    site_rel = "same-origin" if origin_host == hst else ("same-site" if origin_host.split(".", 1)[1] ==
                                                          hst.split(".", 1)[1] else "cross-site")
    if content_type or mode != "cors" or rng.random() < 0.5:
        h.append(("Origin", f"https://{origin_host}"))
    h += [("Sec-Fetch-Site", site_rel), ("Sec-Fetch-Mode", mode), ("Sec-Fetch-Dest", "empty"),
          ("Referer", referer), ("Accept-Encoding", ENCODING[fam]), ("Accept-Language", lang)]
    if cookie:
        h.append(("Cookie", cookie))
    if fam == "chrome" and rng.random() < 0.4:
        h.append(("Priority", "u=1, i"))
    return h


# Mobile apps, SDKs, command-line tools: (name, user agent, extra headers in the client's order).
def app_client(rng):
    """A native mobile app's HTTP stack: okhttp (Android), CFNetwork/Alamofire (iOS), Dart (Flutter)."""
    app = pick(rng, ["Shop", "Bank", "Rides", "Fitness", "News", "Tickets", "Delivery", "Chat"])
    ver = f"{rng.randint(1, 9)}.{rng.randint(0, 40)}.{rng.randint(0, 9)}"
    kind = pick(rng, ["okhttp", "okhttp", "cfnetwork", "alamofire", "dart", "ktor", "retrofit"])
    if kind in ("okhttp", "retrofit"):
        return [("User-Agent", f"okhttp/{pick(rng, ['4.9.3', '4.10.0', '4.11.0', '4.12.0', '5.0.0-alpha.14'])}"),
                ("Accept-Encoding", "gzip"), ("Connection", "Keep-Alive")]
    if kind == "ktor":
        return [("User-Agent", f"{app}App/{ver} (Android 14; Pixel 8; build {rng.randint(1000, 9999)})"),
                ("Accept-Charset", "UTF-8"), ("Accept-Encoding", "gzip")]
    if kind == "cfnetwork":
        cfn = pick(rng, ["1496.0.7 Darwin/23.5.0", "1568.100.1 Darwin/24.0.0", "1568.200.51 Darwin/24.1.0",
                         "1568.300.101 Darwin/24.2.0", "1410.0.3 Darwin/22.6.0"])
        return [("Accept", "*/*"), ("Accept-Language", pick(rng, ["en-GB,en;q=0.9", "de-DE,de;q=0.9", "fr-FR,fr;q=0.9",
                                                                    "ja-JP,ja;q=0.9", "en-US,en;q=0.9"])),
                ("Accept-Encoding", "gzip, deflate, br"), ("User-Agent", f"{app}/{rng.randint(100, 9999)} CFNetwork/{cfn}"),
                ("Connection", "keep-alive")]
    if kind == "alamofire":
        return [("Accept-Encoding", "br;q=1.0, gzip;q=0.9, deflate;q=0.8"),
                ("Accept-Language", "en-US;q=1.0, es-US;q=0.9"),
                ("User-Agent", f"{app}/{ver} (com.example.{app.lower()}; build:{rng.randint(100, 9999)}; iOS "
                               f"{pick(rng, ['17.5.1', '18.1.0', '18.2.0', '16.7.10'])}) Alamofire/"
                               f"{pick(rng, ['5.8.1', '5.9.1', '5.10.2'])}"), ("Accept", "*/*")]
    return [("User-Agent", f"Dart/{pick(rng, ['2.19', '3.3', '3.4', '3.5', '3.6'])} (dart:io)"),
            ("Accept-Encoding", "gzip")]


def sdk_client(rng):
    """A server-side SDK or command-line client."""
    kind = pick(rng, ["requests", "axios", "node-fetch", "undici", "go", "aws", "stripe", "curl", "httpx",
                      "java", "apache", "ruby", "postman", "guzzle", "dotnet", "wget", "boto3"])
    if kind == "requests":
        return [("User-Agent", f"python-requests/{pick(rng, ['2.28.2', '2.31.0', '2.32.3'])}"),
                ("Accept-Encoding", "gzip, deflate"), ("Accept", "*/*"), ("Connection", "keep-alive")]
    if kind == "httpx":
        return [("Accept", "*/*"), ("Accept-Encoding", "gzip, deflate"), ("Connection", "keep-alive"),
                ("User-Agent", f"python-httpx/{pick(rng, ['0.25.2', '0.27.0', '0.27.2', '0.28.1'])}")]
    if kind == "axios":
        return [("Accept", "application/json, text/plain, */*"),
                ("User-Agent", f"axios/{pick(rng, ['0.27.2', '1.6.8', '1.7.7', '1.7.9'])}"),
                ("Accept-Encoding", "gzip, compress, deflate, br")]
    if kind == "node-fetch":
        return [("Accept", "*/*"), ("User-Agent", "node-fetch/1.0 (+https://github.com/bitinn/node-fetch)"),
                ("Accept-Encoding", "gzip,deflate"), ("Connection", "close")]
    if kind == "undici":
        return [("Connection", "keep-alive"), ("Accept", "*/*"), ("Accept-Language", "*"), ("Sec-Fetch-Mode", "cors"),
                ("User-Agent", "node"), ("Accept-Encoding", "gzip, deflate")]
    if kind == "go":
        return [("User-Agent", pick(rng, ["Go-http-client/1.1", "Go-http-client/2.0"])), ("Accept-Encoding", "gzip")]
    if kind == "aws":
        return [("User-Agent", f"aws-sdk-js/3.{rng.randint(400, 700)}.0 ua/2.1 os/linux#5.10.{rng.randint(100, 230)}-"
                               f"amzn2.x86_64 lang/js md/nodejs#{pick(rng, ['18.20.4', '20.18.0', '22.11.0'])} "
                               f"api/{pick(rng, ['s3', 'dynamodb', 'sqs', 'kinesis'])}#3.{rng.randint(400, 700)}.0"),
                ("amz-sdk-invocation-id", uid(rng)), ("amz-sdk-request", "attempt=1; max=3")]
    if kind == "boto3":
        return [("User-Agent", f"Boto3/1.35.{rng.randint(0, 90)} md/Botocore#1.35.{rng.randint(0, 90)} ua/2.0 "
                               f"os/linux#6.1.0 md/arch#x86_64 lang/python#3.12.{rng.randint(0, 7)} "
                               f"md/pyimpl#CPython cfg/retry-mode#legacy Botocore/1.35.{rng.randint(0, 90)}"),
                ("amz-sdk-invocation-id", uid(rng)), ("amz-sdk-request", "attempt=1")]
    if kind == "stripe":
        lang = pick(rng, ["python", "node", "ruby"])
        ver = {"python": "10.12.0", "node": "17.4.0", "ruby": "13.2.0"}[lang]
        ua_lang = {"python": "Stripe/v1 PythonBindings/", "node": "Stripe/v1 NodeBindings/",
                   "ruby": "Stripe/v1 RubyBindings/"}[lang]
        return [("User-Agent", ua_lang + ver), ("Accept", "*/*"), ("Accept-Encoding", "gzip, deflate"),
                ("Stripe-Version", pick(rng, ["2024-06-20", "2024-09-30.acacia", "2024-11-20.acacia"])),
                ("X-Stripe-Client-User-Agent", json.dumps({"bindings_version": ver, "lang": lang,
                                                           "publisher": "stripe", "httplib": "requests"}))]
    if kind == "curl":
        return [("User-Agent", f"curl/{pick(rng, ['7.68.0', '7.81.0', '7.88.1', '8.5.0', '8.7.1', '8.11.0'])}"),
                ("Accept", "*/*")]
    if kind == "wget":
        return [("User-Agent", "Wget/1.21.4"), ("Accept", "*/*"), ("Accept-Encoding", "identity"),
                ("Connection", "Keep-Alive")]
    if kind == "java":
        return [("User-Agent", f"Java-http-client/{pick(rng, ['11.0.25', '17.0.13', '21.0.5'])}")]
    if kind == "apache":
        return [("User-Agent", f"Apache-HttpClient/{pick(rng, ['4.5.14', '5.3.1', '5.4.1'])} (Java/17.0.13)"),
                ("Accept-Encoding", "gzip,deflate"), ("Connection", "Keep-Alive")]
    if kind == "ruby":
        return [("User-Agent", pick(rng, ["Faraday v2.12.1", "Ruby", "rest-client/2.1.0 (linux x86_64) ruby/3.3.6p108"])),
                ("Accept-Encoding", "gzip;q=1.0,deflate;q=0.6,identity;q=0.3"), ("Accept", "*/*")]
    if kind == "postman":
        return [("User-Agent", f"PostmanRuntime/7.{rng.randint(36, 43)}.{rng.randint(0, 3)}"), ("Accept", "*/*"),
                ("Cache-Control", "no-cache"), ("Postman-Token", uid(rng)), ("Accept-Encoding", "gzip, deflate, br"),
                ("Connection", "keep-alive")]
    if kind == "guzzle":
        return [("User-Agent", f"GuzzleHttp/7 (+https://github.com/guzzle/guzzle) PHP/8.{rng.randint(1, 3)}."
                               f"{rng.randint(0, 20)}")]
    return [("User-Agent", pick(rng, ["Microsoft.Extensions.Http/8.0", "RestSharp/112.1.0.0"])),
            ("traceparent", f"00-{hexid(rng, 32)}-{hexid(rng, 16)}-01")]


CRAWLERS = [
    "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
    "Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/131.0.6778.108 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
    "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm) "
    "Chrome/116.0.1938.76 Safari/537.36",
    "Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)",
    "DuckDuckBot/1.1; (+http://duckduckgo.com/duckduckbot.html)",
    "Mozilla/5.0 (compatible; Baiduspider/2.0; +http://www.baidu.com/search/spider.html)",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.1.1 "
    "Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)",
    "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
    "Twitterbot/1.0",
    "LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)",
    "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
    "Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)",
    "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)",
    "Mozilla/5.0 (compatible; SemrushBot/7~bl; +http://www.semrush.com/bot.html)",
    "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)",
    "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)",
    "Mozilla/5.0 (Linux; Android 7.0;) AppleWebKit/537.36 (KHTML, like Gecko) Mobile Safari/537.36 (compatible; "
    "PetalBot;+https://webmaster.petalsearch.com/site/petalbot)",
    "Mozilla/5.0 (compatible; UptimeRobot/2.0; http://www.uptimerobot.com/)",
    "Pingdom.com_bot_version_1.4_(http://www.pingdom.com/)",
    "WhatsApp/2.23.20.0",
    "TelegramBot (like TwitterBot)",
    "Mozilla/5.0 (compatible; Qwantify/Bleriot/1.2.1; +https://help.qwant.com/bot)",
]


# --- cookies and tokens --------------------------------------------------------------------------------------------

def jwt(rng, claims=None, alg="RS256"):
    """A JWT of the usual shape: header, claims, signature bytes (not a valid signature)."""
    now = ts(rng)
    claims = claims or {
        "sub": str(rng.randint(1000, 9999999)) if rng.random() < 0.6 else uid(rng),
        "iss": pick(rng, ["https://auth.example.com/", "https://accounts.example.org", "https://login.example.net/"
                          f"{uid(rng)}/v2.0", f"https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_{alnum(rng, 9)}"]),
        "aud": pick(rng, ["web", "api://default", alnum(rng, 26).lower(), "https://api.example.com"]),
        "iat": now, "exp": now + pick(rng, [300, 900, 3600, 86400]),
    }
    if rng.random() < 0.5:
        claims["scope"] = pick(rng, ["openid profile email", "read:orders write:cart", "offline_access"])
    if rng.random() < 0.4:
        claims["email"] = email(rng)
    header = {"alg": alg, "typ": "JWT"}
    if rng.random() < 0.7:
        header["kid"] = alnum(rng, pick(rng, [8, 16, 27]))
    siglen = {"RS256": 256, "ES256": 64, "HS256": 32}[alg]
    return ".".join([b64url(jsonb(header)), b64url(jsonb(claims)), b64url(rng.randbytes(siglen))])


FIRST = ["emma", "liam", "olivia", "noah", "lea", "lucas", "mia", "jonas", "sofia", "mateo", "anna", "lukas",
         "chloe", "hugo", "giulia", "marco", "zofia", "jakub", "elif", "mehmet", "aiko", "haruto", "minji", "jisoo",
         "priya", "arjun", "fatima", "omar", "noa", "yael", "wei", "mei", "linh", "minh", "nikos", "eleni", "ana"]
LAST = ["smith", "martin", "mueller", "garcia", "rossi", "nowak", "yilmaz", "sato", "kim", "sharma", "haddad",
        "cohen", "wang", "nguyen", "papadopoulos", "silva", "dubois", "schmidt", "lopez", "kowalski", "tanaka",
        "o'brien", "van-der-berg", "dupont", "fernandes"]
MAILHOSTS = ["gmail.com", "outlook.com", "yahoo.co.jp", "web.de", "orange.fr", "example.com", "proton.me",
             "icloud.com", "mail.ru", "naver.com", "qq.com", "hotmail.co.uk", "gmx.de", "libero.it", "wp.pl"]


def email(rng):
    f, l = pick(rng, FIRST), pick(rng, LAST).replace("'", "")
    sep = pick(rng, [".", "_", "", "-", "+shop."])
    return f"{f}{sep}{l}{pick(rng, ['', '', str(rng.randint(1, 99)), str(rng.randint(1970, 2005))])}@{pick(rng, MAILHOSTS)}"


def ga_cookie(rng):
    t = ts(rng)
    cid = f"{rng.randint(100000000, 2147483647)}.{t - rng.randint(0, 9000000)}"
    mid = alnum(rng, 10, string.ascii_uppercase + string.digits)
    if rng.random() < 0.5:
        sess = f"GS1.1.{t}.{rng.randint(1, 80)}.{rng.randint(0, 1)}.{t + rng.randint(0, 1800)}.0.0.0"
    else:
        sess = f"GS2.1.s{t}$o{rng.randint(1, 80)}$g{rng.randint(0, 1)}$t{t + rng.randint(0, 1800)}$j{rng.randint(0, 60)}$l0$h0"
    return f"_ga=GA1.1.{cid}; _ga_{mid}={sess}"


def consent_cookie(rng):
    t = ts(rng)
    kind = pick(rng, ["onetrust", "cookiebot", "tcf", "simple", "complianz", "usercentrics"])
    if kind == "onetrust":
        groups = "%2C".join(f"C000{i}%3A{1 if i == 1 or rng.random() < 0.6 else 0}" for i in range(1, 5))
        return ("OptanonConsent=isGpcEnabled=0&datestamp=" + quote(
            "Mon Nov 25 2024 10:12:45 GMT+0100 (Central European Standard Time)", safe="").replace("%20", "+")
            + f"&version=202409.1.0&browserGpcFlag=0&isIABGlobal=false&hosts=&consentId={uid(rng)}"
            f"&interactionCount={rng.randint(1, 4)}&isAnonUser=1&landingPath=NotLandingPage&groups={groups}"
            f"&AwaitingReconsent=false; OptanonAlertBoxClosed={iso(rng, t)}")
    if kind == "cookiebot":
        flags = ["true" if rng.random() < 0.6 else "false" for _ in range(3)]
        return (f"CookieConsent={{stamp:%27{b64url(rng.randbytes(42))}==%27%2Cnecessary:true%2Cpreferences:"
                f"{flags[0]}%2Cstatistics:{flags[1]}%2Cmarketing:{flags[2]}%2Cmethod:%27explicit%27%2Cver:"
                f"{rng.randint(1, 6)}%2Cutc:{t}{rng.randint(100, 999)}%2Cregion:%27{pick(rng, ['de', 'fr', 'gb', 'nl', 'pl', 'it'])}%27}}")
    if kind == "tcf":
        return (f"euconsent-v2=CQ{b64url(rng.randbytes(rng.randint(60, 140)))}.YAAAAAAAAAAA; "
                f"addtl_consent=1~{'.'.join(str(rng.randint(1, 3000)) for _ in range(rng.randint(3, 20)))}")
    if kind == "complianz":
        return ("cmplz_consented_services=; cmplz_policy_id=17; cmplz_marketing=deny; cmplz_statistics=allow; "
                "cmplz_preferences=allow; cmplz_functional=allow; cmplz_banner-status=dismissed")
    if kind == "usercentrics":
        return f"uc_user_interaction=true; uc_settings={quote(json.dumps({'controllerId': hexid(rng, 32), 'services': []}))}"
    return pick(rng, ["cookieconsent_status=dismiss", "cookie_consent=accepted", "gdpr=1", "cookies_accepted=all",
                      "CookieControl={\"necessaryCookies\":[],\"optionalCookies\":{\"analytics\":\"accepted\"}}"])


def session_cookie(rng):
    kind = pick(rng, ["php", "django", "express", "laravel", "rails", "java", "aspnet", "jwt", "flask", "next"])
    if kind == "php":
        return f"PHPSESSID={alnum(rng, 26, string.ascii_lowercase + string.digits)}"
    if kind == "django":
        return f"csrftoken={alnum(rng, 32)}; sessionid={alnum(rng, 32, string.ascii_lowercase + string.digits)}"
    if kind == "express":
        return f"connect.sid=s%3A{alnum(rng, 32)}.{b64url(rng.randbytes(32))}"
    if kind == "laravel":
        blob = lambda: quote(base64.b64encode(jsonb({"iv": base64.b64encode(rng.randbytes(16)).decode(),
                                                      "value": base64.b64encode(rng.randbytes(48)).decode(),
                                                      "mac": hexid(rng, 64), "tag": ""})).decode(), safe="")
        return f"XSRF-TOKEN={blob()}; laravel_session={blob()}"
    if kind == "rails":
        session_id = hexid(rng, 32)
        data, digest = quote(base64.b64encode(rng.randbytes(90)).decode(), safe=''), hexid(rng, 40)
        if digest[0] in "01234567":
            # Rails' signed cookie: the data, then its HMAC in hex.
            return f"_session_id={session_id}; _myapp_session={data}--{digest}"
        # Rails 5.2 and later encrypt the session (AES-256-GCM): ciphertext, nonce and tag, each base64 (the nonce
        # and tag drawn from the digest's bytes, so the other classes' random draws stay as they were).
        nonce = base64.b64encode(bytes.fromhex(digest)[:12]).decode()
        tag = base64.b64encode(hashlib.sha256(digest.encode()).digest()[:16]).decode()
        name = ["_myapp_session", "_gh_sess", "_forum_session", "_mastodon_session"][int(digest[1], 16) % 4]
        return f"{name}={data}--{quote(nonce, safe='')}--{quote(tag, safe='')}"
    if kind == "java":
        return f"JSESSIONID={hexid(rng, 32).upper()}"
    if kind == "aspnet":
        return (f"ASP.NET_SessionId={alnum(rng, 24, string.ascii_lowercase + '012345')}; "
                f".AspNetCore.Antiforgery.{alnum(rng, 11)}=CfDJ8{b64url(rng.randbytes(110))}")
    if kind == "jwt":
        return f"{pick(rng, ['__Host-session', 'auth_token', 'access_token', 'id_token'])}={jwt(rng)}"
    if kind == "flask":
        return f"session={b64url(jsonb({'_fresh': True, 'user_id': str(rng.randint(1, 99999))}))}.{b64url(rng.randbytes(4))}.{b64url(rng.randbytes(20))}"
    return (f"__Secure-next-auth.session-token={b64url(rng.randbytes(200))}; "
            f"__Host-next-auth.csrf-token={hexid(rng, 64)}%7C{hexid(rng, 64)}")


def tracking_cookies(rng):
    out = []
    if rng.random() < 0.7:
        out.append(ga_cookie(rng))
    if rng.random() < 0.4:
        out.append(f"_gcl_au=1.1.{rng.randint(100000000, 2147483647)}.{ts(rng)}")
    if rng.random() < 0.3:
        out.append(f"_fbp=fb.1.{ts(rng)}{rng.randint(100, 999)}.{rng.randint(100000000, 2147483647)}")
    bot_manager = rng.random()
    if bot_manager < 0.2:
        out.append(f"__cf_bm={b64url(rng.randbytes(32))}-{ts(rng)}-1.0.1.1-{b64url(rng.randbytes(66))}")
    elif bot_manager < 0.3:
        # Akamai Bot Manager: fields of its sensor cookie are separated by `~`, one of them base64 with its
        # padding (`...Z0ho=~-1~-1`); the second is 0 once the sensor has validated the browser.
        key = hexid(rng, 32).upper()
        state = "0" if key[0] in "01234567" else "-1"
        out.append(f"_abck={key}~{state}~YAAQ{base64.b64encode(rng.randbytes(119)).decode()}~-1~-1~-1; "
                   f"bm_sz={hexid(rng, 32).upper()}~YAAQ{b64url(rng.randbytes(60))}~{rng.randint(3000000, 4999999)}")
    if rng.random() < 0.1:
        out.append(f"cf_clearance={b64url(rng.randbytes(32))}-{ts(rng)}-1.2.1.1-{b64url(rng.randbytes(180))}")
    if rng.random() < 0.15:
        out.append(f"_hjSessionUser_{rng.randint(1000000, 5000000)}=" + base64.b64encode(jsonb(
            {"id": uid(rng), "created": ts(rng) * 1000, "existing": True})).decode())
    if rng.random() < 0.15:
        out.append(f"ajs_anonymous_id=%22{uid(rng)}%22")
    if rng.random() < 0.1:
        out.append(f"intercom-id-{alnum(rng, 8).lower()}={uid(rng)}; intercom-device-id-{alnum(rng, 8).lower()}={uid(rng)}")
    if rng.random() < 0.1:
        out.append(f"_clck={alnum(rng, 6).lower()}%7C2%7Cfr{rng.randint(1, 9)}%7C0%7C{rng.randint(1000, 1999)}; "
                   f"_clsk={alnum(rng, 7).lower()}%7C{ts(rng)}123%7C{rng.randint(1, 9)}%7C1%7Cq.clarity.ms%2Fcollect")
    return out


def cookie_header(rng, session=True):
    parts = []
    if rng.random() < 0.6:
        parts.append(consent_cookie(rng))
    parts += tracking_cookies(rng)
    if session and rng.random() < 0.8:
        parts.append(session_cookie(rng))
    if rng.random() < 0.3:
        parts.append(pick(rng, ["theme=dark", "lang=fr", "currency=EUR", "locale=pt_BR", "tz=Europe%2FWarsaw",
                                "cart_count=2", "recently_viewed=1289%2C4410%2C77", "sidebar_collapsed=true",
                                "country=JP", "NEXT_LOCALE=de", "i18next=tr", "prefers-reduced-motion=no"]))
    rng.shuffle(parts)
    return "; ".join(parts) if parts else None


def bearer(rng):
    return pick(rng, [f"Bearer {jwt(rng)}", f"Bearer {jwt(rng, alg='ES256')}",
                      f"Bearer {alnum(rng, 40)}", f"Bearer ghp_{alnum(rng, 36)}", f"Token {hexid(rng, 40)}",
                      f"Basic {base64.b64encode(f'{pick(rng, FIRST)}:{alnum(rng, 14)}'.encode()).decode()}"])


def aws_sigv4(rng, service, region=None):
    region = region or pick(rng, ["us-east-1", "eu-west-1", "eu-central-1", "ap-northeast-1", "us-west-2"])
    day = pick(rng, ["20241125", "20250107", "20250312", "20250601"])
    key = "AKIA" + alnum(rng, 16, string.ascii_uppercase + "234567")
    return (f"AWS4-HMAC-SHA256 Credential={key}/{day}/{region}/{service}/aws4_request, "
            f"SignedHeaders=content-type;host;x-amz-date;x-amz-target, Signature={hexid(rng, 64)}"), \
        f"{day}T{rng.randint(0, 23):02d}{rng.randint(0, 59):02d}{rng.randint(0, 59):02d}Z", region


def sha256_hex(data):
    return hashlib.sha256(data).hexdigest()


def api_ref(rng, api="api", app="app", path="/"):
    """(API host, referring page) of one site: a single-page app calling its own API."""
    s = site(rng)
    return f"{api}.{s}", f"https://{app}.{s}{path}"
