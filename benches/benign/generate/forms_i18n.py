"""forms-i18n.txt: HTML forms and searches in 18 languages (English, French, German, Spanish, Portuguese, Italian,
Polish, Russian, Turkish, Arabic, Hebrew, Hindi, Chinese, Japanese, Korean, Vietnamese, Thai, Greek), as browsers
submit them: application/x-www-form-urlencoded (UTF-8, space as +), multipart/form-data without files (fetch() with
FormData), and GET search forms; some from pages in the language's legacy encoding (GBK, Big5, Shift_JIS, EUC-KR,
windows-1251, ISO 8859...), their fields in it and XMLHttpRequest bodies labelled with it. Field names and shapes from common platforms: WooCommerce/Shopify checkout and
contact forms, WordPress comments (comment, author, email, url, comment_post_ID), Django/Rails sign-up forms with
CSRF tokens, phpBB/Discourse replies, newsletter sign-ups, review forms, job applications, event bookings, Magento
and Shopify search with filters. Text: template sentences with everyday punctuation (quotes, apostrophes, ;, |, &,
parentheses, --, /, #, <3, emoticons), prices, times and addresses.
"""
import random
from urllib.parse import urlencode

from . import text
from .common import (Corpus, alnum, cookie_header, email, fetch, form, form_post, hexid, host, navigation, pick, qs,
                     weighted)


def phone(rng):
    return pick(rng, [f"+{rng.randint(1, 99)} {rng.randint(10, 999)} {rng.randint(100, 999)} {rng.randint(1000, 9999)}",
                      f"({rng.randint(200, 999)}) {rng.randint(200, 999)}-{rng.randint(1000, 9999)}",
                      f"0{rng.randint(100, 999)}/{rng.randint(100000, 9999999)}", f"0{rng.randint(6, 7)}.{rng.randint(10, 99)}.{rng.randint(10, 99)}.{rng.randint(10, 99)}.{rng.randint(10, 99)}"])


def contact(rng, lang):
    return [("name", text.name(rng, lang)), ("email", email(rng)), ("phone", phone(rng)),
            ("subject", text.title(rng, lang)), ("message", text.prose(rng, lang)),
            ("order_number", pick(rng, ["", f"#{rng.randint(10000, 99999)}", f"{rng.randint(100, 999)}-{rng.randint(1000000, 9999999)}"])),
            ("consent", "on"), ("_wpcf7", str(rng.randint(10, 9999))), ("_wpcf7_version", "5.9.8"), ("_wpcf7_locale", lang),
            ("_wpcf7_unit_tag", f"wpcf7-f{rng.randint(10, 9999)}-p{rng.randint(10, 9999)}-o1")]


def comment(rng, lang):
    return [("comment", text.prose(rng, lang)), ("author", text.name(rng, lang)), ("email", email(rng)),
            ("url", pick(rng, ["", f"https://{alnum(rng, 7).lower()}.blog.example/", "http://example.com/~me"])),
            ("wp-comment-cookies-consent", "yes"), ("comment_post_ID", str(rng.randint(1, 99999))), ("comment_parent", pick(rng, ["0", str(rng.randint(1, 9999))])),
            ("akismet_comment_nonce", hexid(rng, 10))]


def signup(rng, lang):
    pw = alnum(rng, rng.randint(8, 14)) + pick(rng, ["!", "#", "$", "%", "&", "*", "'", ";", "(", ")", "--", "|", "<", "@"]) + str(rng.randint(0, 99))
    first = text.name(rng, lang)
    return [("csrfmiddlewaretoken", alnum(rng, 64)), ("first_name", first.split(" ")[0]), ("last_name", first.split(" ")[-1]),
            ("email", email(rng)), ("password1", pw), ("password2", pw), ("country", pick(rng, ["DE", "FR", "JP", "BR", "TR", "IN", "EG"])),
            ("city", text.city(rng, lang)), ("birth_date", f"{rng.randint(1950, 2006)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"),
            ("newsletter", pick(rng, ["on", "off"])), ("terms", "on")]


def checkout(rng, lang):
    return [("authenticity_token", alnum(rng, 86) + "=="), ("checkout[email]", email(rng)),
            ("checkout[shipping_address][first_name]", text.name(rng, lang).split(" ")[0]),
            ("checkout[shipping_address][last_name]", text.name(rng, lang).split(" ")[-1]),
            ("checkout[shipping_address][address1]", text.address(rng, lang)), ("checkout[shipping_address][address2]", pick(rng, ["", "Apt. 3", "2. OG links", "Bât. C"])),
            ("checkout[shipping_address][city]", text.city(rng, lang)), ("checkout[shipping_address][zip]", str(rng.randint(1000, 99999))),
            ("checkout[shipping_address][phone]", phone(rng)), ("checkout[note]", pick(rng, ["", text.prose(rng, lang, 2)])),
            ("checkout[buyer_accepts_marketing]", pick(rng, ["0", "1"])), ("step", "contact_information"),
            ("checkout[client_details][browser_width]", str(rng.randint(360, 2560))), ("checkout[client_details][javascript_enabled]", "1")]


def review(rng, lang):
    return [("rating", str(rng.randint(1, 5))), ("title", text.title(rng, lang)), ("review", text.prose(rng, lang)),
            ("pros", pick(rng, ["", text.sentence(rng, lang)])), ("cons", pick(rng, ["", text.sentence(rng, lang), "none :)", "-"])),
            ("recommend", pick(rng, ["yes", "no"])), ("nickname", text.name(rng, lang)), ("product_id", str(rng.randint(1, 99999)))]


def forum_reply(rng, lang):
    return [("message", text.prose(rng, lang, rng.randint(2, 6))), ("subject", "Re: " + text.title(rng, lang)), ("topic_cur_post_id", str(rng.randint(1, 10 ** 6))),
            ("lastclick", str(rng.randint(1700000000, 1760000000))), ("creation_time", str(rng.randint(1700000000, 1760000000))),
            ("form_token", hexid(rng, 40)), ("attach_sig", "on"), ("post", "Submit"), ("disable_smilies", pick(rng, ["", "on"]))]


def booking(rng, lang):
    return [("date", f"2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"), ("time", f"{rng.randint(9, 21)}:{pick(rng, ['00', '15', '30', '45'])}"),
            ("guests", str(rng.randint(1, 12))), ("name", text.name(rng, lang)), ("phone", phone(rng)), ("email", email(rng)),
            ("requests", pick(rng, ["", text.sentence(rng, lang), "High chair please; one guest is vegan (no honey)", "Window seat if possible :)"])),
            ("occasion", pick(rng, ["", "birthday", "anniversary", "business"]))]


def application(rng, lang):
    return [("full_name", text.name(rng, lang)), ("email", email(rng)), ("phone", phone(rng)),
            ("linkedin", f"https://www.linkedin.com/in/{alnum(rng, 10).lower()}/"), ("portfolio", pick(rng, ["", f"https://github.com/{alnum(rng, 8).lower()}"])),
            ("salary_expectation", pick(rng, ["55k-65k", "€4.500/Monat", "negotiable", "$120,000 + equity"])),
            ("start_date", pick(rng, ["ASAP", "2 weeks' notice", "01/03/2025"])), ("cover_letter", text.prose(rng, lang, 5)),
            ("how_did_you_hear", pick(rng, ["LinkedIn", "a friend (Anna K.)", "Stack Overflow Jobs", "meetup #42"]))]


def newsletter(rng, lang):
    return [("EMAIL", email(rng)), ("FNAME", text.name(rng, lang).split(" ")[0]), ("b_" + hexid(rng, 25) + "_" + hexid(rng, 10), ""),
            ("group[1234][1]", "1"), ("language", lang), ("source", pick(rng, ["footer", "popup", "blog-sidebar"]))]


FORMS = [(4, contact, "/contact"), (4, comment, "/wp-comments-post.php"), (3, signup, "/accounts/signup/"),
         (3, checkout, "/checkouts/{id}"), (3, review, "/products/{id}/reviews"), (2, forum_reply, "/posting.php?mode=reply&t={id}"),
         (2, booking, "/reservations"), (1, application, "/jobs/{id}/apply"), (2, newsletter, "/subscribe/post?u={id}")]


# The encodings pages in each language were (and many still are) served in: a browser submits a form, and the
# query of a search form, in the page's encoding, writing a character the encoding lacks as `&#NNNN;`; scripts on
# such pages label their XMLHttpRequest bodies with it (`charset=GBK`). Hindi had no legacy encoding browsers use.
LEGACY = {"en": ["windows-1252", "iso-8859-1"], "fr": ["windows-1252", "iso-8859-15"], "de": ["iso-8859-1", "windows-1252"],
          "es": ["iso-8859-1"], "pt": ["iso-8859-1"], "it": ["windows-1252"], "pl": ["iso-8859-2", "windows-1250"],
          "ru": ["windows-1251", "koi8-r"], "tr": ["iso-8859-9", "windows-1254"], "ar": ["windows-1256"],
          "he": ["windows-1255"], "zh": ["gbk", "gb2312", "big5", "gb18030"], "ja": ["shift_jis", "euc-jp"],
          "ko": ["euc-kr"], "vi": ["windows-1258"], "th": ["windows-874", "tis-620"], "el": ["iso-8859-7", "windows-1253"]}


def legacy_form(fields, charset):
    """application/x-www-form-urlencoded as a browser writes it from a page in `charset`."""
    codec = {"windows-874": "cp874", "tis-620": "tis_620"}.get(charset, charset)
    return urlencode([(k, v.encode(codec, errors="xmlcharrefreplace")) for k, v in fields])


def submit(rng, c):
    lang = pick(rng, text.LANGUAGES)
    _, maker, path = weighted(rng, [(w, (w, m, p)) for w, m, p in FORMS])
    path = path.replace("{id}", str(rng.randint(1, 99999)) if rng.random() < 0.7 else hexid(rng, 32))
    fields = maker(rng, lang)
    hst = host(rng, pick(rng, ["www", "shop", "forum", "jobs", "www"]))
    ref = f"https://{hst}{path.split('?')[0]}"
    al = text.accept_language(rng, lang)
    ck = cookie_header(rng)
    mode = weighted(rng, [(7, "urlencoded"), (2, "fetch-multipart"), (1, "fetch-urlencoded"), (1, "legacy")])
    if mode == "legacy" and lang in LEGACY:
        charset = pick(rng, LEGACY[lang])
        if rng.random() < 0.5:
            c.add("POST", path, form_post(rng, hst, ref, "application/x-www-form-urlencoded", cookie=ck, lang=al),
                  legacy_form(fields, charset))
        else:
            c.add("POST", path, fetch(rng, hst, ref, content_type=f"application/x-www-form-urlencoded; charset={charset.upper()}",
                                      accept="*/*", cookie=ck, lang=al, extra=[("X-Requested-With", "XMLHttpRequest")]),
                  legacy_form(fields, charset))
    elif mode in ("urlencoded", "legacy"):
        c.add("POST", path, form_post(rng, hst, ref, "application/x-www-form-urlencoded", cookie=ck, lang=al), form(fields))
    elif mode == "fetch-urlencoded":
        c.add("POST", path, fetch(rng, hst, ref, content_type="application/x-www-form-urlencoded;charset=UTF-8", cookie=ck, lang=al,
                                  extra=[("X-Requested-With", "XMLHttpRequest")]), form(fields))
    else:
        boundary = pick(rng, ["----WebKitFormBoundary" + alnum(rng, 16), "----geckoformboundary" + hexid(rng, 32)])
        body = "".join(f"--{boundary}\r\nContent-Disposition: form-data; name=\"{k}\"\r\n\r\n{v}\r\n" for k, v in fields) + f"--{boundary}--\r\n"
        c.add("POST", path, fetch(rng, hst, ref, content_type=f"multipart/form-data; boundary={boundary}", accept="*/*", cookie=ck, lang=al), body)


def search(rng, c):
    lang = pick(rng, text.LANGUAGES)
    hst = host(rng, pick(rng, ["www", "shop", "m", "help"]))
    q = [(pick(rng, ["q", "s", "query", "search", "keyword", "k", "term"]), text.search_query(rng, lang))]
    if rng.random() < 0.5:
        q += rng.sample([("category", pick(rng, ["kitchen & dining", "Bücher/Romane", "hommes|femmes", "shoes"])),
                         ("price_min", str(rng.randint(0, 50))), ("price_max", str(rng.randint(60, 900))),
                         ("sort", pick(rng, ["price_asc", "-rating", "relevance", "newest"])), ("page", str(rng.randint(1, 30))),
                         ("color[]", pick(rng, ["black", "bleu marine", "grün"])), ("size", pick(rng, ["M", "42", "10.5"])),
                         ("in_stock", "1"), ("lang", lang), ("brand", pick(rng, ["Müller & Co", "L'Artisan", "Marks & Spencer", "Dr. Oetker"]))],
                        rng.randint(1, 4))
    if rng.random() < 0.25:
        q.append(("utm_source", pick(rng, ["google", "newsletter", "instagram"])))
    path = pick(rng, ["/search", "/catalogsearch/result/", "/", "/s", "/recherche", "/suche", "/buscar", "/help/search"])
    ref = pick(rng, [None, f"https://{hst}/", "https://www.google.com/"])
    b_site = "same-origin" if ref and hst in ref else ("cross-site" if ref else "none")
    if lang in LEGACY and rng.random() < 0.15:
        c.add("GET", path + "?" + legacy_form(q, pick(rng, LEGACY[lang])), navigation(rng, hst, referer=ref,
              cookie=cookie_header(rng), lang=text.accept_language(rng, lang), site=b_site))
    elif rng.random() < 0.75:
        c.add("GET", path + "?" + form(q), navigation(rng, hst, referer=ref, cookie=cookie_header(rng), lang=text.accept_language(rng, lang), site=b_site))
    else:  # autocomplete from the search box
        c.add("GET", "/api/suggest?" + qs([("q", text.search_query(rng, lang)[:rng.randint(2, 20)]), ("limit", "8"), ("locale", lang)]),
              fetch(rng, hst, f"https://{hst}/", accept="application/json", lang=text.accept_language(rng, lang), cookie=cookie_header(rng)))


def build(n=3000, seed=0xF0A1):
    rng = random.Random(seed)
    c = Corpus("forms-i18n")
    for _ in range(n):
        (submit if rng.random() < 0.62 else search)(rng, c)
    return c
