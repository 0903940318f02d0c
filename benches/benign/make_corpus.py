#!/usr/bin/env python3
"""Writes the benign request corpus of benches/crs-compare.sh: realistic traffic of a web shop, a forum and their
JSON APIs, as browsers and fetch() send it. Run from the repository root after editing it:

    python3 benches/benign/make_corpus.py

It rewrites benches/benign/*.txt, one file per kind of traffic: the seven small hand-written files below, then the
nineteen generated classes of generate/ (one module each, see their docstrings and README.md). Each file holds raw HTTP/1.1 requests one after
another (CRLF line ends, each request followed by a blank line, bodies framed by Content-Length), the format of
the CSIC 2010 dataset, so `rulec replay` reads them too. Deterministic: the same script writes the same bytes.

The content is what real users and clients send: prose with apostrophes and punctuation in many languages and
scripts, code and SQL in the comment fields of a developer forum, real browser header sets, tracking parameters,
JWTs and consent cookies. Nothing in it is chosen to avoid (or to hit) any rule.
"""
import base64
import json
import struct
import sys
import zlib
from pathlib import Path
from urllib.parse import urlencode

sys.dont_write_bytecode = True  # no __pycache__ in the repository
import generate  # noqa: E402  benches/benign/generate/, beside this script

OUT = Path(__file__).resolve().parent
HOST = "shop.example.org"
FORUM = "forum.example.org"
API = "api.example.org"

# --- browser header sets (current releases at the time of writing) ---------------------------------------------

CHROME_WIN = {
    "sec-ch-ua": '"Google Chrome";v="131", "Chromium";v="131", "Not_A Brand";v="24"',
    "sec-ch-ua-mobile": "?0",
    "sec-ch-ua-platform": '"Windows"',
    "User-Agent": "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/131.0.0.0 Safari/537.36",
}
CHROME_ANDROID = {
    "sec-ch-ua": '"Google Chrome";v="131", "Chromium";v="131", "Not_A Brand";v="24"',
    "sec-ch-ua-mobile": "?1",
    "sec-ch-ua-platform": '"Android"',
    "User-Agent": "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/131.0.0.0 Mobile Safari/537.36",
}
EDGE_WIN = {
    "sec-ch-ua": '"Microsoft Edge";v="131", "Chromium";v="131", "Not_A Brand";v="24"',
    "sec-ch-ua-mobile": "?0",
    "sec-ch-ua-platform": '"Windows"',
    "User-Agent": "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
}
FIREFOX_LINUX = {"User-Agent": "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"}
FIREFOX_WIN = {"User-Agent": "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0"}
SAFARI_MAC = {
    "User-Agent": "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) "
    "Version/18.1 Safari/605.1.15"
}
SAFARI_IPHONE = {
    "User-Agent": "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
    "Version/18.1 Mobile/15E148 Safari/604.1"
}
BROWSERS = [
    ("chrome", CHROME_WIN),
    ("firefox", FIREFOX_LINUX),
    ("safari", SAFARI_MAC),
    ("chrome-android", CHROME_ANDROID),
    ("safari-iphone", SAFARI_IPHONE),
    ("edge", EDGE_WIN),
    ("firefox", FIREFOX_WIN),
]

ACCEPT_DOC = {
    "chrome": "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,"
    "application/signed-exchange;v=b3;q=0.7",
    "firefox": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
    "safari": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
}
ACCEPT_IMAGE = {
    "chrome": "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8",
    "firefox": "image/avif,image/webp,image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.5",
    "safari": "image/webp,image/avif,image/jxl,image/heic,image/heic-sequence,video/*;q=0.8,image/png,"
    "image/svg+xml,image/*;q=0.8,*/*;q=0.5",
}
ENCODING = {"chrome": "gzip, deflate, br, zstd", "firefox": "gzip, deflate, br, zstd", "safari": "gzip, deflate, br"}


def family(name):
    return "chrome" if name.startswith(("chrome", "edge")) else "safari" if name.startswith("safari") else "firefox"


COOKIES = [
    "_ga=GA1.1.1843727106.1730112931; _ga_7QKJ2X4B8N=GS1.1.1732540211.4.1.1732540788.0.0.0; "
    "sessionid=k2v9x0d7m1q8w3e5r6t4y2u1i0o9p8a7",
    "cookieconsent_status=dismiss; PHPSESSID=5m1v0c8ni2rg7tq3o4b6k9j2af; cart=3",
    "OptanonConsent=isGpcEnabled=0&datestamp=Mon+Nov+25+2024+10%3A12%3A45+GMT%2B0100+(Central+European+Standard"
    "+Time)&version=202409.1.0&isIABGlobal=false&hosts=&consentId=7c9e6679-7425-40de-944b-e07fc1f90ae7"
    "&interactionCount=1&landingPath=NotLandingPage&groups=C0001%3A1%2CC0002%3A1%2CC0003%3A0%2CC0004%3A0; "
    "OptanonAlertBoxClosed=2024-11-25T09:12:45.101Z",
    "csrftoken=Xb4Fq0pL9sK2wN7eR1tY6uI3oP8aS5dG; sessionid=8h3j2k1l0z9x8c7v6b5n4m3q2w1e0r9t; django_language=fr",
    "__Host-session=eyJ1aWQiOjQ4MjEsImV4cCI6MTczMjYyNjQwMH0.Z0QwYw.N2v8m1Q0x3Yt7Jk9LpR4sF6dH2a; theme=dark; "
    "lang=de-DE",
    "_fbp=fb.1.1732540211093.843210774; _gcl_au=1.1.1623490114.1730112931; "
    "_hjSessionUser_3471223=eyJpZCI6IjNkYjE0ZDNhLTk3OGQtNTQ1My1hZDc2LTFkMzRjN2NmNGE1NyIsImNyZWF0ZWQiOjE3MzAxMTI"
    "5MzE0NDMsImV4aXN0aW5nIjp0cnVlfQ==",
    "JSESSIONID=9D1E4C7B2A0F8E6D5C4B3A2918F7E6D5; AWSALB=Yk2fP0eR7u3wX9qT1mN6bV4cZ8sD5gH2jK0lA7oI3uY6tR1eW4qE9"
    "; AWSALBCORS=Yk2fP0eR7u3wX9qT1mN6bV4cZ8sD5gH2jK0lA7oI3uY6tR1eW4qE9",
    "wp-settings-1=libraryContent%3Dbrowse%26editor%3Dtinymce; wp-settings-time-1=1732540211; "
    "wordpress_test_cookie=WP%20Cookie%20check",
]

JWT = (
    "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6IjJmN2E5YzMxIn0."
    "eyJzdWIiOiI0ODIxIiwiZW1haWwiOiJsZWEubWFydGluQGV4YW1wbGUuZnIiLCJyb2xlcyI6WyJjdXN0b21lciJdLCJpYXQiOjE3MzI1"
    "NDAyMTEsImV4cCI6MTczMjU0MzgxMX0."
    "dGhpcyBpcyBub3QgYSByZWFsIHNpZ25hdHVyZSBidXQgaXQgaGFzIHRoZSByaWdodCBzaGFwZSBmb3IgYSBKV1Q"
)


class Corpus:
    """Collects raw requests for one output file."""

    def __init__(self, name):
        self.name = name
        self.requests = []

    def add(self, method, target, headers, body=b""):
        """headers: list of (name, value) in wire order; Host first, Content-Length added when there is a body
        (or the method sends one)."""
        if isinstance(body, str):
            body = body.encode()
        lines = [f"{method} {target} HTTP/1.1"]
        lines += [f"{k}: {v}" for k, v in headers]
        if body or method in ("POST", "PUT", "PATCH"):
            lines.append(f"Content-Length: {len(body)}")
        raw = ("\r\n".join(lines) + "\r\n\r\n").encode() + body
        self.requests.append(raw)

    def write(self):
        path = OUT / f"{self.name}.txt"
        # A blank line after each request, as in CSIC 2010 (the splitter skips blank lines between requests); a
        # body first gets its own line end.
        path.write_bytes(b"".join(r + (b"\r\n" if r.endswith(b"\r\n\r\n") else b"\r\n\r\n")
                                  for r in self.requests))
        return path, len(self.requests)


def page_headers(host, browser, *, referer=None, cookie=None, lang="en-US,en;q=0.9", site="none"):
    """A top-level navigation (document) in the header order of each browser."""
    name, ua = browser
    fam = family(name)
    h = [("Host", host)]
    if fam == "chrome":
        h += [("Connection", "keep-alive")]
        h += [(k, v) for k, v in ua.items() if k != "User-Agent"]
        h += [("Upgrade-Insecure-Requests", "1"), ("User-Agent", ua["User-Agent"]), ("Accept", ACCEPT_DOC[fam]),
              ("Sec-Fetch-Site", site), ("Sec-Fetch-Mode", "navigate"), ("Sec-Fetch-User", "?1"),
              ("Sec-Fetch-Dest", "document")]
        if referer:
            h.append(("Referer", referer))
        h += [("Accept-Encoding", ENCODING[fam]), ("Accept-Language", lang)]
    elif fam == "firefox":
        h += [("User-Agent", ua["User-Agent"]), ("Accept", ACCEPT_DOC[fam]), ("Accept-Language", lang),
              ("Accept-Encoding", ENCODING[fam])]
        if referer:
            h.append(("Referer", referer))
        h += [("Connection", "keep-alive"), ("Upgrade-Insecure-Requests", "1"), ("Sec-Fetch-Dest", "document"),
              ("Sec-Fetch-Mode", "navigate"), ("Sec-Fetch-Site", site), ("Sec-Fetch-User", "?1"),
              ("Priority", "u=0, i")]
    else:
        h += [("Accept", ACCEPT_DOC[fam]), ("Sec-Fetch-Site", site), ("Accept-Encoding", ENCODING[fam]),
              ("Sec-Fetch-Mode", "navigate"), ("User-Agent", ua["User-Agent"]), ("Accept-Language", lang),
              ("Sec-Fetch-Dest", "document")]
        if referer:
            h.append(("Referer", referer))
        h += [("Connection", "keep-alive"), ("Priority", "u=0, i")]
    if cookie:
        h.append(("Cookie", cookie))
    return h


def form_post_headers(host, browser, referer, content_type, cookie, lang):
    """A form submitted by the browser (navigation, same origin)."""
    name, ua = browser
    fam = family(name)
    origin = f"https://{host}"
    h = [("Host", host)]
    if fam == "chrome":
        h += [("Connection", "keep-alive"), ("Cache-Control", "max-age=0")]
        h += [(k, v) for k, v in ua.items() if k != "User-Agent"]
        h += [("Origin", origin), ("Content-Type", content_type), ("Upgrade-Insecure-Requests", "1"),
              ("User-Agent", ua["User-Agent"]), ("Accept", ACCEPT_DOC[fam]), ("Sec-Fetch-Site", "same-origin"),
              ("Sec-Fetch-Mode", "navigate"), ("Sec-Fetch-User", "?1"), ("Sec-Fetch-Dest", "document"),
              ("Referer", referer), ("Accept-Encoding", ENCODING[fam]), ("Accept-Language", lang)]
    elif fam == "firefox":
        h += [("User-Agent", ua["User-Agent"]), ("Accept", ACCEPT_DOC[fam]), ("Accept-Language", lang),
              ("Accept-Encoding", ENCODING[fam]), ("Content-Type", content_type), ("Origin", origin),
              ("Connection", "keep-alive"), ("Referer", referer), ("Upgrade-Insecure-Requests", "1"),
              ("Sec-Fetch-Dest", "document"), ("Sec-Fetch-Mode", "navigate"), ("Sec-Fetch-Site", "same-origin"),
              ("Sec-Fetch-User", "?1"), ("Priority", "u=0, i")]
    else:
        h += [("Accept", ACCEPT_DOC[fam]), ("Content-Type", content_type), ("Sec-Fetch-Site", "same-origin"),
              ("Origin", origin), ("Accept-Encoding", ENCODING[fam]), ("Sec-Fetch-Mode", "navigate"),
              ("User-Agent", ua["User-Agent"]), ("Referer", referer), ("Sec-Fetch-Dest", "document"),
              ("Accept-Language", lang), ("Priority", "u=0, i"), ("Connection", "keep-alive")]
    if cookie:
        h.append(("Cookie", cookie))
    return h


def fetch_headers(host, browser, referer, *, content_type=None, auth=True, cookie=None, lang="en-US,en;q=0.9",
                  extra=()):
    """fetch()/XHR from a single-page app on another origin of the same site."""
    name, ua = browser
    fam = family(name)
    h = [("Host", host), ("Connection", "keep-alive")]
    if fam == "chrome":
        h += [(k, v) for k, v in ua.items() if k != "User-Agent"]
    h += [("User-Agent", ua["User-Agent"]), ("Accept", "application/json, text/plain, */*")]
    if content_type:
        h.append(("Content-Type", content_type))
    if auth:
        h.append(("Authorization", f"Bearer {JWT}"))
    h += list(extra)
    origin_host = referer.split("/", 3)[2]
    site = "same-origin" if origin_host == host else "same-site"
    h += [("Origin", f"https://{origin_host}"), ("Sec-Fetch-Site", site),
          ("Sec-Fetch-Mode", "cors"), ("Sec-Fetch-Dest", "empty"), ("Referer", referer),
          ("Accept-Encoding", ENCODING[fam]), ("Accept-Language", lang)]
    if cookie:
        h.append(("Cookie", cookie))
    return h


def form(fields):
    """application/x-www-form-urlencoded as browsers write it: UTF-8, space as +."""
    return urlencode(fields, encoding="utf-8")


def jsonb(value):
    """JSON as JSON.stringify writes it (no spaces, UTF-8 characters as is)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def browser(i):
    return BROWSERS[i % len(BROWSERS)]


def cookie(i):
    return COOKIES[i % len(COOKIES)]


# --- prose in many languages -------------------------------------------------------------------------------------

# (language tag, Accept-Language, name, city, message)
PROSE = [
    ("en", "en-US,en;q=0.9", "Emily Carter", "Leeds",
     "Hi, I ordered the blue rain jacket (size M) on Monday and it hasn't arrived yet. The tracking page says "
     "\"label created\" since Tuesday. Could you check what's going on? Thanks!"),
    ("en", "en-GB,en;q=0.9", "Tom O'Neill", "Cork",
     "I'd like to return the kettle - it's great, but it's 2 cm too tall for the shelf under my cupboards. "
     "Do I need to print a label, or will the courier bring one?"),
    ("en", "en-US,en;q=0.9", "Dana Whitfield", "Portland",
     "Five stars. The fabric is thicker than I expected & the stitching is neat. Runs a bit small, so order "
     "one size up if you're between sizes."),
    ("fr", "fr-FR,fr;q=0.9,en-US;q=0.8,en;q=0.7", "Léa Martin", "Lyon",
     "Bonjour, j'ai reçu ma commande n° 48213 mais il manque la housse de coussin. Pourriez-vous me l'envoyer "
     "ou me rembourser ? Merci d'avance, et bonne journée !"),
    ("fr", "fr-CA,fr;q=0.9,en;q=0.8", "Étienne Gagnon", "Québec",
     "Très bon produit, livraison rapide. Seul bémol : l'emballage était un peu abîmé à l'arrivée, mais rien "
     "de cassé à l'intérieur."),
    ("de", "de-DE,de;q=0.9,en;q=0.8", "Jürgen Weiß", "München",
     "Guten Tag, ich möchte meine Lieferadresse ändern, da ich ab nächster Woche umziehe. Die neue Straße ist "
     "die Schönfeldstraße 12, 80539 München. Vielen Dank für Ihre Hilfe!"),
    ("de", "de-AT,de;q=0.9", "Anna Größl", "Graz",
     "Die Größe passt perfekt, aber die Farbe ist dunkler als auf dem Foto. Trotzdem würde ich es wieder "
     "kaufen – Qualität top."),
    ("es", "es-ES,es;q=0.9", "José Ramírez", "Sevilla",
     "¡Hola! ¿Tienen esta mesa en roble natural? La necesito para el salón y me gustaría saber cuánto tarda "
     "el envío a Andalucía. Gracias."),
    ("es", "es-MX,es;q=0.9,en;q=0.8", "María Fernanda López", "Guadalajara",
     "Compré dos pares y uno llegó con una costura suelta. El servicio al cliente me respondió en menos de "
     "una hora y me mandaron otro par. ¡Excelente atención!"),
    ("pt", "pt-BR,pt;q=0.9,en;q=0.8", "João Silva", "São Paulo",
     "Olá, gostaria de saber se vocês entregam em Campinas e qual é o prazo. Também queria confirmar se o "
     "pagamento por Pix tem desconto."),
    ("it", "it-IT,it;q=0.9,en;q=0.8", "Giulia Rossi", "Bologna",
     "Buongiorno, l'ordine è arrivato ieri ma la taglia è sbagliata: avevo scelto la 42 e mi è arrivata la 46. "
     "Come posso fare il cambio? Grazie mille."),
    ("nl", "nl-NL,nl;q=0.9,en;q=0.8", "Sanne de Vries", "Utrecht",
     "Hallo, kan ik mijn bestelling nog wijzigen? Ik wil graag de grijze variant in plaats van de zwarte. "
     "Alvast bedankt!"),
    ("pl", "pl-PL,pl;q=0.9,en-US;q=0.8,en;q=0.7", "Małgorzata Wójcik", "Kraków",
     "Dzień dobry, zamówiłam krzesło tydzień temu i nadal czeka na wysyłkę. Czy mogą Państwo sprawdzić, "
     "kiedy zostanie nadane? Pozdrawiam serdecznie."),
    ("cs", "cs-CZ,cs;q=0.9", "Tomáš Dvořák", "Brno",
     "Dobrý den, rád bych se zeptal, zda je možné zboží vyzvednout osobně na prodejně v Praze. Děkuji."),
    ("tr", "tr-TR,tr;q=0.9,en-US;q=0.8,en;q=0.7", "Ayşe Yılmaz", "İzmir",
     "Merhaba, siparişim iki gündür kargoda görünüyor ama hâlâ teslim edilmedi. Kargo takip numarasını "
     "paylaşabilir misiniz? Teşekkürler."),
    ("ru", "ru-RU,ru;q=0.9,en-US;q=0.8,en;q=0.7", "Наталья Смирнова", "Санкт-Петербург",
     "Здравствуйте! Подскажите, пожалуйста, есть ли этот диван в сером цвете и сколько стоит доставка до "
     "Санкт-Петербурга? Спасибо."),
    ("uk", "uk-UA,uk;q=0.9,en;q=0.8", "Олександр Коваленко", "Львів",
     "Добрий день! Замовлення прийшло вчасно, все цілe. Дуже задоволений якістю, рекомендую цей магазин "
     "друзям."),
    ("el", "el-GR,el;q=0.9,en;q=0.8", "Γιώργος Παπαδόπουλος", "Θεσσαλονίκη",
     "Καλησπέρα σας, θα ήθελα να μάθω αν το προϊόν είναι διαθέσιμο σε μεγαλύτερο μέγεθος. Ευχαριστώ πολύ!"),
    ("ar", "ar-EG,ar;q=0.9,en;q=0.8", "محمد عبد الله", "القاهرة",
     "مرحباً، طلبت حقيبة ظهر سوداء منذ أسبوع ولم تصل بعد. هل يمكنكم إرسال رقم التتبع؟ شكراً جزيلاً."),
    ("he", "he-IL,he;q=0.9,en-US;q=0.8,en;q=0.7", "נועה כהן", "תל אביב",
     "שלום, רציתי לשאול אם אפשר להחליף את המעיל במידה אחרת. קיבלתי מידה L ואני צריכה M. תודה!"),
    ("fa", "fa-IR,fa;q=0.9,en;q=0.8", "سارا احمدی", "تهران",
     "سلام، آیا این کتاب نسخه‌ی الکترونیکی هم دارد؟ ممنون می‌شوم راهنمایی کنید."),
    ("hi", "hi-IN,hi;q=0.9,en-IN;q=0.8,en;q=0.7", "प्रिया शर्मा", "जयपुर",
     "नमस्ते, मेरा ऑर्डर अभी तक नहीं आया है। कृपया बताइए कि डिलीवरी कब तक होगी। धन्यवाद!"),
    ("bn", "bn-BD,bn;q=0.9,en;q=0.8", "রাহুল দাস", "ঢাকা",
     "আমার অর্ডারটি কবে পৌঁছাবে জানালে খুব উপকার হবে। ধন্যবাদ।"),
    ("zh", "zh-CN,zh;q=0.9,en;q=0.8", "王芳", "上海",
     "你好，我上周买的台灯今天到了，但是开关有点松。请问可以换一个吗？谢谢！"),
    ("zh-TW", "zh-TW,zh;q=0.9,en-US;q=0.8,en;q=0.7", "陳志明", "台北",
     "請問這款背包有沒有防水功能？下雨天騎機車通勤會用到，謝謝回覆。"),
    ("ja", "ja-JP,ja;q=0.9,en-US;q=0.8,en;q=0.7", "佐藤 健", "大阪",
     "先日注文したコーヒーミルが届きました。とても使いやすいです！ただ、説明書が英語だけだったので、"
     "日本語版があれば送っていただけますか。"),
    ("ko", "ko-KR,ko;q=0.9,en-US;q=0.8,en;q=0.7", "김민준", "서울",
     "안녕하세요. 주문한 운동화 사이즈를 270에서 275로 바꿀 수 있을까요? 아직 배송 전이면 부탁드립니다."),
    ("th", "th-TH,th;q=0.9,en;q=0.8", "สมชาย ใจดี", "เชียงใหม่",
     "สวัสดีครับ สินค้าได้รับแล้ว คุณภาพดีมาก ส่งไวด้วย ขอบคุณครับ"),
    ("vi", "vi-VN,vi;q=0.9,en-US;q=0.8,en;q=0.7", "Nguyễn Thị Lan", "Hà Nội",
     "Chào shop, mình muốn đổi áo sang màu xanh được không ạ? Mình chưa mặc lần nào. Cảm ơn shop nhiều!"),
    ("sv", "sv-SE,sv;q=0.9,en;q=0.8", "Åsa Lindqvist", "Göteborg",
     "Hej! Jag fick fel färg på tröjan. Kan ni skicka en ny, eller ska jag returnera den först? Tack på "
     "förhand."),
    ("fi", "fi-FI,fi;q=0.9,en;q=0.8", "Mikko Häkkinen", "Tampere",
     "Hei, tilaukseni saapui nopeasti ja kaikki oli kunnossa. Kiitos hyvästä palvelusta!"),
    ("hu", "hu-HU,hu;q=0.9,en;q=0.8", "Szabó Eszter", "Debrecen",
     "Jó napot! Szeretném megkérdezni, hogy a kabát kapható-e még S-es méretben. Köszönöm!"),
    ("ro", "ro-RO,ro;q=0.9,en;q=0.8", "Andreea Popescu", "Cluj-Napoca",
     "Bună ziua, aș dori să știu dacă pot plăti ramburs la livrare. Mulțumesc frumos!"),
    ("id", "id-ID,id;q=0.9,en;q=0.8", "Budi Santoso", "Bandung",
     "Halo kak, barangnya sudah sampai dan sesuai pesanan. Packing rapi, pengiriman cepat. Terima kasih!"),
    ("sw", "sw-KE,sw;q=0.9,en;q=0.8", "Amani Mwangi", "Nairobi",
     "Habari, ningependa kujua kama mnaweza kutuma bidhaa hadi Mombasa. Asanteni sana."),
]


def forms():
    c = Corpus("forms")
    for i, (lang, accept_lang, name, city, message) in enumerate(PROSE):
        b = browser(i)
        email = f"user{i + 1}@example.{'com' if i % 2 else 'net'}"
        # Contact form, a product review, then (every third) an account sign-up with the same person.
        c.add("POST", "/contact",
              form_post_headers(HOST, b, f"https://{HOST}/contact", "application/x-www-form-urlencoded", cookie(i),
                                accept_lang),
              form([("name", name), ("email", email), ("subject", message.split(".")[0][:60]),
                    ("message", message), ("order", f"{48000 + i * 37}"), ("consent", "on")]))
        if i % 2 == 0:
            c.add("POST", f"/products/{1200 + i}/reviews",
                  form_post_headers(HOST, browser(i + 3), f"https://{HOST}/products/{1200 + i}",
                                    "application/x-www-form-urlencoded", cookie(i + 1), accept_lang),
                  form([("csrf_token", "a8Fk2mQ9vX1pL7sT4wZ0"), ("rating", str(3 + i % 3)), ("title", name.split()[0]),
                        ("body", message), ("recommend", "yes")]))
        if i % 3 == 0:
            c.add("POST", "/account/register",
                  form_post_headers(HOST, browser(i + 1), f"https://{HOST}/account/register",
                                    "application/x-www-form-urlencoded", cookie(i + 2), accept_lang),
                  form([("first_name", name.split()[0]), ("last_name", " ".join(name.split()[1:])),
                        ("email", email), ("password", ["C0rrect-Horse!", "Sunny#Day2024", "p@ss w0rd; ok?",
                                                        "Tr0ub4dor&3", "ilovemycat<3", "x9$Lq!2v%Rb"][i % 6]),
                        ("city", city), ("country", lang.upper()[:2]), ("newsletter", "1"), ("terms", "accepted")]))
    # Checkout address form with characters people type in addresses.
    addresses = [
        ("Flat 3/2, 14 O'Connell St.", "Dublin 1", "D01 F5P2", "+353 1 555 0142"),
        ("Rue de l'Église 7, bât. B", "Bruxelles", "1000", "+32 2 555 01 23"),
        ("c/ Mayor, 21 - 3º izq.", "Madrid", "28013", "(+34) 915 55 01 77"),
        ("ul. Marszałkowska 84/92 m. 15", "Warszawa", "00-514", "+48 22 555 01 88"),
        ("123 Main St #4B", "New York, NY", "10001", "(212) 555-0199"),
        ("東京都千代田区丸の内1-9-1", "東京", "100-0005", "03-5555-0100"),
    ]
    for i, (street, city, postcode, phone) in enumerate(addresses):
        c.add("POST", "/checkout/address",
              form_post_headers(HOST, browser(i), f"https://{HOST}/checkout", "application/x-www-form-urlencoded",
                                cookie(i), "en-US,en;q=0.9"),
              form([("street", street), ("city", city), ("postcode", postcode), ("phone", phone),
                    ("notes", ["Leave it with the neighbour at no. 5 if I'm out.", "Code porte : 4821B",
                               "Llamar antes de subir, el timbre no funciona.", "Proszę dzwonić domofonem 15.",
                               "Don't ring the bell - baby sleeping :)", "不在の場合は宅配ボックスへお願いします。"][i]),
                    ("shipping", "standard")]))
    return c


def search():
    c = Corpus("search")
    queries = [
        "rain jacket women", "men's running shoes size 44", "café crème machine", "größe 38 damen stiefel",
        "niño chaqueta 8 años", "кроссовки мужские", "冬 コート レディース", "무선 이어폰", "蓝牙耳机 降噪",
        "سماعات لاسلكية", "חולצה כחולה", "đồng hồ nam", "USB-C hub 4K@60Hz", "C++ primer 5th edition",
        "\"the lord of the rings\" box set", "50% off sale", "tv 55\" 4k", "rock & roll t-shirt",
        "what is the best laptop for students?", "select comfort mattress", "drop leaf table", "union jack flag",
        "script writing notebook", "order by phone", "1/2 inch drill bit", "gift card €50", "x-large hoodie -zip",
    ]
    for i, q in enumerate(queries):
        b = browser(i)
        params = [("q", q)]
        if i % 3 == 1:
            params += [("sort", "price_asc"), ("page", str(2 + i % 4))]
        if i % 4 == 2:
            params += [("utm_source", "newsletter"), ("utm_medium", "email"), ("utm_campaign", "black_friday_2024")]
        if i % 5 == 3:
            params += [("gclid", "Cj0KCQiA0MG5BhD1ARIsAEcZtwQ9xP7m2K3hN5rT8vYb1u4W6zE0cLfJ9sDqRgH2aVbN3mKpXyZ_"
                                 "aAiL9EALw_wcB")]
        if i % 6 == 4:
            params += [("fbclid", "IwZXh0bgNhZW0CMTEAAR2Yq9m8L0xVbT3kP7uW1nZ4cR6sJ5hD2gF0aQ8eY_aem_AbCdEfGhIjKlMnOpQr")]
        # Browsers percent-encode the UTF-8 bytes and send spaces as + from a GET form.
        target = "/search?" + urlencode(params, encoding="utf-8")
        c.add("GET", target, page_headers(HOST, b, referer=f"https://{HOST}/", cookie=cookie(i), site="same-origin"))
    # Category pages with filters, pagination and links from other sites.
    filters = [
        "/c/women/jackets?color=navy&color=olive&size=M&price=20-80&sort=newest",
        "/c/home/lighting?brand=IKEA%2CPhilips&in_stock=true&page=3",
        "/c/books?author=Gabriel+Garc%C3%ADa+M%C3%A1rquez&lang=es",
        "/c/electronics/tv?screen=55%22-65%22&resolution=4K&hdr=HDR10%2B",
        "/p/oak-dining-table-180cm-1248?variant=natural&ref=pinterest",
        "/p/%E3%82%B3%E3%83%BC%E3%83%92%E3%83%BC%E3%83%9F%E3%83%AB-8841",
        "/blog/2024/11/how-we-choose-our-cotton/?ref=twitter&s=09",
        "/account/orders?status=shipped&from=2024-01-01&to=2024-11-30",
        "/stores?lat=48.8566&lng=2.3522&radius=10km",
        "/oauth/callback?code=4%2F0AeanS0b3Xk9pL2mN7qR5tV8wY1zA4cD6fG9hJ2kL5nP8rS&state=af0ifjsldkj&scope=email+profile"
        "+openid+https%3A%2F%2Fwww.googleapis.com%2Fauth%2Fuserinfo.email&authuser=0&prompt=none",
        "/unsubscribe?email=lea.martin%40example.fr&token=Zm9vYmFyLWJhei0xMjM0&list=weekly",
        "/track?carrier=DHL&number=JD014600006281234567",
        "/compare?ids=1201,1207,1215&attrs=weight;battery;price",
        "/search?q=%22Caf%C3%A9+de+Flore%22+mug&lang=fr",
        "/redirect?to=%2Faccount%2Forders%3Fstatus%3Dopen",
    ]
    for i, path in enumerate(filters):
        c.add("GET", path, page_headers(HOST, browser(i + 2), referer=["https://www.google.com/",
                                                                        f"https://{HOST}/", None][i % 3],
                                        cookie=cookie(i + 1), site=["cross-site", "same-origin", "none"][i % 3]))
    return c


def json_api():
    c = Corpus("json-api")
    spa = "https://app.example.org/"
    calls = [
        ("POST", "/v1/auth/login", {"email": "lea.martin@example.fr", "password": "Sunny#Day2024", "remember": True},
         False),
        ("POST", "/v1/auth/refresh", {"refresh_token": "def50200a1b2c3d4e5f60718293a4b5c6d7e8f9012345678"}, False),
        ("GET", "/v1/me", None, True),
        ("GET", "/v1/products?category=shoes&sort=-rating&limit=24&offset=48&fields=id,name,price,images", None,
         True),
        ("GET", "/v1/products/1248/reviews?lang=fr&page=2", None, True),
        ("POST", "/v1/cart/items", {"product_id": 1248, "variant": "natural-oak", "quantity": 1}, True),
        ("POST", "/v1/cart/items", {"product_id": 88, "variant": "M/blue", "quantity": 2, "gift": False}, True),
        ("POST", "/v1/orders", {"cart_id": "c_8f14e45f", "shipping": {"name": "Léa Martin", "street": "12 rue de "
         "l'Abbé Groult", "city": "Paris", "zip": "75015", "country": "FR"}, "payment": {"method": "card",
         "token": "tok_1QPxYz2eZvKYlo2C8lFqHn3v"}, "note": "Merci de sonner deux fois 🙂"}, True),
        ("GET", "/v1/orders?status=shipped&created_after=2024-10-01T00:00:00Z", None, True),
        ("POST", "/v1/support/tickets", {"subject": "Wrong size delivered", "message": "I ordered a 42 and got a "
         "46. Can you send the right one? I've kept the original packaging.", "order": "48213",
         "attachments": []}, True),
        ("POST", "/v1/chat/messages", {"conversation": "conv_29f1", "text": "お世話になっております。明日の配達は"
         "午前中に変更できますか？"}, True),
        ("POST", "/v1/chat/messages", {"conversation": "conv_3a77", "text": "Привет! А можно оплатить при "
         "получении?"}, True),
        ("POST", "/v1/chat/messages", {"conversation": "conv_5c02", "text": "هل يوجد خصم للطلاب؟"}, True),
        ("POST", "/v1/chat/messages", {"conversation": "conv_6e18", "text": "Ok thanks, that's all :) have a "
         "nice evening!"}, True),
        ("POST", "/v1/events", {"events": [{"type": "page_view", "path": "/c/women/jackets", "ts": 1732540211093,
         "referrer": "https://www.google.com/"}, {"type": "add_to_cart", "sku": "JKT-0042-M", "ts": 1732540245871,
         "value": 79.9, "currency": "EUR"}], "session": "s_9c2f0e", "ua": CHROME_WIN["User-Agent"]}, True),
        ("POST", "/v1/search", {"query": "lampe de chevet", "filters": {"price": {"gte": 20, "lte": 60},
         "color": ["blanc", "laiton"]}, "sort": [{"field": "popularity", "order": "desc"}], "page": 1}, True),
        ("POST", "/graphql", {"operationName": "ProductPage", "variables": {"slug": "oak-dining-table-180cm",
         "locale": "de-DE"}, "query": "query ProductPage($slug: String!, $locale: String) { product(slug: $slug, "
         "locale: $locale) { id name price { amount currency } images { url alt } reviews(first: 5) { edges { "
         "node { rating body author { name } } } } } }"}, True),
        ("POST", "/graphql", {"operationName": "UpdateAddress", "variables": {"input": {"id": "addr_12",
         "line1": "Schönfeldstraße 12", "city": "München", "postalCode": "80539"}}, "query": "mutation "
         "UpdateAddress($input: AddressInput!) { updateAddress(input: $input) { id line1 city postalCode } }"},
         True),
        ("POST", "/v1/newsletter", {"email": "jose.ramirez@example.es", "lists": ["ofertas", "novedades"],
         "lang": "es"}, False),
        ("POST", "/v1/wishlist", {"product_id": 1201, "note": "for Mum's birthday (size 38)"}, True),
        ("POST", "/v1/addresses/validate", {"line1": "1600 Amphitheatre Pkwy", "city": "Mountain View",
         "region": "CA", "postal_code": "94043", "country": "US"}, True),
        ("POST", "/v1/payments/intents", {"amount": 15980, "currency": "eur", "payment_method_types": ["card",
         "sepa_debit"], "metadata": {"order_id": "48213"}}, True),
        ("POST", "/v1/feedback", {"score": 9, "comment": "Great app, but the dark mode could use more contrast "
         "- the grey-on-black labels are hard to read.", "platform": "ios", "version": "4.12.1 (2024.11.3)"},
         True),
        ("POST", "/v1/profile/preferences", {"language": "pt-BR", "currency": "BRL", "notifications": {"email":
         True, "sms": False, "push": True}, "timezone": "America/Sao_Paulo"}, True),
        ("POST", "/v1/reviews", {"product_id": 8841, "rating": 5, "title": "素晴らしい", "body": "豆の挽き具合を"
         "細かく調整できて、毎朝のコーヒーが楽しみになりました。"}, True),
        ("POST", "/v1/reviews", {"product_id": 1248, "rating": 4, "title": "Solide", "body": "Tisch ist stabil "
         "und schön verarbeitet. Aufbau hat zu zweit ca. 40 Min. gedauert."}, True),
        ("POST", "/v1/coupons/apply", {"code": "BLACKFRIDAY-24", "cart_id": "c_8f14e45f"}, True),
        ("GET", "/v1/stores/nearby?lat=40.4168&lng=-3.7038&radius_km=15", None, False),
        ("GET", "/v1/i18n/messages?locale=zh-CN&ns=checkout,common", None, False),
        ("GET", "/v1/notifications?unread=true&since=2024-11-24T18%3A00%3A00%2B01%3A00", None, True),
    ]
    for i, (method, path, body, auth) in enumerate(calls):
        b = browser(i)
        extra = [("X-Request-ID", f"{0x5f3a9c00 + i * 7919:08x}-4b1e-4c3a-9f2d-{0xa1b2c3d4e5 + i:012x}")]
        if i % 3 == 0:
            extra.append(("X-CSRF-Token", "Nk9xQ2ZpT3BtV1l4Y0RlRjZ1SGc4"))
        h = fetch_headers(API, b, spa, content_type="application/json" if body is not None else None, auth=auth,
                          extra=extra)
        c.add(method, path, h, jsonb(body) if body is not None else b"")
    # REST updates and deletions. The CRS default (tx.allowed_methods: GET HEAD POST OPTIONS) refuses these
    # methods at paranoia level 1 (rule 911100) unless a site allows them: real API traffic all the same.
    updates = [
        ("PUT", "/v1/cart/items/li_7731", {"quantity": 3}),
        ("PATCH", "/v1/me", {"display_name": "Léa M.", "bio": "Amatrice de café et de randonnées ☕⛰️"}),
        ("DELETE", "/v1/cart/items/li_7731", None),
        ("PATCH", "/v1/orders/48213", {"delivery_instructions": "Porte B, 3e étage, code 4821"}),
        ("DELETE", "/v1/wishlist/1201", None),
    ]
    for i, (method, path, body) in enumerate(updates):
        h = fetch_headers(API, browser(i + 1), spa, content_type="application/json" if body else None)
        c.add(method, path, h, jsonb(body) if body else b"")
    # CORS preflight for the JSON calls above.
    for i, (method, path) in enumerate([("POST", "/v1/cart/items"), ("PATCH", "/v1/me"), ("POST", "/graphql")]):
        name, ua = browser(i)
        c.add("OPTIONS", path, [("Host", API), ("Connection", "keep-alive"), ("Accept", "*/*"),
                                ("Access-Control-Request-Method", method),
                                ("Access-Control-Request-Headers", "authorization,content-type,x-request-id"),
                                ("Origin", "https://app.example.org"), ("User-Agent", ua["User-Agent"]),
                                ("Sec-Fetch-Mode", "cors"), ("Sec-Fetch-Site", "same-site"),
                                ("Sec-Fetch-Dest", "empty"), ("Referer", spa),
                                ("Accept-Encoding", ENCODING[family(name)]), ("Accept-Language", "en-US,en;q=0.9")])
    # A mobile app (no browser headers) calling the same API.
    for i, (path, body) in enumerate([
        ("/v1/devices", {"platform": "android", "push_token": "fcm:APA91bH3k9Lm2Qx7Rt4Vz1Yw8Nc5Bd0Fe6Gh",
                         "app_version": "4.12.1", "os_version": "14", "model": "Pixel 8"}),
        ("/v1/auth/login", {"email": "kim.minjun@example.kr", "password": "kM!2024@seoul", "device": "iPhone15,2"}),
        ("/v1/cart/sync", {"items": [{"sku": "SNK-270-WHT", "qty": 1}, {"sku": "SCK-3PK", "qty": 2}]}),
    ]):
        ua = ["okhttp/4.12.0", "ExampleShop/4.12.1 (iPhone; iOS 18.1; Scale/3.00)", "Dart/3.5 (dart:io)"][i]
        c.add("POST", path, [("Host", API), ("User-Agent", ua), ("Accept", "application/json"),
                             ("Accept-Encoding", "gzip"), ("Content-Type", "application/json; charset=utf-8"),
                             ("Authorization", f"Bearer {JWT}"), ("X-App-Version", "4.12.1")], jsonb(body))
    return c


def png(width, height, rgb):
    """A small real PNG file."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    raw = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


# A JPEG as phones write them (SOI, JFIF APP0, quantisation table, then entropy-coded bytes), cut short: the bytes
# a proxy sees are what matters here, not whether the image decodes.
JPEG = (b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x01\x00H\x00H\x00\x00\xff\xdb\x00C\x00"
        + bytes(range(2, 66)) + b"\xff\xc0\x00\x11\x08\x00\x10\x00\x10\x03\x01\x22\x00\x02\x11\x01\x03\x11\x01"
        + b"\xff\xda\x00\x0c\x03\x01\x00\x02\x11\x03\x11\x00\x3f\x00" + bytes((i * 37 + 11) % 256 for i in range(600))
        + b"\xff\xd9")

PDF = b"""%PDF-1.7
%\xe2\xe3\xcf\xd3
1 0 obj
<< /Type /Catalog /Pages 2 0 R >>
endobj
2 0 obj
<< /Type /Pages /Kids [3 0 R] /Count 1 >>
endobj
3 0 obj
<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R >>
endobj
4 0 obj
<< /Length 44 >>
stream
BT /F1 12 Tf 72 770 Td (Invoice 2024-1187) Tj ET
endstream
endobj
trailer
<< /Root 1 0 R >>
%%EOF
"""

CSV = ("sku,name,price,stock\n"
       "JKT-0042-M,\"Rain jacket, navy (M)\",79.90,14\n"
       "TBL-1248,Oak dining table 180 cm,649.00,3\n"
       "MUG-0007,\"Mug \"\"Café de Flore\"\"\",12.50,120\n"
       "LMP-0301,Lampe de chevet laiton,39.00,0\n").encode()

VCARD = ("BEGIN:VCARD\r\nVERSION:3.0\r\nN:Weiß;Jürgen;;;\r\nFN:Jürgen Weiß\r\nEMAIL:j.weiss@example.de\r\n"
         "TEL;TYPE=cell:+49 89 5550 1234\r\nADR;TYPE=home:;;Schönfeldstraße 12;München;;80539;Germany\r\n"
         "END:VCARD\r\n").encode()

SVG = (b'<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="24" height="24" '
       b'viewBox="0 0 24 24"><path d="M12 2l3 7h7l-5.5 4 2 7L12 16l-6.5 4 2-7L2 9h7z" fill="#f5a623"/></svg>\n')

DOCX_LIKE = b"PK\x03\x04\x14\x00\x06\x00\x08\x00\x00\x00!\x00" + bytes((i * 53 + 7) % 256 for i in range(400))


def multipart(boundary, parts):
    """parts: (name, filename or None, content type or None, bytes). CRLF line ends as browsers write them."""
    out = b""
    for name, filename, ctype, data in parts:
        out += f"--{boundary}\r\n".encode()
        disp = f'Content-Disposition: form-data; name="{name}"'
        if filename is not None:
            disp += f'; filename="{filename}"'
        out += disp.encode() + b"\r\n"
        if ctype:
            out += f"Content-Type: {ctype}\r\n".encode()
        out += b"\r\n" + (data if isinstance(data, bytes) else data.encode()) + b"\r\n"
    return out + f"--{boundary}--\r\n".encode()


def boundary(i, fam):
    """The boundary shape each browser uses."""
    token = base64.b64encode(bytes((i * 29 + k * 13) % 256 for k in range(12))).decode().replace("+", "A").replace(
        "/", "B")[:16]
    if fam == "chrome":
        return f"----WebKitFormBoundary{token}"
    if fam == "safari":
        return f"----WebKitFormBoundary{token[::-1]}"
    return f"----geckoformboundary{(i * 2654435761) % (16 ** 12):012x}{(i * 40503) % (16 ** 8):08x}"


def uploads():
    c = Corpus("uploads")
    files = [
        ("avatar", "profile.png", "image/png", png(16, 16, (70, 130, 180)), [("display_name", "Léa M.")]),
        ("avatar", "IMG_2041.JPG", "image/jpeg", JPEG, [("crop", "0,0,512,512")]),
        ("photo", "photo 2024-11-25 10.31.07.jpeg", "image/jpeg", JPEG,
         [("caption", "The table after two weeks - still no scratches!"), ("product_id", "1248")]),
        ("invoice", "Invoice 2024-1187.pdf", "application/pdf", PDF, [("order", "48213"), ("reason", "VAT refund")]),
        ("import", "stock-update.csv", "text/csv", CSV, [("mode", "merge"), ("dry_run", "false")]),
        ("contact", "Jürgen Weiß.vcf", "text/vcard", VCARD, []),
        ("icon", "star.svg", "image/svg+xml", SVG, [("alt", "rating star")]),
        ("cv", "CV_Małgorzata_Wójcik.docx",
         "application/vnd.openxmlformats-officedocument.wordprocessingml.document", DOCX_LIKE,
         [("position", "Junior Data Analyst"), ("cover_letter", "Dzień dobry, w załączeniu przesyłam moje CV. "
                                                                "Chętnie opowiem więcej podczas rozmowy.")]),
        ("screenshot", "スクリーンショット 2024-11-25 10.12.03.png", "image/png", png(8, 8, (240, 240, 240)),
         [("ticket", "T-2291"), ("description", "画面のボタンが押せません。")]),
        ("attachment", "notes.txt", "text/plain",
         "Meeting notes 25/11\n- ship the winter catalogue on 2 Dec\n- ask Tom re: returns policy (30 -> 60 days?)\n"
         "- budget: 12.5k EUR\n".encode(), [("subject", "Notes from today")]),
        ("receipt", "receipt.heic", "image/heic", b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic"
         + bytes((i * 91 + 3) % 256 for i in range(300)), [("amount", "23,40"), ("currency", "EUR")]),
        ("backup", "export.json", "application/json", jsonb({"wishlist": [1201, 1207], "addresses": [{"city":
                                                                                                      "Lyon"}]}),
         [("source", "settings page")]),
        ("file", "empty.txt", "text/plain", b"", []),
    ]
    for i, (field, filename, ctype, data, fields) in enumerate(files):
        b = browser(i)
        fam = family(b[0])
        bnd = boundary(i, fam)
        parts = [("csrf_token", None, None, "a8Fk2mQ9vX1pL7sT4wZ0")]
        parts += [(k, None, None, v) for k, v in fields]
        parts.append((field, filename, ctype, data))
        h = form_post_headers(HOST, b, f"https://{HOST}/account/upload", f"multipart/form-data; boundary={bnd}",
                              cookie(i), "en-US,en;q=0.9")
        c.add("POST", "/account/upload", h, multipart(bnd, parts))
    # Several files at once, and a multipart form without files (a form with enctype multipart).
    for i in range(3):
        b = browser(i + 4)
        bnd = boundary(100 + i, family(b[0]))
        parts = [("album", None, None, ["Vacances été 2024", "Urlaub am Gardasee", "家族旅行"][i])]
        parts += [("photos[]", f"IMG_{3100 + k}.JPG", "image/jpeg", JPEG) for k in range(3)]
        c.add("POST", "/albums/upload", form_post_headers(HOST, b, f"https://{HOST}/albums/new",
                                                          f"multipart/form-data; boundary={bnd}", cookie(i), "en"),
              multipart(bnd, parts))
    for i, (lang, accept_lang, name, _, message) in enumerate(PROSE[::5]):
        b = browser(i)
        bnd = boundary(200 + i, family(b[0]))
        parts = [("name", None, None, name), ("message", None, None, message),
                 ("attachment", "", "application/octet-stream", b"")]  # the empty file input browsers send
        c.add("POST", "/support/new", form_post_headers(HOST, b, f"https://{HOST}/support",
                                                        f"multipart/form-data; boundary={bnd}", cookie(i),
                                                        accept_lang), multipart(bnd, parts))
    # fetch() with FormData from the single-page app.
    for i in range(3):
        b = browser(i + 2)
        bnd = boundary(300 + i, family(b[0]))
        parts = [("kind", None, None, "product-photo"), ("file", f"product-{1248 + i}.png", "image/png",
                                                         png(4 + i, 4 + i, (200, 30 * i, 90)))]
        c.add("POST", "/v1/media", fetch_headers(API, b, "https://app.example.org/products/1248/edit",
                                                 content_type=f"multipart/form-data; boundary={bnd}"),
              multipart(bnd, parts))
    return c


# --- a developer forum: code and SQL in comment fields -----------------------------------------------------------

POSTS = [
    ("Slow query with JOIN", "My query got slow after the table grew to 2M rows:\n\n```sql\nSELECT o.id, c.name, "
     "o.total\nFROM orders o\nJOIN customers c ON c.id = o.customer_id\nWHERE o.created_at > '2024-01-01'\nORDER BY "
     "o.total DESC\nLIMIT 50;\n```\n\nThere is an index on customer_id. What am I missing?"),
    ("Re: Slow query with JOIN", "Add a composite index: `CREATE INDEX idx_orders_created_total ON orders "
     "(created_at, total);` and check EXPLAIN ANALYZE again. Also, do you really need ORDER BY total?"),
    ("How to delete duplicates", "I want to keep the newest row per email. Is this safe?\n\nDELETE FROM users a "
     "USING users b WHERE a.email = b.email AND a.id < b.id;"),
    ("Python: list comprehension vs map", "Which one is more pythonic?\n\n```python\nsquares = [x * x for x in "
     "range(10) if x % 2 == 0]\nsquares = list(map(lambda x: x * x, filter(lambda x: x % 2 == 0, range(10))))\n```"),
    ("Bash loop over files with spaces", "This breaks on file names with spaces:\n\n    for f in $(ls *.jpg); do "
     "convert \"$f\" -resize 50% \"small_$f\"; done\n\nUse `for f in *.jpg; do ...; done` instead."),
    ("JS: debounce an input", "Here's what I use:\n\n```js\nfunction debounce(fn, ms) {\n  let t;\n  return (...args) "
     "=> { clearTimeout(t); t = setTimeout(() => fn(...args), ms); };\n}\ninput.addEventListener('input', "
     "debounce(search, 300));\n```"),
    ("Rust borrow checker question", "Why does this not compile?\n\n```rust\nlet mut v = vec![1, 2, 3];\nlet first "
     "= &v[0];\nv.push(4);\nprintln!(\"{}\", first);\n```"),
    ("Escaping HTML in templates", "In Jinja2 use `{{ user.name }}` - it escapes by default. Only `{{ html|safe }}` "
     "skips escaping, so never do that with user input. In React, `dangerouslySetInnerHTML` is the same trap."),
    ("nginx reverse proxy config", "This is my config, websocket upgrade doesn't work:\n\n    location /ws/ {\n     "
     "   proxy_pass http://127.0.0.1:8080;\n        proxy_http_version 1.1;\n        proxy_set_header Upgrade "
     "$http_upgrade;\n        proxy_set_header Connection \"upgrade\";\n    }"),
    ("Docker build cache", "Put `COPY requirements.txt .` and `RUN pip install -r requirements.txt` before `COPY . .` "
     "so the dependency layer is cached."),
    ("SQL: count per day", "SELECT date_trunc('day', created_at) AS day, count(*) FROM events GROUP BY 1 ORDER BY 1;"
     "\n\nWorks in Postgres. For MySQL use DATE(created_at)."),
    ("Git: undo last commit", "`git reset --soft HEAD~1` keeps your changes staged. `git revert HEAD` if you already "
     "pushed."),
    ("Regex for postcodes", "UK postcodes: `^[A-Z]{1,2}\\d[A-Z\\d]? ?\\d[A-Z]{2}$` - not perfect but good enough "
     "for a form."),
    ("PHP PDO prepared statements", "Never concatenate input into SQL. Use:\n\n```php\n$stmt = $pdo->prepare('SELECT "
     "* FROM products WHERE id = ?');\n$stmt->execute([$id]);\n$row = $stmt->fetch();\n```"),
    ("Java streams", "```java\nList<String> names = users.stream()\n    .filter(u -> u.isActive())\n    "
     ".map(User::getName)\n    .collect(Collectors.toList());\n```"),
    ("PowerShell: list big files", "Get-ChildItem -Recurse | Where-Object { $_.Length -gt 100MB } | Sort-Object "
     "Length -Descending | Select-Object FullName, Length"),
    ("C pointer arithmetic",
     "```c\nint arr[] = {1, 2, 3};\nint *p = arr;\nprintf(\"%d\\n\", *(p + 2));\n```\nprints 3."),
    ("Go error handling", "```go\nf, err := os.Open(\"config.yaml\")\nif err != nil {\n    return fmt.Errorf(\"open "
     "config: %w\", err)\n}\ndefer f.Close()\n```"),
    ("Kubernetes liveness probe", "livenessProbe:\n  httpGet:\n    path: /healthz\n    port: 8080\n  "
     "initialDelaySeconds: 5\n  periodSeconds: 10"),
    ("Excel formula", "=IF(AND(A2>=10, B2<>\"\"), VLOOKUP(B2, Sheet2!A:C, 3, FALSE), \"n/a\")"),
]

PROSE_SQL = [
    "We moved from MySQL to PostgreSQL last year; the hardest part was rewriting the stored procedures.",
    "Please select the size you want from the drop-down list and update your cart before checkout.",
    "Our DBA says the union of both tables is too big to keep in memory, so we paginate with a cursor instead.",
    "I'm learning SQL: SELECT, INSERT, UPDATE and DELETE make sense, but window functions are hard.",
    "Drop me a line if the table doesn't fit - happy to swap it for the 160 cm one.",
    "The 'order by' dropdown on the search page resets when I go to page 2.",
    "Where can I find the schema of the orders table? The docs for the reporting API don't show it.",
    "Is there a way to export my order history as CSV or should I just copy the table from the page?",
    "Hi team, the admin panel shows \"1 = 1 results\" after filtering - looks like a template bug.",
    "Our intern ran a DELETE without a WHERE clause on staging. Backups saved the day :)",
    "She said: \"I'll be there at 5 o'clock, or at 6 if the train's late.\"",
    "Prices are per m² (excl. VAT), min. order 10 units; see §4 of our T&Cs.",
]


def code_comments():
    c = Corpus("code-comments")
    for i, (title, body) in enumerate(POSTS):
        b = browser(i)
        # Forum posts: a form post; the forum's newer editor posts JSON.
        if i % 2 == 0:
            c.add("POST", f"/t/{9000 + i}/reply",
                  form_post_headers(FORUM, b, f"https://{FORUM}/t/{9000 + i}", "application/x-www-form-urlencoded",
                                    cookie(i), "en-US,en;q=0.9"),
                  form([("authenticity_token", "Q2xVb0p6dE1xY2pYbHpXeA=="), ("title", title), ("raw", body),
                        ("category", "programming"), ("tags", "help")]))
        else:
            c.add("POST", "/posts.json", fetch_headers(FORUM, b, f"https://{FORUM}/t/{9000 + i}",
                                                       content_type="application/json", auth=False,
                                                       cookie=cookie(i), extra=[("X-CSRF-Token",
                                                                                 "Q2xVb0p6dE1xY2pYbHpXeA==")]),
                  jsonb({"title": title, "raw": body, "topic_id": 9000 + i, "archetype": "regular"}))
    for i, text in enumerate(PROSE_SQL):
        b = browser(i + 1)
        if i % 2 == 0:
            c.add("POST", f"/products/{1200 + i}/questions",
                  form_post_headers(HOST, b, f"https://{HOST}/products/{1200 + i}", "application/x-www-form-urlencoded",
                                    cookie(i), "en-GB,en;q=0.9"),
                  form([("question", text), ("notify", "on")]))
        else:
            c.add("POST", "/v1/support/tickets", fetch_headers(API, b, "https://app.example.org/help",
                                                               content_type="application/json"),
                  jsonb({"subject": text[:40], "message": text, "priority": "normal"}))
    # Search for code on the forum (GET).
    for i, q in enumerate(["select distinct on postgres", "python f-string {x!r}", "bash 2>&1 redirect",
                           "c# async await deadlock", "<script type=module> import", "css :has() selector",
                           "git rebase -i HEAD~3", "regex lookbehind (?<=)", "npm ERR! code ERESOLVE",
                           "ORDER BY RAND() slow"]):
        c.add("GET", "/search?" + urlencode([("q", q), ("in", "posts")]),
              page_headers(FORUM, browser(i), referer=f"https://{FORUM}/", cookie=cookie(i), site="same-origin"))
    return c


def browser_pages():
    c = Corpus("browser")
    pages = ["/", "/c/women", "/c/men/shoes", "/p/oak-dining-table-180cm-1248", "/cart", "/account", "/help/returns",
             "/about", "/blog/", "/stores/paris-marais", "/de/", "/fr/c/maison", "/ja/", "/search?q=jacket",
             "/account/orders/48213", "/gift-cards", "/sale?season=winter", "/legal/privacy", "/login?next=%2Fcart",
             "/checkout"]
    langs = ["en-US,en;q=0.9", "de-DE,de;q=0.9,en-US;q=0.8,en;q=0.7", "fr-FR,fr;q=0.9", "ja,en-US;q=0.9,en;q=0.8",
             "es-419,es;q=0.9", "zh-CN,zh;q=0.9", "en-GB,en-US;q=0.9,en;q=0.8"]
    for i, path in enumerate(pages):
        b = browser(i)
        first = i % 4 == 0
        c.add("GET", path, page_headers(HOST, b, referer=None if first else f"https://{HOST}/",
                                        cookie=None if first else cookie(i), lang=langs[i % len(langs)],
                                        site="none" if first else "same-origin"))
    # Reloads and back/forward: conditional requests and cache headers.
    for i, path in enumerate(["/", "/c/women", "/p/oak-dining-table-180cm-1248", "/blog/"]):
        h = page_headers(HOST, browser(i), referer=f"https://{HOST}/", cookie=cookie(i), site="same-origin")
        h.insert(2, ("Cache-Control", "max-age=0"))
        h.append(("If-None-Match", f'W/"{0x3a9f + i * 17:x}-{0x18d2c1a4b + i:x}"'))
        h.append(("If-Modified-Since", "Mon, 25 Nov 2024 08:14:02 GMT"))
        c.add("GET", path, h)
    # HEAD from link checkers and a feed reader, robots.txt from a search engine.
    c.add("HEAD", "/p/oak-dining-table-180cm-1248", [("Host", HOST), ("User-Agent", "Mozilla/5.0 (compatible; "
                                                    "Googlebot/2.1; +http://www.google.com/bot.html)"),
                                                    ("Accept", "*/*"), ("Accept-Encoding", "gzip, deflate, br")])
    c.add("GET", "/robots.txt", [("Host", HOST), ("User-Agent", "Mozilla/5.0 (compatible; bingbot/2.0; "
                                 "+http://www.bing.com/bingbot.htm)"), ("Accept", "*/*"),
                                 ("Accept-Encoding", "gzip, deflate"), ("Connection", "keep-alive")])
    c.add("GET", "/blog/feed.xml", [("Host", HOST), ("User-Agent", "Feedly/1.0 (+http://www.feedly.com/fetcher.html; "
                                    "12 subscribers)"), ("Accept", "application/rss+xml, application/atom+xml, "
                                    "application/xml;q=0.9, */*;q=0.8"), ("If-None-Match", '"5f3a9c-1f2e"'),
                                    ("Accept-Encoding", "gzip")])
    c.add("GET", "/sitemap.xml", [("Host", HOST), ("User-Agent", "Mozilla/5.0 (compatible; YandexBot/3.0; "
                                  "+http://yandex.com/bots)"), ("Accept", "*/*"), ("From", "support@search.yandex.ru"),
                                  ("Accept-Encoding", "gzip,deflate,br")])
    c.add("GET", "/.well-known/apple-app-site-association", [("Host", HOST), ("User-Agent", "AASA-Bot/1.0.0"),
                                                             ("Accept", "*/*")])
    # Prefetches and a service worker's navigation preload.
    h = page_headers(HOST, BROWSERS[0], referer=f"https://{HOST}/", cookie=cookie(0), site="same-origin")
    h.append(("Sec-Purpose", "prefetch;prerender"))
    c.add("GET", "/c/women/jackets", h)
    h = page_headers(HOST, BROWSERS[0], referer=f"https://{HOST}/", cookie=cookie(1), site="same-origin")
    h.append(("Service-Worker-Navigation-Preload", "true"))
    c.add("GET", "/account", h)
    # A page through a corporate proxy and a CDN in front of the site.
    h = page_headers(HOST, BROWSERS[6], cookie=cookie(3), lang="en-GB,en;q=0.5")
    h += [("Via", "1.1 proxy.corp.example.com (squid/5.7)"), ("X-Forwarded-For", "10.20.30.40"),
          ("CF-Connecting-IP", "203.0.113.77"), ("CF-IPCountry", "GB"), ("CF-Ray", "8e8a4e1b3c9f2a1d-LHR"),
          ("CF-Visitor", '{"scheme":"https"}'), ("X-Forwarded-Proto", "https")]
    c.add("GET", "/c/men", h)
    return c


def static_assets():
    c = Corpus("static")
    page = f"https://{HOST}/p/oak-dining-table-180cm-1248"
    assets = [
        ("/assets/app.3f2a1b9c.js", "script", "*/*"),
        ("/assets/vendor.react.18.3.1.8d7e6f5a.js", "script", "*/*"),
        ("/assets/chunk-ProductPage.a91c.js", "script", "*/*"),
        ("/assets/app.3f2a1b9c.js.map", "empty", "*/*"),
        ("/assets/main.77ab12ef.css", "style", "text/css,*/*;q=0.1"),
        ("/assets/fonts/Inter-var.woff2", "font", "*/*"),
        ("/assets/fonts/NotoSansJP-Regular.subset.woff2", "font", "*/*"),
        ("/img/products/1248/main@2x.webp", "image", None),
        ("/img/products/1248/detail-1.jpg?w=640&q=75&fm=avif", "image", None),
        ("/img/products/1248/detail-2.jpg?w=1280&dpr=2", "image", None),
        ("/img/logo.svg", "image", None),
        ("/img/icons/sprite.svg", "image", None),  # a fragment (#cart) never goes on the wire
        ("/favicon.ico", "image", None),
        ("/apple-touch-icon.png", "image", None),
        ("/site.webmanifest", "manifest", "*/*"),
        ("/sw.js", "serviceworker", "*/*"),
        ("/cdn-cgi/image/width=400,quality=80,format=auto/img/banner-winter.jpg", "image", None),
        ("/_next/static/chunks/pages/_app-4c3a8e1f0b2d7a96.js", "script", "*/*"),
        ("/_next/image?url=%2Fimg%2Fhero.jpg&w=1920&q=75", "image", None),
        ("/static/js/jquery-3.7.1.min.js", "script", "*/*"),
        ("/static/css/bootstrap.min.css?v=5.3.3", "style", "text/css,*/*;q=0.1"),
        ("/wp-content/themes/shop/style.css?ver=6.7.1", "style", "text/css,*/*;q=0.1"),
        ("/wp-includes/js/wp-emoji-release.min.js?ver=6.7.1", "script", "*/*"),
        ("/media/catalog/product/cache/1/image/9df78eab33525d08d6e5fb8d27136e95/t/a/table.jpg", "image", None),
        ("/videos/teaser-1080p.mp4", "video", "*/*"),
        ("/locales/zh-CN/translation.json", "empty", "application/json"),
        ("/assets/%E5%95%86%E5%93%81%E7%94%BB%E5%83%8F.png", "image", None),
        ("/downloads/Assembly%20instructions%20TBL-1248.pdf", "document", None),
    ]
    for i, (path, dest, accept) in enumerate(assets):
        name, ua = browser(i)
        fam = family(name)
        h = [("Host", HOST), ("Connection", "keep-alive")]
        if fam == "chrome":
            h += [(k, v) for k, v in ua.items() if k != "User-Agent"]
        h.append(("User-Agent", ua["User-Agent"]))
        if dest == "document":
            h.append(("Accept", ACCEPT_DOC[fam]))
        else:
            h.append(("Accept", accept or ACCEPT_IMAGE[fam]))
        if dest == "font":
            h.append(("Origin", f"https://{HOST}"))
        mode = {"font": "cors", "document": "navigate", "serviceworker": "same-origin", "manifest": "cors",
                "empty": "cors"}.get(dest, "no-cors")
        h += [("Sec-Fetch-Site", "same-origin"), ("Sec-Fetch-Mode", mode), ("Sec-Fetch-Dest", dest)]
        if dest == "serviceworker":
            h.append(("Service-Worker", "script"))
        if dest == "video":
            h.append(("Range", "bytes=0-"))
        h += [("Referer", page), ("Accept-Encoding", "identity;q=1, *;q=0" if dest == "video" else ENCODING[fam]),
              ("Accept-Language", "en-US,en;q=0.9")]
        if i % 3 == 0:
            h.append(("Cookie", cookie(i)))
        if i % 4 == 1:
            h.append(("If-None-Match", f'"{0x1b2c3d4e + i * 101:x}"'))
        c.add("GET", path, h)
    return c


def main():
    total = 0
    for corpus in (forms(), search(), json_api(), uploads(), code_comments(), browser_pages(), static_assets()):
        path, n = corpus.write()
        total += n
        print(f"{path.relative_to(OUT.parent.parent)}: {n} requests")
    # The larger generated classes (beacons, API bodies, GraphQL, forms in 18 languages, code, rich text, Markdown,
    # tokens and URLs, binary uploads, client header sets): one module per class in generate/.
    for path, n in generate.build_all():
        total += n
        print(f"{path.relative_to(OUT.parent.parent)}: {n} requests")
    print(f"{total} requests")


if __name__ == "__main__":
    main()
