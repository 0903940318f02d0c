"""reported.txt: the kinds of legitimate requests that users of the OWASP CRS reported as blocked at paranoia level 1,
regenerated here with the header sets of the clients that send them. Shapes described in public CRS false-positive
reports (the issue trackers of the CRS project, its rule-exclusion plugins, libinjection and the applications):

- analytics, advertising and consent cookies: Matomo/Piwik `_pk_ref` (a URL-encoded JSON array with the referrer),
  `_pk_id`, `_pk_ses`; sourcebuster.js `sbjs_*` (WooCommerce order attribution: `|||`-separated fields, `(none)`,
  `(direct)`, the user agent); Prebid user-id cookies with JSON; Google Funding Choices `FCCDCF`/`FCNEC` and Ad Manager
  `__gads`/`__gpi`; Adobe Analytics/Target `AMCV_*`, `mbox`, `at_geo`; CodeIgniter 2 `ci_session` (PHP-serialized
  array and its MD5); remember-me cookies of PHP sites (JSON with `\\/`); phpMyAdmin, PrestaShop `sf_redirect`
  (Symfony redirect JSON with controller class names), WordPress and WooCommerce cookies; Outlook's
  `OutlookSession="{GUID}"`;
- Matomo tracking hits (`/matomo.php`, `/piwik.php`: `url`, `urlref`, `action_name`, `uadata` client-hints JSON,
  e-commerce items, site-search and event parameters);
- WordPress and its plugins: WooCommerce checkout and `update_order_review` (`wc_order_attribution_*` with the user
  agent, `post_data` holding the whole checkout form), product editing (HTML lists, Polish excerpts), page builders
  (Divi `et_fb_ajax_save` modules JSON, Elementor `elementor_ajax` actions JSON, WPBakery and gallery shortcodes,
  SiteOrigin `panels_data` with inline font styles), Yoast prominent words, Jetpack's signed XML-RPC calls;
- PrestaShop back office (multilingual product descriptions `form[step1][description][N]`, notification polling,
  carrier-module OAuth callbacks); Drupal node edit forms (`form_build_id`, CKEditor HTML, webforms);
- Moodle AJAX (`service-nologin.php` with JSON `args` in the query, `service.php` JSON calls), editor autosave
  (`actions[0][drafttext]`), course summaries (`summary_editor[text]`), quiz answers with formulas;
- MediaWiki source edits (multipart `wpTextbox1` wikitext with templates, tables, references and `wpEditToken`
  ending in `+\\`) and VisualEditor saves through `api.php`;
- phpMyAdmin (SQL box, row edits with `fields[multi_edit]`, `where_clause`) and Adminer query forms;
- Grafana (dashboard saves with the built-in `-- Grafana --` annotation data source, PromQL, LogQL and SQL (`rawSql`) queries,
  Prometheus label-value lookups with `match[]` selectors, Elasticsearch `_msearch` as `application/x-ndjson`);
- Nextcloud (WebDAV `PUT` of PDFs, images and documents with their own media types from the desktop client, Android
  app and browser, public-share uploads, `PROPFIND` XML, CalDAV `PUT` from iOS, CardDAV from DAVx5, dashboard
  widgets, UnifiedPush messages with `Content-Encoding: aes128gcm`);
- Microsoft Exchange: ActiveSync `SendMail` (WBXML carrying a MIME message) from iPhones, Outlook autodiscover XML,
  iOS autodiscover without Accept, Office Online Server `RemoteUls.ashx` JSON logs;
- webmail: Roundcube compose/send (display names with angle brackets, quoted replies, links), Horde address book
  paging by letter (and the Referer it leaves);
- GitLab repository browsing (`/-/blob/`, `/-/tree/`, `logs_tree` and raw-file API paths that are Unix paths);
- SCIM provisioning (`application/scim+json`) and JasperReports resource media types; SimpleSAMLphp `AuthState`
  and signed SAML redirect bindings; Keycloak login forms (`session_code`, `execution`, `tab_id`, `KC_RESTART`);
  Mattermost preference updates; browser extensions posting with a `chrome-extension://` / `moz-extension://` origin;
- what people type: passwords from password managers (`<`, `>`, `|`, `?`, quotes) and typed ones with `%` and
  digits, initials (`df`, `su`, `w`), surnames with particles (Del, Di, Van), organisation names with their
  abbreviation in parentheses, driving and hiking directions (a turn with the distance in parentheses), local-history text with years in
  parentheses, quotes closed by `!`, instructions whose lines start with a verb, consent-checkbox labels holding a
  link, searches with functions (`sin(x)`, `log(2)`), insurance comparison widgets that pass a whole query string in one
  field, JSON arrays of random ids with `--` in them, RQL-style filters (`in(field,(...))`), file names with
  repeated counters (`photo(5)(4).jpg`), CamelCase campaign slugs, Unicode forum slugs, referers from search
  engines onto `/src/` pages.

Every value is generated here from word lists and random ids; nothing is copied from the reports. Nothing is chosen
to avoid or to hit any rule: the shapes are what those applications and people send.
"""
import base64
import hashlib
import json
import random
import string
import zlib
from urllib.parse import quote, quote_plus

from . import text
from .common import (ENCODING, LAST, Corpus, alnum, b64url, browser, consent_cookie, cookie_header, email,
                     fetch, form, form_post, ga_cookie, hexid, iso, jsonb, jwt, navigation, pick, qs, session_cookie,
                     site, ts, uid, weighted)

FIRSTNAMES = ["María", "José", "Anna", "Jan", "Giulia", "Pieter", "Sophie", "Mehmet", "Olga", "Tomasz", "Claire",
              "Lars", "Aiko", "Ravi", "Fatima", "Noah", "Emma", "Luca", "Ines", "Bram"]
PARTICLE_SURNAMES = ["Del Blanca", "Del Rio", "Di Maria", "De la Cruz", "Van Dam", "van der Berg", "Da Silva",
                     "Dos Santos", "Le Roux", "O'Connor", "McDonald", "Al Hashimi", "Ten Have", "De Vries",
                     "Della Valle", "San Martín", "Du Pont", "Mac Lean", "Van Echo", "Del Mar"]
ORGS = [("Northern Textile Workers' Federation", "NTWF"), ("Allied Printing Trades' Council", "APTC"), ("International Business Machines", "IBM"),
        ("Deutsche Gesellschaft für Internationale Zusammenarbeit", "GIZ"), ("Union of Concerned Scientists", "UCS"),
        ("Royal National Lifeboat Institution", "RNLI"), ("Médecins Sans Frontières", "MSF"),
        ("Food and Agriculture Organization", "FAO"), ("Select Committee on Science", "SCS"),
        ("Association of Chartered Certified Accountants", "ACCA"), ("Union Européenne de Radio-Télévision", "UER"),
        ("National Health Service", "NHS"), ("Order of the Eastern Star", "OES"), ("Table Tennis England", "TTE"),
        ("Sleep Research Society", "SRS"), ("Union Cycliste Internationale", "UCI")]
WORDS = ["sprint", "for", "the", "cause", "paint", "dalton", "run", "hope", "bake", "sale", "spring", "walk",
         "river", "city", "green", "night", "market", "summer", "fest", "kids", "swim", "read", "global", "local",
         "art", "music", "school", "family", "harvest", "winter", "lights", "open", "day", "food", "drive", "help",
         "heart", "system", "shell", "echo", "union", "exec", "print", "time", "table", "select", "order", "value"]
PLACES = ["Millbrook", "Thornleigh", "Holzhausen", "Wendover", "Bramcote", "Aldwick", "Oakham", "Wetherby", "Kleinwald",
          "Rosenau", "Ashby", "Eastwick", "Lindholm", "Grünberg", "Marston", "Felbridge", "Upton", "Belsize"]
VERBS = ["Select", "Set", "Measure", "Start", "Type", "Find", "Sort", "Print", "Format", "Copy", "Move", "Open",
         "Choose", "Replace", "Remove", "Add", "Check", "Time", "Label", "Mount", "Connect", "Restart", "Attach"]
UNIT_STEPS = ["the size from the drop-down list", "the timer to 10 minutes", "the width of the frame (in cm)",
              "the old filter and clean the seal", "\"Save\" and wait for the green light", "the cable to port 2",
              "all items and click Export", "the label on the left side", "the router and wait 2 minutes",
              "both screws (4 mm) and tighten by hand", "the battery cover and insert 2 × AA cells",
              "the date format to DD/MM/YYYY", "the new tab and log in again", "the results by date, newest first"]


def page_with_query(rng, hst):
    """A page URL the visitor came from; its query is what the site's own search or paging wrote."""
    return f"https://{hst}" + pick(rng, [
        "/", "/shop/", "/blog/", "/contact/",
        "/search?q=" + quote_plus(pick(rng, ["o'reilly books", "kids' shoes size 10", "rock 'n' roll", "w", "ls 400",
                                             "caf\u00e9 cr\u00e8me", "what's new", "1/2\" drill"])),
        "/turba/browse.php?show=all&page=" + pick(rng, string.ascii_uppercase),
        "/?keyword=" + pick(rng, ["w", "df", "su", "time", "echo dot"]),
        "/catalogsearch/result/?q=" + quote_plus(pick(rng, ["table & chairs", "sleep mask", "drop shipping"])),
        f"/products?page={rng.randint(2, 30)}&sort=price+asc"])


# --- cookies users reported -----------------------------------------------------------------------------------------

def matomo_cookies(rng):
    sid, h = rng.randint(1, 30), hexid(rng, 4)
    t = ts(rng)
    ref = pick(rng, [["", "", t, pick(rng, ["https://www.google.de/", "https://www.google.be/", "https://duckduckgo.com/",
                                             "https://www.bing.com/", "https://www.ecosia.org/"])],
                     [pick(rng, ["newsletter_2025", "spring-sale", "Soldes d'hiver"]), pick(rng, ["", "banner", "(not set)"]),
                      t, f"https://{site(rng)}/?mtm_campaign=x"]])
    out = [f"_pk_id.{sid}.{h}={hexid(rng, 16)}.{t - rng.randint(0, 9000000)}.", f"_pk_ses.{sid}.{h}={pick(rng, ['1', '*'])}"]
    if rng.random() < 0.7:
        out.append(f"_pk_ref.{sid}.{h}=" + quote(json.dumps(ref, separators=(",", ":")), safe=""))
    return out


def sbjs_cookies(rng, hst, ua):
    def fields(pairs):
        return quote("|||".join(f"{k}={v}" for k, v in pairs), safe="")
    t = ts(rng)
    stamp = lambda x: iso(rng, x)[:19].replace("T", " ")
    src = pick(rng, [("typein", "(direct)", "(none)"), ("organic", "google", "organic"), ("referral", "duckduckgo.com", "referral"),
                     ("utm", "newsletter", "email")])
    attr = fields([("typ", src[0]), ("src", src[1]), ("mdm", src[2]), ("cmp", "(none)"), ("cnt", "(none)"), ("trm", "(none)"),
                   ("id", "(none)"), ("plt", "(none)"), ("fmt", "(none)"), ("tct", "(none)")])
    return [f"sbjs_migrations=1418474375998%3D1",
            f"sbjs_current_add={fields([('fd', stamp(t)), ('ep', f'https://{hst}/'), ('rf', pick(rng, ['(none)', 'https://duckduckgo.com/', 'https://www.google.com/']))])}",
            f"sbjs_first_add={fields([('fd', stamp(t - 86400)), ('ep', f'https://{hst}/shop/'), ('rf', '(none)')])}",
            f"sbjs_current={attr}", f"sbjs_first={attr}",
            f"sbjs_udata={fields([('vst', str(rng.randint(1, 9))), ('uip', '(none)'), ('uag', ua)])}",
            f"sbjs_session={fields([('pgs', str(rng.randint(1, 12))), ('cpg', f'https://{hst}/checkout/')])}"]


def ad_cookies(rng):
    t = ts(rng)
    out = []
    if rng.random() < 0.6:
        id5 = {"created_at": iso(rng, t), "id5_consent": True, "original_uid": "ID5*" + b64url(rng.randbytes(45)),
               "universal_uid": "ID5*" + b64url(rng.randbytes(45)), "signature": "ID5_" + b64url(rng.randbytes(30)),
               "ext": {"linkType": rng.randint(0, 2), "pba": b64url(rng.randbytes(24))}, "cascade_needed": False}
        raw = json.dumps(id5, separators=(",", ":"))
        out.append("pbjs-id5id=" + (quote(raw, safe="") if rng.random() < 0.5 else raw))
        out.append(f"pbjs-id5id_last={quote('Mon, 13 Jan 2025 10:12:45 GMT')}")
    if rng.random() < 0.5:
        out.append(f"_pubcid={uid(rng)}; _sharedid={uid(rng)}")
    if rng.random() < 0.6:
        fc = [None, None, None, ["CQ" + b64url(rng.randbytes(60)) + ".YAAAAAAAAAAA", "1~" + ".".join(str(rng.randint(1, 3000)) for _ in range(6)),
                                 [["7", [t, rng.randint(100000000, 999999999)]], ["2", [t, rng.randint(100000000, 999999999)]]]]]
        out.append("FCCDCF=" + quote(json.dumps(fc, separators=(",", ":")), safe=""))
        out.append("FCNEC=" + quote(json.dumps([["AKsRol" + b64url(rng.randbytes(60))]], separators=(",", ":")), safe=""))
    if rng.random() < 0.7:
        s = lambda: f"ALNI_M{alnum(rng, 30)}"
        out.append(f"__gads=ID={hexid(rng, 16)}:T={t}:RT={t + rng.randint(0, 9999)}:S={s()}")
        out.append(f"__gpi=UID={hexid(rng, 16)}:T={t}:RT={t + rng.randint(0, 9999)}:S={s()}")
        out.append(f"__eoi=ID={hexid(rng, 16)}:T={t}:RT={t + rng.randint(0, 9999)}:S=AA-{alnum(rng, 27)}")
    return out


def adobe_cookies(rng):
    org = alnum(rng, 24, string.ascii_uppercase + string.digits)
    t = ts(rng)
    mid = str(rng.randint(10 ** 37, 10 ** 38 - 1))
    out = [f"AMCV_{org}%40AdobeOrg=-1124106680%7CMCIDTS%7C{rng.randint(19900, 20300)}%7CMCMID%7C{mid}%7CMCAAMLH-{t + 604800}"
           f"%7C6%7CMCAAMB-{t + 604800}%7C{alnum(rng, 52)}%7CMCOPTOUT-{t + 7200}s%7CNONE%7CvVersion%7C5.5.0",
           "s_cc=true", f"s_sq=%5B%5BB%5D%5D", f"mbox=session#{hexid(rng, 32)}#{t + 1800}|PC#{hexid(rng, 32)}.37_0#{t + 63072000}"]
    if rng.random() < 0.5:
        geo = {"country": pick(rng, ["de", "fr", "nl", "us"]), "region": pick(rng, ["he", "by", "idf", "ca"]),
               "city": pick(rng, ["frankfurt", "munich", "paris", "amsterdam"]), "lat": round(rng.uniform(40, 55), 2),
               "long": round(rng.uniform(-5, 15), 2)}
        out.append("at_geo=" + json.dumps(geo, separators=(",", ":")))
    return out


def php_serialize(d):
    parts = []
    for k, v in d.items():
        parts.append(f's:{len(k.encode())}:"{k}";')
        parts.append(f"i:{v};" if isinstance(v, int) else f's:{len(v.encode())}:"{v}";')
    return f"a:{len(d)}:{{{''.join(parts)}}}"


def ci_session_cookie(rng, ua):
    data = php_serialize({"session_id": hexid(rng, 32), "ip_address": f"203.0.113.{rng.randint(1, 254)}",
                          "user_agent": ua[:120], "last_activity": ts(rng), "user_data": ""})
    return "ci_session=" + quote(data + hashlib.md5(data.encode()).hexdigest(), safe="")


def remember_me_cookie(rng, hst):
    escape = lambda s: s.replace("/", "\\/")
    blob = {"series": escape(base64.b64encode(rng.randbytes(rng.randint(60, 100))).decode()),
            "token": escape(base64.b64encode(rng.randbytes(rng.randint(180, 260))).decode())}
    name = pick(rng, [f"rememberme_{hst.split('.')[0]}", "remember_me", "REMEMBERME", "auth_remember"])
    return f"{name}=" + quote(json.dumps(blob, separators=(",", ":")), safe="")


def wordpress_cookies(rng, woo=False):
    user = pick(rng, ["admin", "editor", "shopmanager", pick(rng, LAST).replace("'", "")])
    t = ts(rng) + 172800
    out = [f"wordpress_logged_in_{hexid(rng, 32)}={user}%7C{t}%7C{alnum(rng, 43)}%7C{hexid(rng, 64)}",
           "wordpress_test_cookie=WP%20Cookie%20check",
           f"wp-settings-1=libraryContent%3D{pick(rng, ['upload', 'browse'])}%26editor%3D{pick(rng, ['html', 'tinymce'])}%26mfold%3Do",
           f"wp-settings-time-1={ts(rng)}"]
    if woo:
        out += [f"woocommerce_items_in_cart=1", f"woocommerce_cart_hash={hexid(rng, 32)}",
                f"wp_woocommerce_session_{hexid(rng, 32)}=t_{hexid(rng, 30)}%7C%7C{t}%7C%7C{t - 3600}%7C%7C{hexid(rng, 32)}"]
    return out


def prestashop_cookies(rng):
    redirect = {"token": hexid(rng, 6), "route": pick(rng, ["admin_performance_save", "admin_products_v2_edit", "admin_orders_index"]),
                "method": "POST", "controller": {
                    "class": "PrestaShopBundle\\Controller\\Admin\\" + pick(rng, ["Configure\\AdvancedParameters\\PerformanceController",
                                                                                "Sell\\Catalog\\Product\\ProductController",
                                                                                "Sell\\Order\\OrderController"]),
                    "method": pick(rng, ["processFormAction", "editAction", "indexAction"]),
                    "file": "/var/www/html/src/PrestaShopBundle/Controller/Admin/" + pick(rng, ["Configure/AdvancedParameters/PerformanceController.php",
                                                                                            "Sell/Catalog/Product/ProductController.php"]),
                    "line": rng.randint(40, 900)}, "status_code": 302, "status_text": "Found"}
    out = [f"PrestaShop-{hexid(rng, 32)}=def50200{hexid(rng, rng.randint(300, 600))}",
           f"PHPSESSID={alnum(rng, 26, string.ascii_lowercase + string.digits)}"]
    if rng.random() < 0.6:
        out.append("sf_redirect=" + quote(json.dumps(redirect, separators=(",", ":")), safe=""))
    return out


def phpmyadmin_cookies(rng):
    blob = lambda: base64.b64encode(jsonb({"iv": base64.b64encode(rng.randbytes(16)).decode(), "mac": hexid(rng, 40),
                                          "payload": base64.b64encode(rng.randbytes(32)).decode()})).decode()
    return [f"phpMyAdmin={hexid(rng, 26)}", f"pma_lang={pick(rng, ['en', 'de', 'fr', 'pl', 'pt_BR'])}",
            f"pmaUser-1={quote(blob(), safe='')}", f"pmaAuth-1={quote(blob(), safe='')}",
            f"pma_console_mode={pick(rng, ['collapse', 'show'])}"]


def reported_cookie(rng, hst, ua, families):
    parts = []
    for fam in families:
        parts += {"matomo": lambda: matomo_cookies(rng), "sbjs": lambda: sbjs_cookies(rng, hst, ua),
                  "ads": lambda: ad_cookies(rng), "adobe": lambda: adobe_cookies(rng),
                  "ci": lambda: [ci_session_cookie(rng, ua)], "remember": lambda: [remember_me_cookie(rng, hst)],
                  "wp": lambda: wordpress_cookies(rng), "woo": lambda: wordpress_cookies(rng, woo=True),
                  "presta": lambda: prestashop_cookies(rng), "pma": lambda: phpmyadmin_cookies(rng),
                  "ga": lambda: [ga_cookie(rng)], "consent": lambda: [consent_cookie(rng)],
                  "session": lambda: [session_cookie(rng)]}[fam]()
    return "; ".join(parts)


def page_visit(rng, c):
    """A page view carrying the cookie families of the reports (analytics, ads, consent, old PHP sessions)."""
    b = browser(rng)
    hst = f"www.{site(rng)}"
    fams = rng.sample(["matomo", "sbjs", "ads", "adobe", "ci", "remember", "ga", "consent", "session"], rng.randint(2, 5))
    path = pick(rng, ["/", "/shop/", "/blog/" + "-".join(rng.sample(WORDS, 3)), "/product/" + "-".join(rng.sample(WORDS, 2)),
                      "/ajax/banners.php?zone=" + pick(rng, ["sidebar", "header", "footer"]) + "&page_type=" + pick(rng, ["category", "article"]) + "&lang=tr",
                      "/image?f=favicon.png", "/my-account/", "/cart/"])
    ck = reported_cookie(rng, hst, b[1], fams)
    if path.startswith("/image"):
        c.add("GET", path, subresource(rng, hst, page_with_query(rng, hst), "image", "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8", b, ck))
    else:
        c.add("GET", path, navigation(rng, hst, referer=page_with_query(rng, hst), cookie=ck, site="same-origin", b=b))


def subresource(rng, hst, referer, dest, accept, b, cookie=None):
    fam, ua, hints, _ = b
    h = [("Host", hst), ("Connection", "keep-alive")] + (hints or [])
    h += [("User-Agent", ua), ("Accept", accept), ("Sec-Fetch-Site", "same-origin" if hst in referer else "cross-site"),
          ("Sec-Fetch-Mode", "cors" if dest in ("empty", "font") else "no-cors"), ("Sec-Fetch-Dest", dest),
          ("Referer", referer), ("Accept-Encoding", ENCODING[fam]), ("Accept-Language", pick(rng, text.L["en"]["accept"]))]
    if cookie:
        h.append(("Cookie", cookie))
    return h


# --- Matomo --------------------------------------------------------------------------------------------------------

def matomo_hit(rng, c):
    b = browser(rng)
    s = site(rng)
    page = f"https://www.{s}" + pick(rng, [
        f"/detail/ISBN-{rng.randint(10 ** 12, 10 ** 13 - 1)}/{pick(rng, LAST).replace(chr(39), '').title()}-{pick(rng, FIRSTNAMES)}/"
        f"{'-'.join(w.title() for w in rng.sample(WORDS, 4))}?b=1",
        "/shop/" + "-".join(rng.sample(WORDS, 3)), "/search?q=" + quote_plus(text.search_query(rng, "en")), "/"])
    idsite = rng.randint(1, 40)
    q = [("action_name", text.title(rng, pick(rng, ["en", "de", "fr", "pl"]))), ("idsite", str(idsite)), ("rec", "1"),
         ("r", str(rng.randint(100000, 999999))), ("h", str(rng.randint(0, 23))), ("m", str(rng.randint(0, 59))),
         ("s", str(rng.randint(0, 59))), ("url", page), ("urlref", pick(rng, ["https://www.google.com/", "https://www.bing.com/", ""])),
         ("_id", hexid(rng, 16)), ("_idn", "0"), ("send_image", "0"), ("_refts", str(ts(rng))), ("cookie", "1"),
         ("res", pick(rng, ["1920x1080", "390x844", "2560x1440"])), ("pv_id", alnum(rng, 6)), ("pf_net", str(rng.randint(0, 200))),
         ("pf_srv", str(rng.randint(20, 900)))]
    if b[2]:
        cv = b[1].split("Chrome/")[1].split(" ")[0] if "Chrome/" in b[1] else "131.0.0.0"
        q.append(("uadata", json.dumps({"fullVersionList": [{"brand": "Chromium", "version": cv}, {"brand": "Google Chrome", "version": cv},
                                                            {"brand": "Not_A Brand", "version": "24.0.0.0"}],
                                        "mobile": b[3].endswith("android"), "model": "", "platform": "Windows",
                                        "platformVersion": "15.0.0"}, separators=(",", ":"))))
    kind = rng.randrange(4)
    if kind == 1:
        q += [("e_c", pick(rng, ["Video", "Downloads", "Outbound"])), ("e_a", pick(rng, ["Play", "Click", "Pause"])),
              ("e_n", pick(rng, ["Intro (2 min)", "price-list.pdf", "https://partner.example.org/?ref=shop"]))]
    elif kind == 2:
        q += [("search", text.search_query(rng, "en")), ("search_cat", pick(rng, ["", "Books", "Shoes"])), ("search_count", str(rng.randint(0, 80)))]
    elif kind == 3:
        items = [[alnum(rng, 8).upper(), text.product(rng, "en"), [pick(rng, ["Books", "Home"])], round(rng.uniform(3, 300), 2), rng.randint(1, 3)]
                 for _ in range(rng.randint(1, 3))]
        q += [("idgoal", "0"), ("ec_id", str(rng.randint(1000, 99999))), ("revenue", f"{rng.uniform(10, 600):.2f}"),
              ("ec_items", json.dumps(items, ensure_ascii=False, separators=(",", ":")))]
    endpoint = pick(rng, ["/matomo.php", "/piwik.php", "/piwik/piwik.php", "/js/"])
    hst = pick(rng, [f"stats.{s}", f"www.{s}", f"analytics.{s}"])
    if rng.random() < 0.3:
        c.add("POST", endpoint, fetch(rng, hst, page, content_type="application/x-www-form-urlencoded; charset=UTF-8",
                                      accept="*/*", b=b, mode="no-cors"), qs(q))
    else:
        c.add("GET", endpoint + "?" + qs(q), subresource(rng, hst, page, "image", "image/avif,image/webp,*/*", b))


# --- WordPress, WooCommerce and builders -----------------------------------------------------------------------------

def attribution(rng, hst, ua):
    src = pick(rng, [("typein", "(direct)", "(none)"), ("organic", "google", "organic"), ("referral", "duckduckgo.com", "referral")])
    t = ts(rng)
    fields = [("wc_order_attribution_source_type", src[0]),
              ("wc_order_attribution_referrer", "(none)" if src[0] == "typein" else f"https://{src[1]}/"),
              ("wc_order_attribution_utm_campaign", "(none)"), ("wc_order_attribution_utm_source", src[1]),
              ("wc_order_attribution_utm_medium", src[2]), ("wc_order_attribution_utm_content", "(none)"),
              ("wc_order_attribution_utm_id", "(none)"), ("wc_order_attribution_utm_term", "(none)"),
              ("wc_order_attribution_utm_source_platform", "(none)"), ("wc_order_attribution_utm_creative_format", "(none)"),
              ("wc_order_attribution_utm_marketing_tactic", "(none)"),
              ("wc_order_attribution_session_entry", f"https://{hst}/" + pick(rng, ["", "shop/", "product/" + "-".join(rng.sample(WORDS, 2)) + "/"])),
              ("wc_order_attribution_session_start_time", iso(rng, t)[:19].replace("T", " ")),
              ("wc_order_attribution_session_pages", str(rng.randint(1, 20))),
              ("wc_order_attribution_session_count", str(rng.randint(1, 6))), ("wc_order_attribution_user_agent", ua)]
    return fields


def woo_checkout(rng, c):
    b = browser(rng)
    lang = pick(rng, ["en", "de", "pl", "fr", "he", "es"])
    hst = f"www.{site(rng)}"
    first, last = pick(rng, FIRSTNAMES), pick(rng, PARTICLE_SURNAMES)
    billing = [("billing_first_name", first), ("billing_last_name", last), ("billing_company", pick(rng, ["", f"{pick(rng, ORGS)[0]}"])),
               ("billing_country", pick(rng, ["DE", "PL", "FR", "IL", "ES", "GB"])), ("billing_address_1", text.address(rng, lang)),
               ("billing_address_2", pick(rng, ["", "Apt. 4", "2. OG links", "c/o " + text.name(rng, lang)])),
               ("billing_postcode", str(rng.randint(10000, 99999))), ("billing_city", text.city(rng, lang)),
               ("billing_phone", f"+{rng.randint(30, 49)} {rng.randint(100, 999)} {rng.randint(1000000, 9999999)}"),
               ("billing_email", email(rng))]
    extra = [("order_comments", pick(rng, ["", text.prose(rng, lang, 1)])), ("payment_method", pick(rng, ["stripe", "paypal", "bacs", "cod"])),
             ("terms", "on"), ("terms-field", "1"), ("woocommerce-process-checkout-nonce", hexid(rng, 10)),
             ("_wp_http_referer", "/?wc-ajax=update_order_review")]
    attr = attribution(rng, hst, b[1])
    ck = reported_cookie(rng, hst, b[1], ["woo", "sbjs"] + (["ga"] if rng.random() < 0.6 else []))
    if rng.random() < 0.5:
        body = form(billing + [("shipping_method[0]", "flat_rate:1")] + extra + attr)
        path = "/?wc-ajax=checkout"
    else:
        body = form([("security", hexid(rng, 10)), ("payment_method", "stripe"), ("country", billing[3][1]), ("state", ""),
                     ("postcode", billing[6][1]), ("city", billing[7][1]), ("address", billing[4][1]), ("address_2", ""),
                     ("has_full_address", "true"), ("post_data", form(billing + extra + attr))])
        path = "/?wc-ajax=update_order_review"
    c.add("POST", path, fetch(rng, hst, f"https://{hst}/checkout/", content_type="application/x-www-form-urlencoded; charset=UTF-8",
                              accept="application/json, text/javascript, */*; q=0.01", cookie=ck, b=b,
                              extra=[("X-Requested-With", "XMLHttpRequest")]), body)


def html_list(rng, lang="en"):
    items = [f"({rng.randint(1, 12)}) {pick(rng, ['12 V relays on DIN sockets', 'M4 stainless screws', 'spare fuses (5 A)', 'USB-C cables, 1 m', 'replacement filters', 'wall plugs'])}"
             for _ in range(rng.randint(2, 5))]
    return (f"<p>{text.sentence(rng, lang)}</p>\n<ul>\n" + "\n".join(f"<li>{i}</li>" for i in items) + "\n</ul>\n"
            f"<p><strong>{pick(rng, ['Included', 'Lieferumfang', 'W zestawie'])}:</strong> {text.product(rng, lang)}</p>")


def wp_admin(rng, c):
    b = browser(rng)
    hst = f"www.{site(rng)}"
    ck = reported_cookie(rng, hst, b[1], ["wp"])
    post = rng.randint(12, 9999)
    edit = f"https://{hst}/wp-admin/post.php?post={post}&action=edit"
    kind = rng.randrange(8)
    ajax = lambda fields: c.add("POST", "/wp-admin/admin-ajax.php", fetch(
        rng, hst, edit, content_type="application/x-www-form-urlencoded; charset=UTF-8", accept="*/*", cookie=ck, b=b,
        extra=[("X-Requested-With", "XMLHttpRequest")]), form(fields))
    if kind == 0:  # WooCommerce product edit through the classic editor
        lang = pick(rng, ["en", "pl", "de"])
        c.add("POST", "/wp-admin/post.php", form_post(rng, hst, edit, "application/x-www-form-urlencoded", cookie=ck, b=b), form([
            ("_wpnonce", hexid(rng, 10)), ("_wp_http_referer", f"/wp-admin/post.php?post={post}&action=edit"), ("user_ID", "1"),
            ("action", "editpost"), ("originalaction", "editpost"), ("post_author", "1"), ("post_type", "product"),
            ("original_post_status", "publish"), ("post_ID", str(post)), ("post_title", text.product(rng, lang)),
            ("content", html_list(rng, lang)), ("excerpt", text.prose(rng, lang, 2)), ("product-type", "simple"),
            ("_regular_price", f"{rng.randint(5, 900)}.{rng.choice(['00', '99', '50'])}"), ("_sku", alnum(rng, 8).upper()),
            ("attribute_names[0]", "pa_color"), ("attribute_values[0][]", str(rng.randint(10, 40))),
            ("save", "Update")]))
    elif kind == 1:  # heartbeat autosave with the excerpt
        lang = pick(rng, ["pl", "en", "tr"])
        ajax([("data[wp_autosave][post_id]", str(post)), ("data[wp_autosave][post_type]", "product"),
              ("data[wp_autosave][post_title]", text.product(rng, lang)), ("data[wp_autosave][content]", html_list(rng, lang)),
              ("data[wp_autosave][excerpt]", text.prose(rng, lang, 3)), ("data[wp-refresh-post-lock][post_id]", str(post)),
              ("interval", "60"), ("_nonce", hexid(rng, 10)), ("action", "heartbeat"), ("screen_id", "product"), ("has_focus", "true")])
    elif kind == 2:  # Divi visual builder save
        modules = [{"type": "et_pb_section", "attrs": {"next_background_color": "#FFFFFF", "disabled_on": pick(rng, ["on|on|off", "off|off|on"]),
                                                       "admin_label": pick(rng, ["Hero", "Features", "Footer CTA"]),
                                                       "_builder_version": "4.27.4", "background_color": "#1e2a3b"},
                    "content": [{"type": "et_pb_row", "attrs": {"_builder_version": "4.27.4", "column_structure": "1_2,1_2"},
                                 "content": [{"type": "et_pb_column", "attrs": {"type": "1_2"}, "content": [
                                     {"type": "et_pb_text", "attrs": {"text_font": "Open Sans||||||||", "text_font_size": "18px"},
                                      "content": f"<h2>{text.title(rng, 'en')}</h2><p>{text.sentence(rng, 'en')}</p>"},
                                     {"type": "et_pb_button", "attrs": {"button_text": pick(rng, ["Shop now", "Read more"]),
                                                                        "button_url": "/shop/", "url_new_window": "off"}}]}]}]}]
        ajax([("action", "et_fb_ajax_save"), ("et_fb_save_nonce", hexid(rng, 10)), ("post_id", str(post)),
              ("modules", json.dumps(modules, ensure_ascii=False)), ("layout_type", ""), ("options[status]", "publish")])
    elif kind == 3:  # Elementor
        widgets = [{"id": hexid(rng, 7), "elType": "widget", "widgetType": w, "settings": s, "elements": []} for w, s in [
            ("heading", {"title": text.title(rng, "en"), "header_size": "h2", "typography_typography": "custom",
                         "typography_font_family": pick(rng, ["Roboto", "Poppins", "Lato"])}),
            ("text-editor", {"editor": f"<p>{text.prose(rng, 'en', 2)}</p>"}),
            ("button", {"text": "Click here", "link": {"url": "/contact/", "is_external": "", "nofollow": ""}})]]
        actions = {f"save_builder_{rng.randint(100, 999)}": {"action": "save_builder", "data": {
            "status": pick(rng, ["publish", "draft", "autosave"]),
            "elements": [{"id": hexid(rng, 7), "elType": "section", "settings": {"layout": "boxed", "gap": "default"},
                          "elements": [{"id": hexid(rng, 7), "elType": "column", "settings": {"_column_size": 100}, "elements": widgets}]}],
            "settings": {"post_title": text.title(rng, "en"), "post_status": "publish"}}}}
        ajax([("action", "elementor_ajax"), ("_nonce", hexid(rng, 10)), ("editor_post_id", str(post)),
              ("initial_document_id", str(post)), ("actions", json.dumps(actions, ensure_ascii=False))])
    elif kind == 4:  # WPBakery / gallery / form shortcodes in post content
        content = pick(rng, [
            f'[vc_row][vc_column][vc_column_text]<p>{text.sentence(rng, "en")}</p>[/vc_column_text][vc_separator]'
            f'[td_block_big_grid_{rng.randint(1, 9)} td_grid_style="td-grid-style-{rng.randint(1, 9)}"][/vc_column][/vc_row][vc_row][vc_column][/vc_column][/vc_row]',
            f'<p>{text.sentence(rng, "en")}</p>\n[Best_Wordpress_Gallery id="{rng.randint(1, 9)}" gal_title="{pick(rng, ["Selected works 2024", "Summer 2024", "Order of service", "Open day"])}"]',
            f'<div class="frm_error_style">[if error]{pick(rng, ["Please fix the errors below.", "Something went wrong"])}[/if error]</div>\n[frm-field-value field_id={rng.randint(1, 99)}]',
            f'[contact-form-7 id="{hexid(rng, 7)}" title="Contact form 1"]\n<p>{text.sentence(rng, "en")}</p>'])
        c.add("POST", "/wp-admin/post.php", form_post(rng, hst, edit, "application/x-www-form-urlencoded", cookie=ck, b=b), form([
            ("_wpnonce", hexid(rng, 10)), ("action", "editpost"), ("post_ID", str(post)), ("post_title", text.title(rng, "en")),
            ("content", content), ("post_status", "publish"), ("save", "Update")]))
    elif kind == 5:  # SiteOrigin page builder
        html = (f'<h2 style="text-align: center;"><span style="font-family: helvetica, arial, sans-serif;">"{text.sentence(rng, "en")}"'
                f' - {text.name(rng, "en")}</span></h2>\n<p style="text-align: center;"><span style="font-family: helvetica, arial, '
                f'sans-serif; font-size: 14pt;">{text.sentence(rng, "en")}</span></p>')
        panels = {"widgets": [{"title": "", "text": html, "filter": "1", "visual_editor": True,
                               "panels_info": {"class": "SiteOrigin_Widget_Editor_Widget", "grid": 0, "cell": 0, "id": 0,
                                               "widget_id": uid(rng), "style": {"background_display": "tile"}}}],
                  "grids": [{"cells": 1, "style": {}}], "grid_cells": [{"grid": 0, "index": 0, "weight": 1, "style": {}}]}
        ajax([("action", "so_panels_builder_content_json"), ("panels_data", json.dumps(panels)), ("post_id", str(post)),
              ("_panelsnonce", hexid(rng, 10))])
    elif kind == 6:  # Yoast prominent words
        words = {w: rng.randint(1, 9) for w in rng.sample(WORDS + ["select", "union", "table", "drop", "order"], rng.randint(5, 15))}
        c.add("POST", f"/wp-json/yoast/v1/prominent_words/complete?_locale=user", fetch(
            rng, hst, edit, content_type="application/json", cookie=ck, b=b, extra=[("X-WP-Nonce", hexid(rng, 10))]),
            jsonb({"object_id": post, "object_type": "post", "object_sub_type": "post", "prominent_words": words}))
    else:  # Jetpack's signed XML-RPC call from WordPress.com
        tsv = ts(rng)
        nonce, bh, sig = alnum(rng, 10), base64.b64encode(rng.randbytes(20)).decode(), base64.b64encode(rng.randbytes(20)).decode()
        token = f"{alnum(rng, 32)}:1:{rng.randint(1, 9)}"
        q = qs([("for", "jetpack"), ("jetpack", "comms"), ("token", token), ("timestamp", str(tsv)), ("nonce", nonce),
                ("body-hash", bh), ("signature", sig)])
        method = pick(rng, ["jetpack.testConnection", "jetpack.syncObject", "jetpack.featuresAvailable"])
        body = f'<?xml version="1.0"?>\n<methodCall>\n<methodName>{method}</methodName>\n<params>\n</params></methodCall>'
        c.add("POST", f"/?{q}", [("Host", hst), ("User-Agent", "Jetpack by WordPress.com"), ("Accept", "*/*"),
                                 ("Accept-Encoding", "deflate, gzip"), ("Referer", f"https://{hst}/?{q}"),
                                 ("Authorization", f'X_JETPACK token="{token}" timestamp="{tsv}" nonce="{nonce}" body-hash="{bh}" signature="{sig}"'),
                                 ("Connection", "close"), ("Content-Type", "application/x-www-form-urlencoded")], body)


# --- PrestaShop and Drupal -----------------------------------------------------------------------------------------

def prestashop(rng, c):
    b = browser(rng)
    hst = f"shop.{site(rng)}"
    admin = "/admin" + alnum(rng, 16, string.ascii_lowercase + string.digits)
    ck = reported_cookie(rng, hst, b[1], ["presta"])
    token = alnum(rng, 43, string.ascii_letters + string.digits + "-_")
    kind = rng.randrange(3)
    if kind == 0:
        pid = rng.randint(1, 9999)
        fields = [("form[step1][name][1]", text.product(rng, "en")), ("form[step1][name][2]", text.product(rng, "pl"))]
        for lid, lang in ((1, "en"), (2, "pl"), (6, pick(rng, ["de", "fr"]))):
            fields.append((f"form[step1][description][{lid}]",
                           f'<div class="product-desc">\r\n<div class="product-desc__row">\r\n<div class="product-desc__col product-desc__col--full">\r\n'
                           f"<h2>{text.product(rng, lang)} ({rng.randint(2, 48)} szt.)</h2>\r\n<p>{text.prose(rng, lang, 2)}</p>\r\n</div>\r\n</div>\r\n</div>"))
            fields.append((f"form[step1][description_short][{lid}]", f"<p>{text.sentence(rng, lang)}</p>"))
        fields += [("form[step2][price]", f"{rng.randint(5, 500)}.000000"), ("form[step1][id_product]", str(pid)),
                   ("form[_token]", token)]
        c.add("POST", f"{admin}/index.php/sell/catalog/products/{pid}?_token={token}",
              fetch(rng, hst, f"https://{hst}{admin}/index.php/sell/catalog/products/{pid}?_token={token}",
                    content_type="application/x-www-form-urlencoded; charset=UTF-8", cookie=ck, b=b,
                    extra=[("X-Requested-With", "XMLHttpRequest")]), form(fields))
    elif kind == 1:
        c.add("POST", f"{admin}/index.php/common/notifications?_token={token}",
              fetch(rng, hst, f"https://{hst}{admin}/index.php?controller=AdminStats&token={hexid(rng, 32)}",
                    content_type="application/x-www-form-urlencoded; charset=UTF-8", accept="application/json, text/javascript, */*; q=0.01",
                    cookie=ck, b=b, extra=[("X-Requested-With", "XMLHttpRequest")]),
              form([("rand", str(ts(rng) * 1000 + rng.randint(0, 999)))]))
    else:
        code = alnum(rng, rng.randint(300, 900), string.ascii_lowercase + string.digits)
        c.add("GET", f"{admin}/index.php?controller=Admin{pick(rng, ['Furgonetka', 'Inpost', 'Dpd'])}WelcomeScreen&token={hexid(rng, 32)}"
                     f"&responseAuth=1&code={code}",
              navigation(rng, hst, referer="https://" + pick(rng, ["furgonetka.pl", "manager.example.net"]) + "/", cookie=ck, site="cross-site", b=b))


def drupal(rng, c):
    b = browser(rng)
    hst = f"www.{site(rng)}"
    ck = f"SSESS{hexid(rng, 32)}={alnum(rng, 48, string.ascii_letters + string.digits + '-_')}" + (f"; {ga_cookie(rng)}" if rng.random() < 0.5 else "")
    fbid = "form-" + b64url(rng.randbytes(32))
    lang = pick(rng, ["en", "de", "fr"])
    if rng.random() < 0.6:
        nid = rng.randint(1, 5000)
        body = form([("changed", str(ts(rng))), ("title[0][value]", text.title(rng, lang)),
                     ("body[0][summary]", ""), ("body[0][value]", f"<p>{text.prose(rng, lang, 2)}</p>\r\n{html_list(rng, lang)}"),
                     ("body[0][format]", pick(rng, ["basic_html", "full_html"])), ("field_tags[target_id]", ", ".join(rng.sample(WORDS, 3))),
                     ("form_build_id", fbid), ("form_token", b64url(rng.randbytes(32))), ("form_id", "node_article_edit_form"),
                     ("path[0][alias]", "/news/" + "-".join(rng.sample(WORDS, 3))), ("status[value]", "1"), ("op", "Save")])
        c.add("POST", f"/node/{nid}/edit?destination=/admin/content",
              form_post(rng, hst, f"https://{hst}/node/{nid}/edit?destination=/admin/content", "application/x-www-form-urlencoded", cookie=ck, b=b), body)
    else:
        body = form([("name", f"{pick(rng, FIRSTNAMES)} {pick(rng, PARTICLE_SURNAMES)}"), ("email", email(rng)),
                     ("subject", text.title(rng, lang)), ("message", text.prose(rng, lang)), ("form_build_id", fbid),
                     ("form_id", "webform_submission_contact_add_form"), ("op", "Send message")])
        c.add("POST", "/contact", form_post(rng, hst, f"https://{hst}/contact", "application/x-www-form-urlencoded", cookie=ck, b=b), body)


# --- Moodle ----------------------------------------------------------------------------------------------------------

def moodle(rng, c):
    b = browser(rng)
    hst = f"moodle.{site(rng)}"
    sesskey = alnum(rng, 10)
    ck = f"MoodleSession={alnum(rng, 26, string.ascii_lowercase + string.digits)}; MOODLEID1_={quote('%' + hexid(rng, 24).upper())}"
    lang = pick(rng, ["en", "pl", "de", "es", "fr"])
    kind = rng.randrange(5)
    if kind == 0:
        templates = rng.sample(["loading", "modal", "modal_backdrop", "pix_icon_fontawesome", "notification_info", "action_menu"], rng.randint(2, 5))
        args = [{"index": i, "methodname": "core_output_load_template_with_dependencies",
                 "args": {"component": "core", "template": t, "themename": "boost", "lang": lang}} for i, t in enumerate(templates)]
        q = qs([("info", ",".join(["core_output_load_template_with_dependencies"] * len(args))), ("cachekey", str(ts(rng))),
                ("args", json.dumps(args, separators=(",", ":")))])
        c.add("GET", f"/lib/ajax/service-nologin.php?{q}", fetch(rng, hst, f"https://{hst}/course/view.php?id={rng.randint(2, 900)}", cookie=ck, b=b,
                                                                   extra=[("X-Requested-With", "XMLHttpRequest")]))
    elif kind == 1:
        call = pick(rng, [("core_fetch_notifications", {"contextid": rng.randint(1, 900)}),
                          ("core_course_get_enrolled_courses_by_timeline_classification",
                           {"offset": 0, "limit": 0, "classification": "all", "sort": "fullname", "customfieldname": "", "customfieldvalue": ""}),
                          ("core_calendar_get_action_events_by_timesort", {"limitnum": 6, "timesortfrom": ts(rng), "limittononsuspendedevents": True}),
                          ("core_session_touch", {})])
        c.add("POST", f"/lib/ajax/service.php?sesskey={sesskey}&info={call[0]}",
              fetch(rng, hst, f"https://{hst}/my/", content_type="application/json", cookie=ck, b=b, extra=[("X-Requested-With", "XMLHttpRequest")]),
              jsonb([{"index": 0, "methodname": call[0], "args": call[1]}]))
    elif kind == 2:
        c.add("POST", "/lib/editor/atto/autosave-ajax.php", fetch(
            rng, hst, f"https://{hst}/course/edit.php?id={rng.randint(2, 900)}", content_type="application/x-www-form-urlencoded; charset=UTF-8",
            cookie=ck, b=b, extra=[("X-Requested-With", "XMLHttpRequest")]), form([
                ("sesskey", sesskey), ("actions[0][contextid]", str(rng.randint(10, 9000))), ("actions[0][action]", "save"),
                ("actions[0][draftid]", str(rng.randint(10 ** 8, 10 ** 9))), ("actions[0][elementid]", "id_summary_editor"),
                ("actions[0][pageinstance]", f"yui_3_17_2_1_{ts(rng)}{rng.randint(100, 999)}_{rng.randint(10, 99)}"),
                ("actions[0][pagehash]", hexid(rng, 40)), ("actions[0][drafttext]", f"<p>{text.prose(rng, lang, 2)}</p>{html_list(rng, lang)}")]))
    elif kind == 3:
        cid = rng.randint(2, 900)
        c.add("POST", "/course/edit.php", form_post(rng, hst, f"https://{hst}/course/edit.php?id={cid}", "application/x-www-form-urlencoded", cookie=ck, b=b), form([
            ("returnto", "0"), ("id", str(cid)), ("sesskey", sesskey), ("_qf__course_edit_form", "1"),
            ("mform_isexpanded_id_descriptionhdr", "1"), ("fullname", text.title(rng, lang)), ("shortname", alnum(rng, 6).upper()),
            ("category", str(rng.randint(1, 30))), ("visible", "1"), ("summary_editor[text]", f"<p>{text.prose(rng, lang, 3)}</p>"),
            ("summary_editor[format]", "1"), ("summary_editor[itemid]", str(rng.randint(10 ** 8, 10 ** 9))), ("saveanddisplay", "Save and display")]))
    else:
        attempt, slot = rng.randint(100, 99999), rng.randint(1, 20)
        answer = pick(rng, [f"cos(x) = {rng.randint(1, 9)}/{rng.randint(2, 9)}, so x = arccos({rng.randint(1, 9)}/{rng.randint(10, 19)})",
                            f"f(x) = {rng.randint(2, 9)}x^2 + {rng.randint(1, 9)}x; f'(x) = {rng.randint(2, 9)}x + {rng.randint(1, 9)}",
                            f"sqrt({rng.randint(2, 99)}) is about {rng.uniform(1, 10):.2f}", text.prose(rng, lang, 2),
                            f"log({rng.randint(2, 9)}) + log({rng.randint(2, 9)}) = log({rng.randint(4, 81)})"])
        c.add("POST", "/mod/quiz/processattempt.php?cmid=" + str(rng.randint(10, 9999)), form_post(
            rng, hst, f"https://{hst}/mod/quiz/attempt.php?attempt={attempt}&cmid={rng.randint(10, 9999)}", "application/x-www-form-urlencoded", cookie=ck, b=b), form([
                (f"q{attempt}:{slot}_:sequencecheck", "1"), (f"q{attempt}:{slot}_answer", answer), (f"q{attempt}:{slot}_:flagged", "0"),
                ("attempt", str(attempt)), ("thispage", "0"), ("nextpage", "1"), ("timeup", "0"), ("sesskey", sesskey), ("mdlscrollto", ""),
                ("slots", str(slot)), ("next", "Next page")]))


# --- MediaWiki -------------------------------------------------------------------------------------------------------

def wikitext(rng):
    place = pick(rng, PLACES)
    years = sorted(rng.sample(range(1100, 1990), 4))
    lines = [f"{{{{Infobox settlement\n| name = {place}\n| population = {rng.randint(200, 90000):,}\n| founded = {{{{start date|{years[0]}}}}}\n| map = {place}_map.svg\n}}}}",
             f"'''{place}''' is a {pick(rng, ['village', 'small town', 'hamlet'])} in [[{pick(rng, PLACES)}|the district of {pick(rng, PLACES)}]].",
             "== History ==",
             f"Early spellings include {place[:4]}ley ({years[1]}), {place}e ({years[2]}) and {place} Magna ({years[3]}).",
             f"The ruins of the old {pick(rng, ['mill', 'chapel', 'manor', 'well'])} can still be seen{pick(rng, ['', ' west of the church', ' (grid ref. ' + str(rng.randint(100000, 999999)) + ')'])}."
             f"<ref name=\"hist{rng.randint(1, 9)}\">{{{{cite web |url=https://www.example.org/history/{place.lower()} |title=History of {place} |access-date=2024-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}}}}}</ref>",
             "== Walks ==",
             f"At the stile go {pick(rng, ['left', 'right'])} ({pick(rng, ['FP 7', 'BW 3', 'RB'])}), cross two fields ({pick(rng, ['½ mile', '1 mile', '400 m'])}) and join the lane at {pick(rng, PLACES)} Cross ({rng.randint(100000, 999999)}).",
             "{| class=\"wikitable sortable\"\n! Year !! Population !! Notes\n" + "".join(
                 f"|-\n| {y} || {rng.randint(100, 9000):,} || {pick(rng, ['census', 'estimate', 'after the fire (' + str(y) + ')'])}\n" for y in sorted(rng.sample(range(1801, 2021), 3))) + "|}",
             f"{pick(rng, VERBS)} the map layer to see the old boundary.",
             "== References ==\n<references />", f"[[Category:Villages in {pick(rng, PLACES)}]]"]
    return "\n\n".join(lines)


def mediawiki(rng, c):
    b = browser(rng)
    hst = f"wiki.{site(rng)}"
    title = pick(rng, PLACES) + pick(rng, ["", "_(village)", "/Walks", "_History"])
    ck = f"{hst.split('.')[1].replace('-', '_')}_session={alnum(rng, 32, string.ascii_lowercase + string.digits)}; {hst.split('.')[1].replace('-', '_')}UserID={rng.randint(1, 900)}"
    token = hexid(rng, 32) + hexid(rng, 8) + "+\\"
    if rng.random() < 0.6:
        boundary = "----WebKitFormBoundary" + alnum(rng, 16) if b[0] != "firefox" else "----geckoformboundary" + hexid(rng, 32)
        start = f"2025{rng.randint(1, 12):02d}{rng.randint(10, 28)}{rng.randint(100000, 235959)}"
        fields = [("wpUnicodeCheck", "ℳ𝒲♥𝓊𝓃𝒾𝒸ℴ𝒹ℯ"), ("wpAntispam", ""), ("wpSection", ""), ("wpStarttime", start), ("wpEdittime", start),
                  ("editRevId", str(rng.randint(1, 99999))), ("wpScrolltop", "0"), ("wpAutoSummary", hexid(rng, 32)),
                  ("oldid", "0"), ("parentRevId", str(rng.randint(1, 99999))), ("format", "text/x-wiki"), ("model", "wikitext"),
                  ("wpTextbox1", wikitext(rng).replace("\n", "\r\n")), ("wpSummary", pick(rng, ["/* History */ dates", "typo", "added table", ""])),
                  ("wpWatchthis", "1"), ("mode", "text"), ("wpSave", "Save changes"), ("wpUltimateParam", "1"), ("wpEditToken", token)]
        body = "".join(f"--{boundary}\r\nContent-Disposition: form-data; name=\"{k}\"\r\n\r\n{v}\r\n" for k, v in fields) + f"--{boundary}--\r\n"
        c.add("POST", f"/index.php?title={quote(title)}&action=submit",
              form_post(rng, hst, f"https://{hst}/index.php?title={quote(title)}&action=edit", f"multipart/form-data; boundary={boundary}", cookie=ck, b=b), body)
    else:
        c.add("POST", "/api.php", fetch(rng, hst, f"https://{hst}/index.php?title={quote(title)}&veaction=editsource",
                                        content_type="application/x-www-form-urlencoded; charset=UTF-8", cookie=ck, b=b,
                                        extra=[("Api-User-Agent", "VisualEditor-MediaWiki/1.42.3")]), form([
            ("action", "visualeditoredit"), ("paction", "save"), ("page", title.replace("_", " ")), ("oldid", str(rng.randint(1, 99999))),
            ("wikitext", wikitext(rng)), ("summary", pick(rng, ["/* Walks */ directions", "copyedit", ""])), ("basetimestamp", iso(rng)[:19] + "Z"),
            ("starttimestamp", iso(rng)[:19] + "Z"), ("etag", f'W/"{rng.randint(1, 99999)}/{uid(rng)}"'), ("assert", "user"),
            ("errorformat", "html"), ("format", "json"), ("formatversion", "2"), ("token", token)]))


# --- database tools ------------------------------------------------------------------------------------------------

SQL_TABLES = [("orders", ["id", "status", "created_at", "total", "customer_id"]), ("users", ["id", "name", "email", "last_login"]),
              ("products", ["id", "sku", "title", "price", "stock"]), ("wp_posts", ["ID", "post_title", "post_status", "post_date"])]


def sql_text(rng):
    t, cols = pick(rng, SQL_TABLES)
    return pick(rng, [
        f"SELECT * FROM `{t}` WHERE `{cols[1]}` = '{pick(rng, ['pending', 'Bill', 'publish', 'A-100'])}' ORDER BY `{cols[2]}` DESC",
        f"SELECT {', '.join(cols[:3])}\nFROM {t}\nWHERE {cols[0]} > {rng.randint(1, 900)}\nLIMIT {pick(rng, [25, 50, 100])}",
        f"UPDATE `{t}` SET `{cols[1]}` = '{pick(rng, ['shipped', 'draft', 'x'])}' WHERE `{t}`.`{cols[0]}` = {rng.randint(1, 9999)};",
        f"SELECT COUNT(*) AS n, DATE({cols[2]}) AS day FROM {t} GROUP BY day ORDER BY day DESC;"])


def db_tools(rng, c):
    b = browser(rng)
    hst = f"{pick(rng, ['pma', 'db', 'admin'])}.{site(rng)}"
    ck = reported_cookie(rng, hst, b[1], ["pma"])
    token = hexid(rng, 32)
    t, cols = pick(rng, SQL_TABLES)
    kind = rng.randrange(4)
    ref = f"https://{hst}/index.php?route=/table/sql&db=shop&table={t}"
    ajax_h = lambda: fetch(rng, hst, ref, content_type="application/x-www-form-urlencoded; charset=UTF-8",
                           accept="application/json, text/javascript, */*; q=0.01", cookie=ck, b=b, extra=[("X-Requested-With", "XMLHttpRequest")])
    if kind == 0:
        c.add("POST", "/index.php?route=/import", ajax_h(), form([
            ("is_js_confirmed", "0"), ("db", "shop"), ("table", t), ("token", token), ("pos", "0"), ("goto", "index.php?route=/table/sql"),
            ("message_to_show", "Your SQL query has been executed successfully."), ("prev_sql_query", ""), ("sql_query", sql_text(rng)),
            ("sql_delimiter", ";"), ("show_query", "1"), ("fk_checks", "0"), ("ajax_request", "true"), ("ajax_page_request", "true"),
            ("_nocache", str(ts(rng) * 1000 + rng.randint(0, 999))), ("server", "1")]))
    elif kind == 1:
        key = hexid(rng, 32)
        c.add("POST", "/index.php?route=/table/replace", ajax_h(), form([
            ("db", "shop"), ("table", t), ("token", token), ("where_clause[0]", f"`{t}`.`{cols[0]}` = {rng.randint(1, 9999)}"),
            (f"fields_name[multi_edit][0][{key}]", cols[1]), (f"fields_prev[multi_edit][0][{key}]", pick(rng, ["pending", "draft"])),
            (f"fields[multi_edit][0][{key}]", pick(rng, ["shipped", "publish", text.sentence(rng, "en")])), ("submit_type", "save"),
            ("after_insert", "back"), ("sql_query", f"SELECT * FROM `{t}`"), ("ajax_request", "true"), ("server", "1")]))
    elif kind == 2:
        c.add("GET", f"/index.php?route=/sql&db=shop&table={t}&pos=0&server=1&ajax_request=true&ajax_page_request=true&_nocache={ts(rng)}{rng.randint(100, 999)}&token={token}",
              fetch(rng, hst, ref, accept="text/html, */*; q=0.01", cookie=ck, b=b, extra=[("X-Requested-With", "XMLHttpRequest")]))
    else:
        c.add("POST", f"/adminer.php?server=localhost&username=root&db=shop&sql=",
              form_post(rng, hst, f"https://{hst}/adminer.php?server=localhost&username=root&db=shop&sql=", "application/x-www-form-urlencoded",
                        cookie=f"adminer_sid={hexid(rng, 26)}; adminer_key={hexid(rng, 32)}; adminer_version=5.0.5", b=b),
              form([("query", sql_text(rng)), ("limit", ""), ("token", f"{rng.randint(100000, 999999)}:{rng.randint(100000, 999999)}")]))


# --- Grafana -------------------------------------------------------------------------------------------------------

def promql(rng):
    m = pick(rng, ["http_requests_total", "node_cpu_seconds_total", "container_memory_working_set_bytes", "nginx_http_requests_total"])
    return pick(rng, [
        f'sum(rate({m}{{job=~"api|web",code!~"5.."}}[5m])) by (instance)',
        f'(node_memory_MemAvailable_bytes{{instance=~"$instance"}} or node_memory_MemFree_bytes{{instance=~"$instance"}}) / node_memory_MemTotal_bytes{{instance=~"$instance"}} * 100',
        f'histogram_quantile(0.95, sum by (le) (rate(http_request_duration_seconds_bucket{{namespace="$namespace"}}[$__rate_interval])))',
        f'topk(5, sum by (pod) ({m}{{namespace="{pick(rng, ["shop", "prod", "monitoring"])}"}}))',
        f'increase({m}[1h]) > 0'])


def grafana(rng, c):
    b = browser(rng)
    hst = f"grafana.{site(rng)}"
    ck = f"grafana_session={hexid(rng, 32)}; grafana_session_expiry={ts(rng)}"
    dash = alnum(rng, 14)
    ref = f"https://{hst}/d/{dash}/{'-'.join(rng.sample(WORDS, 2))}?orgId=1&refresh=10s"
    ds = alnum(rng, 14)
    gh = [("x-grafana-org-id", "1"), ("x-dashboard-uid", dash), ("x-panel-id", str(rng.randint(1, 40))),
          ("x-grafana-device-id", hexid(rng, 32))]
    kind = rng.randrange(5)
    now = ts(rng) * 1000
    if kind == 0:
        panels = [{"id": i + 1, "type": pick(rng, ["timeseries", "stat", "table"]), "title": text.title(rng, "en")[:40],
                   "datasource": {"type": "prometheus", "uid": ds}, "gridPos": {"h": 8, "w": 12, "x": 12 * (i % 2), "y": 8 * (i // 2)},
                   "targets": [{"expr": promql(rng), "legendFormat": "{{instance}}", "refId": "A"}]} for i in range(rng.randint(1, 4))]
        dashboard = {"annotations": {"list": [{"builtIn": 1, "datasource": {"type": "grafana", "uid": "-- Grafana --"}, "enable": True,
                                               "hide": True, "iconColor": "rgba(0, 211, 255, 1)", "name": "Annotations & Alerts", "type": "dashboard"}]},
                     "editable": True, "panels": panels, "schemaVersion": 39, "title": text.title(rng, "en")[:50], "uid": dash, "version": rng.randint(1, 90),
                     "templating": {"list": [{"name": "instance", "type": "query", "query": 'label_values(node_uname_info{job="node"}, instance)',
                                              "datasource": {"type": "prometheus", "uid": ds}}]},
                     "time": {"from": "now-6h", "to": "now"}}
        c.add("POST", "/api/dashboards/db/", fetch(rng, hst, ref, content_type="application/json", cookie=ck, b=b, extra=gh[:1]),
              jsonb({"dashboard": dashboard, "folderUid": alnum(rng, 14), "message": pick(rng, ["", "added p95 panel", "fix query"]), "overwrite": False}))
    elif kind == 1:
        source = rng.random()
        if source < 0.4:
            q = {"refId": "A", "expr": promql(rng), "range": True, "instant": False, "datasource": {"type": "prometheus", "uid": ds},
                 "editorMode": "code", "legendFormat": "__auto", "intervalMs": 15000, "maxDataPoints": 1200}
        elif source < 0.6:
            q = {"refId": "A", "rawSql": pick(rng, ["SELECT status, count(*) FROM jobs WHERE queue = 'mail' GROUP BY status",
                                                   "SELECT created_at AS time, total FROM orders WHERE total > 100 ORDER BY created_at",
                                                   "SELECT table_schema AS `db`, SUM(data_length) AS size FROM information_schema.tables GROUP BY table_schema"]),
                 "format": pick(rng, ["table", "time_series"]), "rawQuery": True, "editorMode": "code",
                 "datasource": {"type": pick(rng, ["mysql", "grafana-postgresql-datasource"]), "uid": ds}}
        else:
            q = {"refId": "A", "expr": pick(rng, ['{app="nginx"} |= "timeout" | json | status >= 500',
                                                  'sum by (level) (count_over_time({namespace="shop"} | logfmt [5m]))',
                                                  '{job="varlogs"} != "healthcheck" | pattern "<ip> - - <_> \\"<method> <path> <_>\\" <status>"']),
                 "queryType": "range", "datasource": {"type": "loki", "uid": ds}, "maxLines": 1000}
        c.add("POST", f"/api/ds/query?ds_type={q['datasource']['type']}&requestId=SQR{rng.randint(100, 999)}",
              fetch(rng, hst, ref, content_type="application/json", cookie=ck, b=b, extra=gh + [("x-datasource-uid", ds), ("x-plugin-id", q["datasource"]["type"])]),
              jsonb({"queries": [q], "from": str(now - 21600000), "to": str(now)}))
    elif kind == 2:
        sel = pick(rng, ['kube_node_info{cluster=""}', 'up{job="node"}', 'kube_pod_info{namespace=~"shop|api"}'])
        c.add("GET", f"/api/datasources/uid/{ds}/resources/api/v1/label/{pick(rng, ['node', 'instance', 'pod'])}/values?" +
              qs([("match[]", sel), ("start", str(now // 1000 - 3600)), ("end", str(now // 1000))]),
              fetch(rng, hst, ref, cookie=ck, b=b, extra=gh[:1]))
    elif kind == 3:
        idx = {"search_type": "query_then_fetch", "ignore_unavailable": True, "index": pick(rng, ["logs-*", "filebeat-*", "nginx-2025.01.*"])}
        query = {"size": 500, "query": {"bool": {"filter": [{"range": {"@timestamp": {"gte": now - 3600000, "lte": now, "format": "epoch_millis"}}},
                                                             {"query_string": {"analyze_wildcard": True, "query": pick(rng, [
                                                                 'level:error AND service:"checkout"', 'message:"connection reset" OR status:[500 TO 599]',
                                                                 'NOT host.name:web-0* AND url.path:/api/*'])}}]}},
                 "sort": [{"@timestamp": {"order": "desc", "unmapped_type": "boolean"}}, {"_doc": {"order": "desc"}}]}
        c.add("POST", f"/api/datasources/proxy/uid/{ds}/_msearch?max_concurrent_shard_requests=5",
              fetch(rng, hst, ref, content_type="application/x-ndjson", cookie=ck, b=b, extra=gh),
              json.dumps(idx) + "\n" + json.dumps(query) + "\n")
    else:
        c.add("GET", f"/api/datasources/proxy/uid/{ds}/api/v1/query_range?" + qs([("query", promql(rng)), ("start", str(now // 1000 - 3600)),
                                                                                     ("end", str(now // 1000)), ("step", "15")]),
              fetch(rng, hst, ref, cookie=ck, b=b, extra=gh))


# --- Nextcloud and DAV ---------------------------------------------------------------------------------------------

FILES = [("application/pdf", ".pdf", b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n"),
         ("image/jpeg", ".jpeg", b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00H\x00H\x00\x00"),
         ("image/png", ".png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"),
         ("application/vnd.openxmlformats-officedocument.wordprocessingml.document", ".docx", b"PK\x03\x04\x14\x00\x06\x00"),
         ("application/x-msdownload", ".exe", b"MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff"),
         ("application/zip", ".zip", b"PK\x03\x04\x14\x00\x00\x00\x08\x00"),
         ("video/mp4", ".mp4", b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00"),
         ("text/markdown", ".md", b"# Notes\n\n- ")]


def nextcloud_client(rng):
    return pick(rng, [
        [("User-Agent", f"Mozilla/5.0 (Windows) mirall/3.{rng.randint(10, 15)}.{rng.randint(0, 3)}stable-Win64 (build 2024{rng.randint(1000, 1231)}) "
                        f"(Nextcloud, windows-10.0.2{rng.randint(2000, 6100)} ClientArchitecture: x86_64 OsArchitecture: x86_64)"), ("Accept", "*/*")],
        [("User-Agent", f"Mozilla/5.0 (Android) Nextcloud-android/3.{rng.randint(28, 31)}.{rng.randint(0, 3)}"), ("Accept-Encoding", "gzip")],
        [("User-Agent", f"Mozilla/5.0 (iOS) Nextcloud-iOS/6.{rng.randint(0, 3)}.{rng.randint(0, 9)}"), ("Accept", "*/*"), ("Accept-Language", "en-GB,en;q=0.9")],
        [("User-Agent", f"Mozilla/5.0 (Macintosh) mirall/3.{rng.randint(10, 15)}.{rng.randint(0, 3)} (Nextcloud, osx-24.{rng.randint(0, 3)}.0 ClientArchitecture: arm64 OsArchitecture: arm64)"),
         ("Accept", "*/*")]])


def nextcloud(rng, c):
    hst = f"cloud.{site(rng)}"
    user = pick(rng, ["anna", "jan", "admin", uid(rng).upper()])
    auth = "Basic " + base64.b64encode(f"{user}:{alnum(rng, 29)}".encode()).decode()
    kind = rng.randrange(7)
    fname = pick(rng, ["IMG_" + str(rng.randint(1000, 9999)), "Versandetikett", "Scan " + iso(rng)[:10], "Rechnung " + str(rng.randint(1000, 9999)),
                       "setup", "Präsentation Q" + str(rng.randint(1, 4)), "photo (" + str(rng.randint(1, 5)) + ")"])
    folder = pick(rng, ["", "Vorlagen/", "Photos/2025/", "Documents/Invoices/", "Shared/Team/", "InstantUpload/Camera/"])
    ctype, ext, head = pick(rng, FILES)
    data = head + rng.randbytes(rng.randint(600, 6000))
    if kind == 0:  # desktop / mobile sync client upload
        client = nextcloud_client(rng)
        # The desktop client (mirall) sends no Content-Type on a PUT; the Android and iOS apps send the file's type.
        label = [] if "mirall" in client[0][1] else [("Content-Type", ctype)]
        h = [("Host", hst)] + client + [("Authorization", auth)] + label + [
            ("OC-Checksum", "SHA1:" + hashlib.sha1(data).hexdigest()), ("X-OC-Mtime", str(ts(rng))),
            ("OC-Total-Length", str(len(data))), ("X-Request-ID", uid(rng))]
        c.add("PUT", f"/remote.php/dav/files/{user}/{quote(folder + fname + ext)}", h, data)
    elif kind == 1:  # browser upload (files app)
        b = browser(rng)
        c.add("PUT", f"/remote.php/dav/files/{user}/{quote(folder + fname + ext)}",
              fetch(rng, hst, f"https://{hst}/apps/files/files?dir=/{quote(folder)}", content_type=ctype, accept="*/*",
                    cookie=f"oc_sessionPassphrase={quote(base64.b64encode(rng.randbytes(96)).decode(), safe='')}; nc_session_id={alnum(rng, 26)}; {'oc' + alnum(rng, 10).lower()}={alnum(rng, 26)}",
                    b=b, extra=[("requesttoken", b64url(rng.randbytes(32)) + ":" + b64url(rng.randbytes(32))), ("X-Requested-With", "XMLHttpRequest"),
                                ("X-OC-Mtime", str(ts(rng)))]), data)
    elif kind == 2:  # public share upload
        b = browser(rng)
        token = alnum(rng, 15)
        c.add("PUT", f"/public.php/dav/files/{token}/{quote(fname + ext)}",
              fetch(rng, hst, f"https://{hst}/s/{token}", content_type=ctype, accept="*/*", b=b,
                    extra=[("X-Requested-With", "XMLHttpRequest"), ("requesttoken", b64url(rng.randbytes(32)) + ":" + b64url(rng.randbytes(32)))]), data)
    elif kind == 3:  # PROPFIND listing
        props = rng.sample(["<d:getlastmodified />", "<d:getetag />", "<d:getcontenttype />", "<d:resourcetype />", "<oc:fileid />",
                            "<oc:permissions />", "<oc:size />", "<d:getcontentlength />", "<nc:has-preview />", "<oc:favorite />",
                            "<oc:comments-unread />", "<oc:owner-display-name />", "<oc:share-types />", "<nc:is-encrypted />"], 8)
        body = ('<?xml version="1.0"?>\n<d:propfind  xmlns:d="DAV:" xmlns:oc="http://owncloud.org/ns" xmlns:nc="http://nextcloud.org/ns" '
                'xmlns:ocs="http://open-collaboration-services.org/ns">\n  <d:prop>\n    ' + "\n    ".join(props) + "\n  </d:prop>\n</d:propfind>")
        h = [("Host", hst)] + nextcloud_client(rng) + [("Authorization", auth), ("Depth", pick(rng, ["0", "1"])),
                                                       ("Content-Type", "application/xml; charset=utf-8")]
        c.add("PROPFIND", f"/remote.php/dav/files/{user}/{quote(folder)}", h, body)
    elif kind == 4:  # CalDAV from iOS
        ev = uid(rng).upper()
        start = iso(rng)[:19].replace("-", "").replace(":", "")
        desc = text.prose(rng, pick(rng, ["en", "de", "fr"]), 2).replace("\\", "\\\\").replace(",", "\\,").replace(";", "\\;").replace("\n", "\\n")
        loc = text.address(rng, "de").replace(",", "\\,")
        body = ("BEGIN:VCALENDAR\r\nCALSCALE:GREGORIAN\r\nPRODID:-//Apple Inc.//iOS 18.1//EN\r\nVERSION:2.0\r\nBEGIN:VTIMEZONE\r\nTZID:Europe/Berlin\r\n"
                "END:VTIMEZONE\r\nBEGIN:VEVENT\r\n" f"CREATED:{start}Z\r\nDTEND;TZID=Europe/Berlin:{start}\r\nDTSTAMP:{start}Z\r\n"
                f"DTSTART;TZID=Europe/Berlin:{start}\r\nLAST-MODIFIED:{start}Z\r\nLOCATION:{loc}\r\nDESCRIPTION:{desc[:70]}\r\n {desc[70:140]}\r\n"
                f"SEQUENCE:0\r\nSUMMARY:{text.title(rng, 'en')}\r\nTRANSP:OPAQUE\r\nUID:{ev}\r\nBEGIN:VALARM\r\nACTION:DISPLAY\r\n"
                f"DESCRIPTION:Reminder\r\nTRIGGER:-PT15M\r\nUID:{uid(rng).upper()}\r\nEND:VALARM\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n")
        c.add("PUT", f"/remote.php/dav/calendars/{user}/personal/{ev}.ics",
              [("Host", hst), ("Content-Type", "text/calendar; charset=utf-8"), ("If-None-Match", "*"), ("Accept", "*/*"),
               ("Authorization", auth), ("Accept-Language", "de-DE,de;q=0.9"), ("Accept-Encoding", "gzip, deflate, br"),
               ("User-Agent", f"iOS/{pick(rng, ['17.6.1', '18.1', '18.2'])} ({pick(rng, ['22B83', '21G93', '22C152'])}) dataaccessd/1.0"),
               ("Connection", "keep-alive")], body)
    elif kind == 5:  # CardDAV from DAVx5
        card = uid(rng)
        fn, sn = pick(rng, FIRSTNAMES), pick(rng, PARTICLE_SURNAMES)
        org = pick(rng, ORGS)
        body = (f"BEGIN:VCARD\r\nVERSION:3.0\r\nPRODID:+//IDN bitfire.at//DAVx5/4.4.3-ose ez-vcard/0.12.1\r\nUID:{card}\r\nFN:{fn} {sn}\r\n"
                f"N:{sn};{fn};;;\r\nORG:{org[0]} ({org[1]})\r\nEMAIL;TYPE=WORK:{email(rng)}\r\nTEL;TYPE=CELL:+49 151 {rng.randint(1000000, 9999999)}\r\n"
                f"ADR;TYPE=HOME:;;{text.address(rng, 'de')};{text.city(rng, 'de')};;{rng.randint(10000, 99999)};Germany\r\n"
                f"NOTE:{text.sentence(rng, 'en')}\r\nREV:{iso(rng)[:19].replace('-', '').replace(':', '')}Z\r\nEND:VCARD\r\n")
        c.add("PUT", f"/remote.php/dav/addressbooks/users/{user}/contacts/{card}.vcf",
              [("Host", hst), ("Authorization", auth), ("If-None-Match", "*"), ("Accept-Encoding", "gzip"),
               ("User-Agent", f"DAVx5/4.4.{rng.randint(0, 5)}-ose (2024/10/0{rng.randint(1, 9)}; dav4jvm; okhttp/4.12.0) Android/14"),
               ("Content-Type", "text/vcard; charset=utf-8")], body)
    else:
        b = browser(rng)
        if rng.random() < 0.5:
            c.add("GET", "/ocs/v2.php/apps/dashboard/api/v1/widget-items?" + qs([("widgets[]", "mail-unread"), ("widgets[]", "calendar"),
                                                                               ("widgets[]", "activity"), ("limit", "7")]),
                  fetch(rng, hst, f"https://{hst}/apps/dashboard/", cookie=f"nc_session_id={alnum(rng, 26)}", b=b,
                        extra=[("OCS-APIRequest", "true"), ("requesttoken", b64url(rng.randbytes(32)) + ":" + b64url(rng.randbytes(32)))]))
        else:
            msg = rng.randbytes(rng.randint(200, 1500))
            c.add("POST", f"/index.php/apps/uppush/push/{uid(rng)}",
                  [("Host", hst), ("User-Agent", pick(rng, ["Go-http-client/1.1", "Synapse/1.118.0", "okhttp/4.12.0"])),
                   ("Content-Encoding", "aes128gcm"), ("Content-Type", "application/octet-stream"), ("TTL", "2419200"),
                   ("Urgency", "normal"), ("Accept-Encoding", "gzip")], msg)


# --- Exchange and Office -------------------------------------------------------------------------------------------

def mb_u_int32(n):
    out = [n & 0x7F]
    n >>= 7
    while n:
        out.append(0x80 | (n & 0x7F))
        n >>= 7
    return bytes(reversed(out))


def mime_message(rng, sender, to):
    bnd = "Apple-Mail-" + uid(rng).upper()
    body = text.prose(rng, pick(rng, ["en", "de"]), rng.randint(2, 4))
    lines = [f"Could you put the {pick(rng, ['files', 'slides', 'invoice'])} in the shared folder before {rng.randint(1, 12)}?",
             "Sent from my iPhone"]
    att = base64.encodebytes(rng.randbytes(rng.randint(900, 3000))).decode().replace("\n", "\r\n")
    return (f"From: {sender}\r\nContent-Type: multipart/mixed;\r\n\tboundary={bnd}\r\nMime-Version: 1.0 (1.0)\r\nDate: Mon, 13 Jan 2025 "
            f"{rng.randint(7, 20)}:{rng.randint(10, 59)}:{rng.randint(10, 59)} +0100\r\nSubject: {text.title(rng, 'en')}\r\n"
            f"Message-Id: <{uid(rng).upper()}@example.com>\r\nTo: {to}\r\nX-Mailer: iPhone Mail (22B83)\r\n\r\n"
            f"--{bnd}\r\nContent-Type: text/plain;\r\n\tcharset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n{body}\r\n\r\n"
            + "\r\n".join(lines) + f"\r\n--{bnd}\r\nContent-Type: image/jpeg;\r\n\tname=IMG_{rng.randint(1000, 9999)}.jpeg\r\n"
            f"Content-Disposition: attachment;\r\n\tfilename=IMG_{rng.randint(1000, 9999)}.jpeg\r\nContent-Transfer-Encoding: base64\r\n\r\n{att}\r\n--{bnd}--\r\n").encode()


def exchange(rng, c):
    hst = f"mail.{site(rng)}"
    user = f"{pick(rng, FIRSTNAMES).lower()}.{pick(rng, LAST).replace(' ', '').replace(chr(39), '')}@{hst[5:]}"
    kind = rng.randrange(4)
    if kind == 0:
        dev = hexid(rng, 32).upper()
        mime = mime_message(rng, user, ", ".join(email(rng) for _ in range(rng.randint(1, 3))))
        wbxml = (b"\x03\x01\x6a\x00\x00\x15\x45\x51\x03" + hexid(rng, 40).encode() + b"\x00\x01\x08\x50\xc3" + mb_u_int32(len(mime)) + mime + b"\x01\x01")
        c.add("POST", f"/Microsoft-Server-ActiveSync?Cmd=SendMail&User={quote(user)}&DeviceId={dev}&DeviceType=iPhone",
              [("Host", hst), ("Content-Type", "application/vnd.ms-sync.wbxml"), ("Accept", "*/*"), ("Accept-Language", "en-GB,en;q=0.9"),
               ("Authorization", "Basic " + base64.b64encode(f"{user}:{alnum(rng, 14)}".encode()).decode()),
               ("MS-ASProtocolVersion", pick(rng, ["16.1", "16.0", "14.1"])), ("X-MS-PolicyKey", str(rng.randint(10 ** 9, 4 * 10 ** 9))),
               ("User-Agent", f"Apple-iPhone{rng.randint(13, 17)}C{rng.randint(1, 3)}/{rng.randint(2100, 2203)}.{rng.randint(10, 99)}"),
               ("Accept-Encoding", "gzip, deflate, br"), ("Connection", "keep-alive")], wbxml)
    elif kind == 1:
        guid = "{" + uid(rng).upper() + "}"
        body = ('<?xml version="1.0" encoding="utf-8"?><Autodiscover xmlns="http://schemas.microsoft.com/exchange/autodiscover/outlook/requestschema/2006">'
                f"<Request><EMailAddress>{user}</EMailAddress><AcceptableResponseSchema>http://schemas.microsoft.com/exchange/autodiscover/outlook/"
                "responseschema/2006a</AcceptableResponseSchema></Request></Autodiscover>")
        c.add("POST", "/autodiscover/autodiscover.xml",
              [("Host", hst), ("Cache-Control", "no-cache"), ("Pragma", "no-cache"), ("Content-Type", "text/xml"),
               ("Authorization", pick(rng, ["Bearer", "Negotiate " + base64.b64encode(rng.randbytes(40)).decode()])), ("Cookie", f'OutlookSession="{guid}"'),
               ("User-Agent", f"Microsoft Office/16.0 (Windows NT 10.0; Microsoft Outlook 16.0.{rng.randint(14000, 18200)}; Pro)"),
               ("X-MS-CookieUri-Requested", "t"), ("X-FeatureVersion", "1"), ("Client-Request-Id", "{" + uid(rng).upper() + "}"),
               ("X-MapiHttpCapability", "1"), ("Depth", "0"), ("X-AnchorMailbox", user), ("X-User-Identity", user)], body)
    elif kind == 2:
        c.add("GET", "/autodiscover/autodiscover.xml",
              [("Host", hst), ("User-Agent", f"{pick(rng, ['Business', 'Enterprise', 'Teams'])}/{rng.randint(6, 9)}.{rng.randint(0, 9)}.{rng.randint(0, 9)}.{rng.randint(1, 300)} "
                                             f"CFNetwork/{pick(rng, ['1568.200.51 Darwin/24.1.0', '1496.0.7 Darwin/23.5.0'])}"),
               ("Accept-Language", "en-GB,en;q=0.9"), ("Accept-Encoding", "gzip, deflate, br"), ("Connection", "keep-alive")])
    else:
        t0 = ts(rng) * 1000
        msgs = [f"Render time (ms): {rng.randint(100, 3000)}", f"App state changed: {rng.randint(1, 9)}",
                f"WacBoot: {pick(rng, ['Start', 'Complete'])} ({rng.randint(10, 900)} ms)", "Select ribbon tab: Home",
                f"Doc load time: {rng.randint(100, 9000)}", "Time to first paint; measured", "Set focus on canvas"]
        entries = [{"G": rng.randint(10 ** 6, 3 * 10 ** 7), "T": rng.randint(1, 3), "M": pick(rng, msgs), "C": rng.randint(100, 999), "D": 50}
                   for _ in range(rng.randint(3, 12))]
        b = browser(rng)
        c.add("POST", f"/wv/RemoteUls.ashx?build=16.0.{rng.randint(10000, 10500)}.{rng.randint(20000, 20999)}",
              fetch(rng, f"office.{hst[5:]}", f"https://office.{hst[5:]}/wv/wordviewerframe.aspx?ui=en-US&rs=en-US&WOPISrc=" + quote(f"https://{hst}/wopi/files/{uid(rng)}", safe=""),
                    content_type="application/json", accept="*/*", b=b), jsonb({"T": t0, "L": entries}))


# --- webmail -------------------------------------------------------------------------------------------------------

def webmail(rng, c):
    b = browser(rng)
    hst = f"webmail.{site(rng)}"
    lang = pick(rng, ["en", "de", "fr", "es", "pl"])
    if rng.random() < 0.75:
        recips = []
        for _ in range(rng.randint(1, 3)):
            fn, sn = pick(rng, FIRSTNAMES), pick(rng, PARTICLE_SURNAMES)
            recips.append(pick(rng, [f"{fn} {sn} <{email(rng)}>", f'"{sn}, {fn}" <{email(rng)}>', email(rng), f"{fn} ({pick(rng, ORGS)[1]}) <{email(rng)}>"]))
        quoted = "\n".join("> " + line for line in text.prose(rng, lang, 2).split("\n"))
        msg = (f"{text.prose(rng, lang)}\n\nhttps://{site(rng)}/{pick(rng, ['docs', 'share', 'p'])}/{alnum(rng, 10)}?ref=mail&lang={lang}\n\n"
               f"-- \n{text.name(rng, lang)}\n\nOn {iso(rng)[:10]} {recips[0]} wrote:\n{quoted}")
        c.add("POST", "/?_task=mail&_unlock=loading" + str(ts(rng)) + "&_framed=1&_lang=" + lang,
              fetch(rng, hst, f"https://{hst}/?_task=mail&_action=compose&_id={rng.randint(10 ** 9, 10 ** 10)}",
                    content_type="application/x-www-form-urlencoded", cookie=f"roundcube_sessid={alnum(rng, 26)}; roundcube_sessauth={alnum(rng, 40)}-{ts(rng)}",
                    b=b, extra=[("X-Roundcube-Request", alnum(rng, 32))]), form([
                ("_token", alnum(rng, 32)), ("_task", "mail"), ("_action", "send"), ("_id", str(rng.randint(10 ** 9, 10 ** 10))),
                ("_attachments", ""), ("_from", str(rng.randint(1, 3))), ("_to", ", ".join(recips)), ("_cc", ""), ("_bcc", ""),
                ("_replyto", ""), ("_followupto", ""), ("_subject", "Re: " + text.title(rng, lang)), ("_draft_saveid", ""), ("_draft", ""),
                ("_is_html", "0"), ("_framed", "1"), ("editorSelector", "plain"), ("_message", msg), ("_mdn", ""), ("_priority", "0"),
                ("_store_target", "Sent")]))
    else:
        letter = pick(rng, string.ascii_uppercase)
        c.add("GET", f"/turba/browse.php?show=all&page={letter}",
              navigation(rng, hst, referer=f"https://{hst}/turba/browse.php?show=all&page={pick(rng, string.ascii_uppercase)}",
                         cookie=f"Horde={alnum(rng, 26)}; horde_secret_key={alnum(rng, 26)}", site="same-origin", b=b))


# --- GitLab --------------------------------------------------------------------------------------------------------

REPO_PATHS = ["etc/nginx/conf.d/default.conf", "scripts/backup.sh", "bin/console", "usr/local/bin/entrypoint.sh", "etc/systemd/system/app.service",
              "deploy/ansible/roles/web/tasks/main.yml", "docker/php/Dockerfile", "config/initializers/session_store.rb", "etc/cron.d/cleanup",
              "tools/install-deps.sh", "src/utils/exec.ts", "lib/tasks/db.rake", "etc/logrotate.d/app", "bin/wait-for-it.sh", "sbin/healthcheck"]


def gitlab(rng, c):
    b = browser(rng)
    hst = f"gitlab.{site(rng)}"
    proj = f"{pick(rng, ['platform', 'ops', 'web', 'infra'])}/{'-'.join(rng.sample(WORDS, 2))}"
    ref = pick(rng, ["main", "master", "develop", "release/2.4"])
    path = pick(rng, REPO_PATHS)
    ck = f"_gitlab_session={hexid(rng, 32)}; known_sign_in={quote(base64.b64encode(rng.randbytes(60)).decode(), safe='')}; event_filter=all"
    kind = rng.randrange(4)
    page = f"https://{hst}/{proj}/-/tree/{ref}"
    if kind == 0:
        c.add("GET", f"/{proj}/-/blob/{ref}/{path}", navigation(rng, hst, referer=page, cookie=ck, site="same-origin", b=b))
    elif kind == 1:
        c.add("GET", f"/{proj}/-/tree/{ref}/{path.rsplit('/', 1)[0]}?ref_type=heads", navigation(rng, hst, referer=page, cookie=ck, site="same-origin", b=b))
    elif kind == 2:
        c.add("GET", f"/{proj}/-/refs/{ref}/logs_tree/{quote(path.rsplit('/', 1)[0])}?format=json&offset=0&ref_type=heads",
              fetch(rng, hst, page, cookie=ck, b=b, extra=[("X-CSRF-Token", b64url(rng.randbytes(64))), ("X-Requested-With", "XMLHttpRequest")]))
    else:
        c.add("GET", f"/api/v4/projects/{rng.randint(1, 9000)}/repository/files/{quote(path, safe='')}/raw?ref={quote(ref, safe='')}",
              fetch(rng, hst, f"https://{hst}/{proj}/-/blob/{ref}/{path}", cookie=ck, b=b, accept="*/*"))


# --- identity, provisioning and other APIs ---------------------------------------------------------------------------

def identity(rng, c):
    kind = rng.randrange(5)
    s = site(rng)
    if kind == 0:  # SCIM from an identity provider
        hst = f"api.{s}"
        fn, sn = pick(rng, FIRSTNAMES), pick(rng, PARTICLE_SURNAMES)
        user = {"schemas": ["urn:ietf:params:scim:schemas:core:2.0:User", "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"],
                "externalId": uid(rng), "userName": email(rng), "active": True, "displayName": f"{fn} {sn}",
                "name": {"formatted": f"{fn} {sn}", "familyName": sn, "givenName": fn},
                "emails": [{"primary": True, "type": "work", "value": email(rng)}], "title": pick(rng, ["Select Buyer", "Union Representative", "Developer"]),
                "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User": {"department": pick(rng, ["Sales (EMEA)", "R&D", "Ops"]),
                                                                               "employeeNumber": str(rng.randint(1000, 99999))}}
        if rng.random() < 0.5:
            body, method, path = user, "POST", "/scim/v2/Users"
        else:
            body = {"schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
                    "Operations": [{"op": "Replace", "path": pick(rng, ["active", 'emails[type eq "work"].value', "title"]),
                                    "value": pick(rng, ["false", email(rng), "Select Buyer"])}]}
            method, path = "PATCH", f"/scim/v2/Users/{uid(rng)}"
        c.add(method, path, [("Host", hst), ("User-Agent", pick(rng, ["Okta SCIM Client 1.0.0", "Azure AD SCIM Client", "OneLogin SCIM"])),
                             ("Authorization", f"Bearer {alnum(rng, 40)}"), ("Content-Type", "application/scim+json; charset=utf-8"),
                             ("Accept", "application/scim+json"), ("Accept-Encoding", "gzip")], jsonb(body))
    elif kind == 1:  # JasperReports REST v2
        hst = f"reports.{s}"
        c.add("PUT", f"/jasperserver/rest_v2/resources/datasources/{'_'.join(rng.sample(WORDS, 2))}?createFolders=true&overwrite=true",
              [("Host", hst), ("User-Agent", "Apache-HttpClient/4.5.14 (Java/17.0.13)"), ("Accept", "application/json"),
               ("Content-Type", "application/repository.jdbcDataSource+json"), ("Authorization", "Basic " + base64.b64encode(b"jasperadmin:" + alnum(rng, 12).encode()).decode())],
              jsonb({"label": text.title(rng, "en")[:40], "driverClass": "org.postgresql.Driver", "connectionUrl": f"jdbc:postgresql://db.{s}:5432/reports",
                     "username": "report_ro", "password": alnum(rng, 16), "timezone": "Europe/Berlin"}))
    elif kind == 2:  # SimpleSAMLphp login page and form
        b = browser(rng)
        hst = f"idp.{s}"
        state = "_" + hexid(rng, 42) + ":" + f"https://{hst}/simplesaml/saml2/idp/SSOService.php?" + qs([
            ("spentityid", f"https://engine.{site(rng)}/authentication/sp/metadata"), ("RelayState", f"https://wiki.{site(rng)}/"),
            ("cookieTime", str(ts(rng)))])
        if rng.random() < 0.5:
            c.add("GET", "/simplesaml/module.php/core/loginuserpass?" + qs([("AuthState", state)]),
                  navigation(rng, hst, referer=f"https://engine.{site(rng)}/", site="cross-site", b=b))
        else:
            c.add("POST", "/simplesaml/module.php/core/loginuserpass", form_post(rng, hst, f"https://{hst}/simplesaml/module.php/core/loginuserpass?AuthState=x",
                                                                              "application/x-www-form-urlencoded", cookie=f"SimpleSAMLSessionID={hexid(rng, 32)}", b=b),
                  form([("username", pick(rng, FIRSTNAMES).lower()), ("password", password(rng)), ("AuthState", state)]))
    elif kind == 3:  # Keycloak login
        b = browser(rng)
        hst = f"auth.{s}"
        realm = pick(rng, ["master", "customers", "staff", s.split(".")[0]])
        kc = (f"AUTH_SESSION_ID={uid(rng)}.{pick(rng, ['keycloak-0', 'kc-1-22131'])}; KC_RESTART={jwt(rng, alg='HS256')}; "
              f"KC_AUTH_SESSION_HASH={b64url(rng.randbytes(32))}")
        q = qs([("session_code", b64url(rng.randbytes(32))), ("execution", uid(rng)), ("client_id", pick(rng, ["account-console", "web-app", "grafana"])),
                ("tab_id", alnum(rng, 11)), ("client_data", b64url(jsonb({"ru": f"https://app.{s}/", "rt": "code", "rm": "fragment", "st": uid(rng)})))])
        c.add("POST", f"/realms/{realm}/login-actions/authenticate?{q}",
              form_post(rng, hst, f"https://{hst}/realms/{realm}/protocol/openid-connect/auth?client_id=web-app", "application/x-www-form-urlencoded", cookie=kc, b=b),
              form([("username", email(rng)), ("password", password(rng)), ("credentialId", "")]))
    else:  # signed SAML redirect binding
        b = browser(rng)
        xml = (f'<samlp:AuthnRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" ID="_{hexid(rng, 40)}" Version="2.0" IssueInstant="{iso(rng)[:19]}Z" '
               f'AssertionConsumerServiceURL="https://app.{s}/saml/acs"><saml:Issuer xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion">https://app.{s}/saml/metadata'
               '</saml:Issuer></samlp:AuthnRequest>').encode()
        deflated = zlib.compressobj(9, zlib.DEFLATED, -15)
        req = base64.b64encode(deflated.compress(xml) + deflated.flush()).decode()
        c.add("GET", "/idp/profile/SAML2/Redirect/SSO?" + qs([("SAMLRequest", req), ("RelayState", b64url(rng.randbytes(24))),
                                                              ("SigAlg", "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"),
                                                              ("Signature", base64.b64encode(rng.randbytes(256)).decode())]),
              navigation(rng, f"sso.{site(rng)}", referer=f"https://app.{s}/", site="cross-site", b=b))


def apps_json(rng, c):
    kind = rng.randrange(4)
    b = browser(rng)
    if kind == 0:  # Mattermost preferences
        hst = f"chat.{site(rng)}"
        u = alnum(rng, 26, string.ascii_lowercase + string.digits)
        prefs = [{"user_id": u, "category": cat, "name": name, "value": val} for cat, name, val in rng.sample([
            ("display_settings", "use_military_time", "false"), ("display_settings", "name_format", "nickname_full_name"),
            ("recent_emojis", u, json.dumps([{"name": "+1", "usageCount": rng.randint(1, 40)}, {"name": "white_check_mark", "usageCount": 3}])),
            ("channel_approximate_view_time", "", str(ts(rng) * 1000)), ("sidebar_settings", "show_unread_section", "true"),
            ("advanced_settings", "send_on_ctrl_enter", "false"), ("theme", "", json.dumps({"type": "Onyx", "sidebarBg": "#1f1f1f"}))], rng.randint(1, 4))]
        c.add("PUT", f"/api/v4/users/{u}/preferences", fetch(rng, hst, f"https://{hst}/{alnum(rng, 8).lower()}/channels/town-square",
                                                             content_type="application/json", cookie=f"MMAUTHTOKEN={alnum(rng, 26)}; MMUSERID={u}; MMCSRF={alnum(rng, 26)}",
                                                             b=b, extra=[("X-Requested-With", "XMLHttpRequest"), ("X-CSRF-Token", alnum(rng, 26))]), jsonb(prefs))
    elif kind == 1:  # ids and filters in JSON
        hst, ref = f"api.{site(rng)}", f"https://app.{site(rng)}/board"
        ids = [alnum(rng, 3, string.digits) + "--" + alnum(rng, 3, string.ascii_lowercase + "-") + "-" + alnum(rng, 14, string.ascii_letters + string.digits + "-_")
               if rng.random() < 0.3 else alnum(rng, 21, string.ascii_letters + string.digits + "-_") for _ in range(rng.randint(1, 8))]
        body = pick(rng, [{"ids": ids, "action": pick(rng, ["archive", "move", "label"])}, ids,
                          {"query": f'filter=in({pick(rng, ["labels.name", "tags", "component.key"])},({",".join(chr(34) + w + chr(34) for w in rng.sample(WORDS, 2))}))', "limit": 50},
                          {"rql": f"and(eq(status,{pick(rng, ['open', 'closed'])}),lt(priority,{rng.randint(1, 5)}),in(assignee,({pick(rng, FIRSTNAMES).lower()})))&sort(-updated)"},
                          {"selection": [uid(rng) for _ in range(rng.randint(1, 4))], "op": "delete"}])
        c.add("POST", pick(rng, ["/v1/items/bulk", "/api/issues/search", "/rest/tasks/query"]),
              fetch(rng, hst, ref, content_type="application/json", auth=f"Bearer {jwt(rng)}", b=b), jsonb(body))
    elif kind == 2:  # browser extension posting to its service
        hst = f"api.{site(rng)}"
        origin = pick(rng, ["chrome-extension://" + alnum(rng, 32, "abcdefghijklmnop"), "moz-extension://" + uid(rng)])
        boundary = "----WebKitFormBoundary" + alnum(rng, 16)
        fields = [("url", f"https://{site(rng)}/{'-'.join(rng.sample(WORDS, 3))}?utm_source=rss"), ("title", text.title(rng, "en")),
                  ("selection", text.prose(rng, "en", 2)), ("tags", ",".join(rng.sample(WORDS, 3))), ("character", pick(rng, PLACES))]
        body = "".join(f"--{boundary}\r\nContent-Disposition: form-data; name=\"{k}\"\r\n\r\n{v}\r\n" for k, v in fields) + f"--{boundary}--\r\n"
        fam, ua, hints, _ = b
        h = [("Host", hst)] + (hints or []) + [("User-Agent", ua), ("Accept", "*/*"), ("Content-Type", f"multipart/form-data; boundary={boundary}"),
                                               ("Origin", origin), ("Sec-Fetch-Site", "none"), ("Sec-Fetch-Mode", "cors"), ("Sec-Fetch-Dest", "empty"),
                                               ("Accept-Encoding", ENCODING[fam]), ("Accept-Language", "en-US,en;q=0.9,ru;q=0.8,fi;q=0.7"), ("DNT", "1"),
                                               ("Cookie", remember_me_cookie(rng, hst) + f"; __Host-sess={alnum(rng, 120, string.ascii_lowercase + string.digits)}")]
        c.add("POST", pick(rng, ["/api/save", "/api/characters", "/v2/bookmarks"]), h, body)
    else:  # insurance comparison widget: a whole query string in one field
        hst = f"www.{site(rng)}"
        insurer = pick(rng, ["Nordstern", "Alpina", "Rheinland", "Hanse Direkt"])
        inner = "&".join(f"{k}={v}" for k, v in [
            ("tarif", f"Privathaftpflicht-{pick(rng, ['Basis', 'Komfort', 'Premium'])}-{pick(rng, ['Familie', 'Single', 'Paar'])}"),
            ("tarifid", str(rng.randint(10 ** 6, 10 ** 7))), ("deckung", pick(rng, ["5.000.000", "10.000.000", "50.000.000"])),
            ("oeffentlicherdienst", pick(rng, ["nein", "ja"])), ("selbstbeteiligung", str(pick(rng, [0, 150, 250]))),
            ("schluessel", pick(rng, ["0", "20.000"])), ("alter_von", "18"), ("alter_bis", "99"), ("gesellschaft", f"{insurer} Versicherung AG"),
            ("kurzname", insurer), ("bearbeitung", "1-3 Tage"), ("bewertung", pick(rng, ["sehr gut (1,3)", "gut", "ohne Bewertung"])),
            ("laufzeit", "1 Jahr"), ("zahlweise", pick(rng, ["jährlich", "monatlich"]))])
        c.add("POST", "/vergleich/antrag", form_post(rng, hst, f"https://{hst}/vergleich/haftpflicht", "application/x-www-form-urlencoded",
                                                      cookie=cookie_header(rng), b=b),
              form([("tarif1", inner.replace("Komfort", "Basis")), ("tarif2", inner), ("step", "2"), ("plz", str(rng.randint(10000, 99999)))]))


# --- what people type ------------------------------------------------------------------------------------------------

def password(rng):
    if rng.random() < 0.6:  # password-manager output
        alphabet = string.ascii_letters + string.digits + pick(rng, ["!@#$%^&*", "<>?|:;'\"", "-_.~+=", "()[]{}<>", "!#%&*?<>|"])
        return "".join(rng.choice(alphabet) for _ in range(rng.randint(12, 32)))
    word = pick(rng, ["Geheim", "Sommer", "Hund", "Pa$$word", "letmein", "Kasia", "Zürich", "P@risTrip", "grüne-Wiese"])
    return word + pick(rng, [f"%{rng.randint(0, 99):02d}{rng.randint(10, 99)}", f"<{rng.randint(1, 99)}", f"#{rng.randint(1, 999)}!",
                             f"'{rng.randint(10, 99)}", f"--{rng.randint(1, 9)}", f"?|{rng.randint(1, 9)}", str(rng.randint(1990, 2025))])


def initials(rng):
    return pick(rng, ["df", "su", "w", "sh", "ls", "ps", "rm", "cp", "dd", "at", "id", "nc", "mv", "JD", "A.B.", "w.", "ed", "bc"])


def directions(rng):
    return pick(rng, [
        f"After the {pick(rng, ['bridge', 'church', 'petrol station'])} keep {pick(rng, ['left', 'right'])} ({pick(rng, ['about 1 mile', '500 m', '2 km', '0.3 mi'])}), then straight on.",
        f"Bear {pick(rng, ['left', 'right'])} ({pick(rng, ['FP 12', 'BW', 'RB', 'FP'])}) and keep to the hedge heading {pick(rng, ['south', 'north', 'east'])} for about {pick(rng, ['½ mile', '1 mile', '800 yards'])} until {pick(rng, PLACES)} Farm (grid {rng.randint(100000, 999999)}).",
        f"Exit {rng.randint(1, 40)} ({pick(rng, PLACES)}), left at the roundabout, we're the 3rd house on the right (green door).",
        f"From the station: bus {rng.randint(1, 99)} to \"{pick(rng, PLACES)}\" (approx. {rng.randint(5, 25)} min), then walk left up the hill."])


def history(rng):
    place = pick(rng, PLACES)
    y = sorted(rng.sample(range(1100, 1950), 3))
    return pick(rng, [
        f"The name appears as {place[:4]}ley ({y[0]}), {place}e ({y[1]}) and, in a tax roll, {place} juxta {pick(rng, PLACES)} ({y[2]}).",
        f"From the {rng.randint(12, 19)}th century the manor was held by the {pick(rng, PLACES)} family; the moat, a tithe barn (restored {rng.randint(1950, 2010)}) "
        f"and the old well in the yard survive.",
        f"The {pick(rng, ['mill', 'chapel', 'school'])} ({y[0]}–{y[1]}) was rebuilt after the fire of {y[2]} (see photo)."])


def instructions(rng):
    return "\n".join(f"{i + 1}. {pick(rng, VERBS)} {pick(rng, UNIT_STEPS)}" if rng.random() < 0.5 else f"{pick(rng, VERBS)} {pick(rng, UNIT_STEPS)}"
                     for i in range(rng.randint(2, 6)))


def people_forms(rng, c):
    b = browser(rng)
    hst = f"www.{site(rng)}"
    ref = page_with_query(rng, hst)
    ck = cookie_header(rng)
    kind = rng.randrange(6)
    if kind == 0:  # registration and login with real passwords
        pw = password(rng)
        if rng.random() < 0.5:
            fields = [("email", email(rng)), ("password", pw), ("password_confirmation", pw), ("first_name", pick(rng, FIRSTNAMES)),
                      ("last_name", pick(rng, PARTICLE_SURNAMES)), ("terms", "1"), ("_token", alnum(rng, 40))]
            path = pick(rng, ["/register", "/my-account/", "/signup"])
        else:
            fields = [("log", pick(rng, [email(rng), pick(rng, FIRSTNAMES).lower()])), ("pwd", pw), ("rememberme", "forever"),
                      ("wp-submit", "Log In"), ("redirect_to", f"https://{hst}/wp-admin/"), ("testcookie", "1")]
            path = "/wp-login.php"
        c.add("POST", path, form_post(rng, hst, f"https://{hst}{path}", "application/x-www-form-urlencoded", cookie=ck, b=b), form(fields))
    elif kind == 1:  # contact form: initials, surnames, organisations, consent label
        org = pick(rng, ORGS)
        fields = [("your-name", f"{pick(rng, FIRSTNAMES)} {pick(rng, PARTICLE_SURNAMES)}"), ("initials", initials(rng)),
                  ("organisation", pick(rng, [f"{org[0]} ({org[1]})", org[1], f"{org[0]}, {text.city(rng, 'en')}"])),
                  ("your-email", email(rng)), ("your-message", pick(rng, [text.prose(rng, "en"), directions(rng), history(rng)])),
                  ("acceptance-privacy", pick(rng, ['I accept the <a href="/privacy/">data protection notice</a>.', "1",
                                                    'Yes, I agree to the <a href="/terms/" target="_blank">terms</a> and the <a href="/privacy/">privacy policy</a>',
                                                    'Ich habe die <a href="/datenschutz/" target="_blank">Datenschutzerklärung</a> gelesen.']))]
        c.add("POST", "/wp-json/contact-form-7/v1/contact-forms/" + str(rng.randint(10, 9999)) + "/feedback",
              fetch(rng, hst, ref, content_type="application/x-www-form-urlencoded; charset=UTF-8", cookie=ck, b=b), form(fields))
    elif kind == 2:  # texts: directions, history, instructions, quotes closed with "!"
        lang = pick(rng, ["en", "de", "nl"])
        msg = pick(rng, [directions(rng), history(rng), instructions(rng),
                         f'"{pick(rng, ["Endlich", "Danke", "Bravo", "Vorsicht"])}"! {text.sentence(rng, "de")}',
                         f"Could you ship the spare parts at the same time as the refund for {pick(rng, ['RMA', 'AB', 'INV'])}-{rng.randint(100, 999)}?",
                         f"Het is net {pick(rng, ['binnen', 'verstuurd', 'betaald'])}, dank je!" if lang == "nl" else text.prose(rng, "en")])
        c.add("POST", pick(rng, ["/contact", "/feedback", "/messages", "/support/ticket"]),
              form_post(rng, hst, ref, "application/x-www-form-urlencoded", cookie=ck, b=b),
              form([("name", f"{pick(rng, FIRSTNAMES)} {pick(rng, PARTICLE_SURNAMES)}"), ("email", email(rng)), ("subject", text.title(rng, "en")),
                    ("message", msg), ("csrf_token", b64url(rng.randbytes(24)))]))
    elif kind == 3:  # searches
        org = pick(rng, ORGS)
        q = pick(rng, [f"{pick(rng, ['cos', 'sin', 'tan', 'log', 'sqrt', 'exp'])}({pick(rng, ['x', '30', '2x', 'pi/4', 'a+b'])})",
                       f"{org[0]} ({org[1]})", f"{pick(rng, FIRSTNAMES)} {pick(rng, PARTICLE_SURNAMES)}", initials(rng),
                       pick(rng, PLACES) + f" ({rng.randint(1100, 1900)})", f"sum({pick(rng, ['A1:A10', 'x'])})"])
        c.add("GET", pick(rng, ["/search", "/", "/catalog", "/members"]) + "?" + qs([("q", q)] + ([("page", str(rng.randint(1, 9)))] if rng.random() < 0.3 else [])),
              navigation(rng, hst, referer=ref, cookie=ck, site="same-origin", b=b))
    elif kind == 4:  # paths: repeated counters, CamelCase slugs, Unicode slugs, /src/ pages from a search engine
        pathk = rng.randrange(4)
        if pathk == 0:
            p = f"/uploads/{pick(rng, ['picture', 'photo', 'IMG_' + str(rng.randint(1000, 9999)), 'scan'])}" + "".join(f"({rng.randint(1, 9)})" for _ in range(rng.randint(1, 3))) + pick(rng, [".jpg", ".png", ".pdf"])
            c.add("GET", quote(p), subresource(rng, hst, ref, "image" if not p.endswith("pdf") else "document", "image/avif,image/webp,*/*;q=0.8", b))
        elif pathk == 1:
            c.add("GET", "/" + pick(rng, ["events", "campaigns", "p", "fundraiser"]) + "/" + "".join(w.title() for w in rng.sample(WORDS, rng.randint(2, 4))),
                  navigation(rng, hst, referer=ref, cookie=ck, site="same-origin", b=b))
        elif pathk == 2:
            slug = f"{rng.randint(100, 9999)}-{pick(rng, WORDS)}™-{'-'.join(rng.sample(WORDS, 3))}"
            c.add("GET", f"/topic/{quote(slug)}/?do=getNewComment", navigation(rng, hst, referer=ref, cookie=ck, site="same-origin", b=b))
        else:
            g = "https://www.google.com/url?" + qs([("sa", "t"), ("rct", "j"), ("q", ""), ("esrc", "s"), ("source", "web"), ("cd", ""),
                                                    ("ved", "2ahUKEw" + alnum(rng, 40)), ("url", f"https://{hst}/"), ("usg", "AOvVaw" + alnum(rng, 22))])
            c.add("GET", f"/linux/{pick(rng, WORDS)}/src/{pick(rng, WORDS)}.{pick(rng, ['cc', 'c', 'py', 'h'])}",
                  navigation(rng, hst, referer=g, site="cross-site", b=b))
    else:  # a subresource whose Referer carries the page's search or paging query
        c.add("GET", pick(rng, ["/assets/app.css", "/img/logo.svg", "/api/cart/count", "/favicon.ico"]),
              subresource(rng, hst, page_with_query(rng, hst), "image", "image/avif,image/webp,*/*;q=0.8", b, ck))


def build(n=2000, seed=0x5EB0D7):
    rng = random.Random(seed)
    c = Corpus("reported")
    makers = [(16, page_visit), (6, matomo_hit), (7, woo_checkout), (9, wp_admin), (3, prestashop), (4, drupal), (6, moodle),
              (5, mediawiki), (3, db_tools), (6, grafana), (8, nextcloud), (4, exchange), (4, webmail), (4, gitlab), (4, identity),
              (5, apps_json), (12, people_forms)]
    for _ in range(n):
        weighted(rng, makers)(rng, c)
    return c
