"""large_sites.py: what browsers send to the largest sites' own APIs, shapes an operator's site meets when it runs
the same platforms or serves the same kinds of pages. YouTube's `youtubei/v1` calls, each carrying the client's
description (its user agent, its `Accept` header, screen, time zone and page); Pinterest's resource API
(`/resource/<Name>Resource/get/` with `source_url` and a JSON `data` parameter, asked for with the `Accept` list its
scripts send, a comma before `q=0.01`); Wikipedia's page previews (the REST summary endpoint, `Accept` naming the
summary's `profile`); Outlook on the web's conversation calls (`GetConversationItems`, whose item shape names its
placeholder image as a `data:image/gif` URI); Atlassian's searches (Jira's JQL in `/issues/?jql=`, Confluence's
CQL in `/wiki/rest/api/search?cql=`); and Hebrew news and shop pages, whose titles and searches write gershayim
and geresh as ASCII quotes (`ת"א`, `בע"מ`, `ז'בוטינסקי`) next to percentages, as analytics hits report them and
forms send them; and a US news page's ad requests (Google Ad Manager, a Prebid server auction, Amazon's bids), each
with the IAB US Privacy string (`1---`) in its parameter and the page's `usprivacy` cookie; an airline's hosted
booking engine, whose search page (the `Referer` of its next step) carries the site's settings as an XML document
in `SO_GL`; and a shop's checkout page embedding its payment providers' frames (PayPal's smart buttons, Klarna's
payments widget, a card form), each frame's address carrying the provider's own `sessionID`, asked for with the shop's
Referer; and APIs that take a field selection with nested fields in braces (Facebook's Graph API,
`fields=id,name,picture{url}`; Duolingo's `users{id,name,totalXp}`); LinkedIn's Rest.li partial updates
(`{"patch":{"$set":{"read":true}}}`); and a shop whose page state is a JavaScript object literal in a cookie sent
in RFC 6265's double quotes (`FUN="{'search':[{'reqUrl':'/search.pang','isValid':true}]}"`); Microsoft Teams' chat
service asked with `Accept: json`; Word's and OneNote's file sync on the web (SOAP with MTOM: multipart/related
naming its root part's type in `type` and `start-info`); and Evernote's Apache Thrift calls (`application/x-thrift`,
a note's ENML with its document type declaration); and Bluesky's web client creating records over AT Protocol
(posts with link facets and images, likes, follows: every record and part names its schema's type in `$type`);
and Wikidata's query service, whose page sends each SPARQL query it runs in `query` (`GET /sparql?query=...`, a
form post for a long one), its comments, line breaks, prefixed names and `SERVICE wikibase:label` as typed;
Google Drive's web client (batches posted as simple requests with their content type in `$ct` and a request line
per part, partial responses' field selections in `fields`), Dropbox's uploads with ASCII-only JSON arguments in
`Dropbox-API-Arg`, SharePoint's REST parameter aliases (`@a1='{GUID}'`) and Bumble's web API labelling its JSON
bodies `json`.

Where the shapes come from: the requests these sites' pages make as a browser's developer tools show them and as
their public documentation describes them (YouTube's InnerTube context object, Pinterest's resource endpoints,
MediaWiki's REST API and its Page Previews, Exchange's OWA service calls, Jira's and Confluence's REST search,
Google Analytics 4's measurement hits, OpenRTB 2.5 with Prebid's extensions, the IAB's US Privacy string
specification, AT Protocol's repository calls and Bluesky's lexicons, SPARQL 1.1 and Wikidata's query service), written from that knowledge. Every value is generated here; nothing is
copied from recorded traffic.
"""
import base64
import random
import string
from urllib.parse import quote

from . import text
from .common import (ACCEPT_DOC, Corpus, alnum, browser, fetch, form, form_post, hexid, jsonb, navigation, pick, ts, uid,
                     weighted)

B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

# YouTube searches and the videos' languages: (hl, gl, time zone, UTC offset in minutes).
LOCALES = [("en", "US", "America/New_York", -300), ("de", "DE", "Europe/Berlin", 60), ("fr", "FR", "Europe/Paris", 60),
           ("he", "IL", "Asia/Jerusalem", 120), ("ja", "JP", "Asia/Tokyo", 540), ("pt", "BR", "America/Sao_Paulo", -180),
           ("es", "MX", "America/Mexico_City", -360), ("ru", "RU", "Europe/Moscow", 180)]
SEARCHES = ["lofi hip hop radio", "how to tie a tie", "python tutorial for beginners", "cat 6 cable crimping",
            "ls 400 review", "lego star wars 75192 build", "sourdough bread recipe", "iphone 16 pro vs pixel 9",
            "שירים ישראלים להיטים 2024", "מתכון לשקשוקה", "tour eiffel de nuit", "pão de queijo receita",
            "kubernetes in 100 seconds", "drop d tuning songs", "select all shortcut mac", "union station chicago walk",
            "1/2\" drill bit set", "rock & roll hall of fame 2024", "o'reilly auto parts haul", "what's new in java 21"]


def _b64(rng, n):
    return "".join(rng.choice(B64) for _ in range(n))


def youtube(rng, c):
    """An InnerTube call: `context.client` describes the browser, its Accept header among the rest."""
    b = browser(rng)
    fam, ua, _, tag = b
    mobile = "android" in tag or "iphone" in tag
    hst = "m.youtube.com" if mobile else "www.youtube.com"
    hl, gl, tz, offset = pick(rng, LOCALES)
    video = _b64(rng, 11)
    version = f"2.2024{rng.randint(1, 12):02d}{rng.randint(1, 28):02d}.0{rng.randint(0, 9)}.00"
    visitor = _b64(rng, 24) + "%3D%3D"
    page = pick(rng, [f"/watch?v={video}", f"/results?search_query={quote(pick(rng, SEARCHES))}", "/", "/feed/subscriptions"])
    client = {
        "hl": hl, "gl": gl, "remoteHost": f"{rng.randint(11, 223)}.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}",
        "deviceMake": "Apple" if "iphone" in tag else "", "deviceModel": "iPhone" if "iphone" in tag else "",
        "visitorData": visitor, "userAgent": ua + ",gzip(gfe)", "clientName": "MWEB" if mobile else "WEB",
        "clientVersion": version, "osName": pick(rng, ["Windows", "Macintosh", "Android", "iPhone", "X11"]),
        "osVersion": pick(rng, ["10.0", "10_15_7", "14", "17_5_1", ""]), "originalUrl": f"https://{hst}{page}",
        "platform": "MOBILE" if mobile else "DESKTOP", "clientFormFactor": "UNKNOWN_FORM_FACTOR",
        "configInfo": {"appInstallData": _b64(rng, rng.randint(120, 260))},
        "userInterfaceTheme": pick(rng, ["USER_INTERFACE_THEME_DARK", "USER_INTERFACE_THEME_LIGHT"]),
        "timeZone": tz, "browserName": {"chrome": "Chrome", "firefox": "Firefox", "safari": "Safari"}[fam],
        "browserVersion": f"{rng.randint(120, 133)}.0.{rng.randint(1000, 6999)}.{rng.randint(10, 200)}",
        "acceptHeader": ACCEPT_DOC[fam], "deviceExperimentId": _b64(rng, 56),
        "screenWidthPoints": pick(rng, [390, 412, 1280, 1440, 1536, 1920]), "screenHeightPoints": pick(rng, [730, 844, 720, 900, 969]),
        "screenPixelDensity": pick(rng, [1, 2, 3]), "screenDensityFloat": pick(rng, [1, 1.25, 1.5, 2, 3]),
        "utcOffsetMinutes": offset, "memoryTotalKbytes": pick(rng, ["4000000", "8000000"]),
        "mainAppWebInfo": {"graftUrl": page, "pwaInstallabilityStatus": "PWA_INSTALLABILITY_STATUS_UNKNOWN",
                           "webDisplayMode": "WEB_DISPLAY_MODE_BROWSER", "isWebNativeShareAvailable": mobile},
    }
    context = {"client": client, "user": {"lockedSafetyMode": False},
               "request": {"useSsl": True, "internalExperimentFlags": [], "consistencyTokenJars": []},
               "clickTracking": {"clickTrackingParams": _b64(rng, 40) + "="}}
    endpoint = weighted(rng, [(4, "player"), (3, "next"), (3, "browse"), (2, "search"), (1, "like/like"),
                              (1, "comment/create_comment"), (1, "guide"), (1, "att/get")])
    body = {"context": context}
    if endpoint in ("player", "next"):
        body.update({"videoId": video, "racyCheckOk": False, "contentCheckOk": False})
        if endpoint == "player":
            body["playbackContext"] = {"contentPlaybackContext": {
                "currentUrl": f"/watch?v={video}", "vis": 0, "splay": False, "autoCaptionsDefaultOn": False,
                "autonavState": "STATE_NONE", "html5Preference": "HTML5_PREF_WANTS", "lactMilliseconds": "-1",
                "signatureTimestamp": rng.randint(19800, 20100)}}
    elif endpoint == "browse":
        body["browseId"] = pick(rng, ["FEwhat_to_watch", "FEsubscriptions", "FElibrary", "UC" + _b64(rng, 22)])
    elif endpoint == "search":
        body["query"] = pick(rng, SEARCHES)
    elif endpoint == "like/like":
        body["target"] = {"videoId": video}
    elif endpoint == "comment/create_comment":
        body.update({"commentText": text.sentence(rng, hl if hl in ("en", "de", "fr", "he", "ja") else "en"),
                     "createCommentParams": _b64(rng, 60) + "%3D"})
    extra = [("X-Youtube-Client-Name", "2" if mobile else "1"), ("X-Youtube-Client-Version", version),
             ("X-Goog-Visitor-Id", visitor.replace("%3D", "="))]
    if rng.random() < 0.6:
        extra += [("Authorization", f"SAPISIDHASH {ts(rng) // 1000}_{hexid(rng, 40)}"), ("X-Goog-AuthUser", "0"),
                  ("X-Origin", f"https://{hst}")]
    c.add("POST", f"/youtubei/v1/{endpoint}?prettyPrint=false",
          fetch(rng, hst, f"https://{hst}{page}", content_type="application/json", accept="*/*", extra=extra, b=b),
          jsonb(body))


PIN_QUERIES = ["men's haircut fade", "kitchen ideas small", "wedding nails 2024", "tattoo fine line", "diy bookshelf",
               "outfit inspo fall", "קעקוע קטן", "bullet journal spread", "bolo de cenoura", "wohnzimmer ideen"]


def pinterest(rng, c):
    """A resource call of Pinterest's web app: JSON options in `data`, the page in `source_url`."""
    q = pick(rng, PIN_QUERIES)
    resource, source, options = weighted(rng, [
        (3, ("BaseSearchResource", f"/search/pins/?q={quote(q)}&rs=typed",
             {"appliedProductFilters": "---", "auto_correction_disabled": False, "query": q, "redux_normalize_feed": True,
              "rs": "typed", "scope": "pins", "source_url": f"/search/pins/?q={quote(q)}&rs=typed"})),
        (2, ("PinResource", f"/pin/{rng.randint(10**15, 10**18)}/",
             {"id": str(rng.randint(10**15, 10**18)), "field_set_key": "auth_web_main_pin", "noCache": True,
              "fetch_visual_search_objects": True})),
        (2, ("AdvancedTypeaheadResource", "/",
             {"pin_scope": "pins", "count": 5, "term": q[: rng.randint(2, len(q))], "no_fetch_context_on_resource": False})),
        (1, ("UserHomefeedResource", "/", {"field_set_key": "hf_grid", "in_nux": False, "static_feed": False,
                                           "bookmarks": [_b64(rng, 60) + "=="]})),
    ])
    data = jsonb({"options": options, "context": {}}).decode()
    path = f"/resource/{resource}/get/?" + form([("source_url", source), ("data", data), ("_", str(ts(rng)))])
    extra = [("X-Requested-With", "XMLHttpRequest"), ("X-APP-VERSION", hexid(rng, 7)),
             ("X-Pinterest-AppState", "active"), ("X-Pinterest-Source-Url", source),
             ("X-Pinterest-PWS-Handler", pick(rng, ["www/search/[scope].js", "www/pin/[id].js", "www/index.js"]))]
    cookie = f"csrftoken={hexid(rng, 32)}; _auth=1; _pinterest_sess={_b64(rng, 180)}; _routing_id=\"{uid(rng)}\""
    c.add("GET", path, fetch(rng, "www.pinterest.com", f"https://www.pinterest.com{source}",
                             accept="application/json, text/javascript, */*, q=0.01", extra=extra, cookie=cookie))


WIKI_TITLES = {"en": ["Tel_Aviv", "Union_Station_(Chicago)", "SQL", "Drop_(liquid)", "Python_(programming_language)"],
               "he": ["תל_אביב-יפו", "צבא_ההגנה_לישראל", "ירושלים", "בורסה_לניירות_ערך_בתל_אביב"],
               "de": ["Berlin", "Schloss_Neuschwanstein", "Select_(Band)"], "ru": ["Санкт-Петербург", "Эрмитаж"]}


def wikipedia(rng, c):
    """Page Previews: the REST summary of the page a link points to, asked for in the summary's profile."""
    lang = pick(rng, list(WIKI_TITLES))
    hst = f"{lang}.wikipedia.org"
    title = quote(pick(rng, WIKI_TITLES[lang]))
    kind = rng.random()
    if kind < 0.7:
        accept = 'application/json; charset=utf-8; profile="https://www.mediawiki.org/wiki/Specs/Summary/1.2.0"'
        path = f"/api/rest_v1/page/summary/{title}"
    else:
        accept = 'text/html; charset=utf-8; profile="https://www.mediawiki.org/wiki/Specs/HTML/2.1.0"'
        path = f"/api/rest_v1/page/html/{title}"
    c.add("GET", path, fetch(rng, hst, f"https://{hst}/wiki/{quote(pick(rng, WIKI_TITLES[lang]))}", accept=accept,
                             extra=[("Api-User-Agent", "Page Previews")] if kind < 0.7 else []))


# The 1x1 transparent GIF that Outlook's conversation calls name as their inline image placeholder.
PLACEHOLDER = "data:image/gif;base64," + base64.b64encode(
    b"GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\xff\xff\x00\x00\x00!\xf9\x04\x01\x00\x00\x00\x00,"
    b"\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x01D\x00;").decode()


def outlook(rng, c):
    """Outlook on the web opening a conversation: the item shape it asks for, its placeholder image a data URI."""
    hst = pick(rng, ["outlook.office.com", "outlook.live.com", "mail.contoso-example.com"])
    action = pick(rng, ["GetConversationItems", "GetConversationItems", "GetItem"])
    shape = {"__type": "ItemResponseShape:#Exchange", "BaseShape": "IdOnly", "FilterHtmlContent": True,
             "BlockExternalImagesIfSenderUntrusted": True, "BlockContentFromUnknownSenders": False,
             "AddBlankTargetToLinks": True, "ClientSupportsIrm": True, "InlineImageUrlTemplate": PLACEHOLDER,
             "FilterInlineSafetyTips": True, "MaximumBodySize": 2097152, "MaximumRecipientsToReturn": 20,
             "CssScopeClassName": f"rps_{hexid(rng, 4)}", "InlineImageUrlOnLoadTemplate": "InlineImageLoader.GetLoader().Load(this)",
             "InlineImageCustomDataTemplate": "{id}"}
    body = {"__type": f"{action}JsonRequest:#Exchange",
            "Header": {"__type": "JsonRequestHeaders:#Exchange", "RequestServerVersion": "V2018_01_08",
                       "TimeZoneContext": {"__type": "TimeZoneContext:#Exchange",
                                           "TimeZoneDefinition": {"__type": "TimeZoneDefinitionType:#Exchange",
                                                                  "Id": pick(rng, ["W. Europe Standard Time", "Israel Standard Time", "Pacific Standard Time"])}}},
            "Body": {"__type": f"{action}Request:#Exchange", "ItemShape": shape,
                     "ShapeName": "ItemPart", "SortOrder": "DateOrderDescending", "MaxItemsToReturn": 20,
                     "Conversations": [{"__type": "ConversationRequestType:#Exchange",
                                        "ConversationId": {"__type": "ItemId:#Exchange", "Id": _b64(rng, 64) + "="},
                                        "SyncState": ""}]}}
    c.add("POST", f"/owa/service.svc?action={action}&app=Mail&n={rng.randint(10, 120)}",
          fetch(rng, hst, f"https://{hst}/mail/inbox/id/{_b64(rng, 40)}", content_type="application/json; charset=utf-8",
                accept="*/*", extra=[("Action", action), ("X-Owa-Canary", _b64(rng, 70) + "."),
                                      ("X-Req-Source", "Mail"), ("X-Owa-Correlationid", uid(rng))]),
          jsonb(body))


JQL = ['project = {p} AND status in ("In Progress", "To Do") ORDER BY updated DESC',
       'filter = "My open bugs" AND duedate <= {n}d', 'assignee = currentUser() AND resolution = Unresolved',
       'project = {p} AND created >= -{n}w ORDER BY priority DESC, created ASC', 'labels in (frontend, "tech-debt") AND sprint in openSprints()',
       'text ~ "select menu" AND project = {p}', 'reporter = currentUser() AND updated >= startOfDay(-{n})']
CQL = ['label in ("onboarding","how-to") AND type=page', 'space = "{p}" AND type = blogpost ORDER BY created DESC',
       'title ~ "release notes" AND lastmodified >= now("-{n}w")', 'text ~ "drop table" AND space = "{p}"',
       'type = page AND creator = currentUser() AND created > now("-{n}d")']


def atlassian(rng, c):
    """Jira's issue navigator and Confluence's search, their query languages in the query string."""
    hst = f"{pick(rng, ['acme', 'hofmann-it', 'northwind', 'casa-lucia'])}.atlassian.net"
    fill = {"p": pick(rng, ["WEB", "OPS", "PM", "MOB"]), "n": str(rng.randint(1, 14))}
    if rng.random() < 0.5:
        q = pick(rng, JQL).format(**fill)
        c.add("GET", "/issues/?" + form([("jql", q)]), navigation(rng, hst, referer=f"https://{hst}/jira/your-work",
                                                                  site="same-origin"))
    else:
        q = pick(rng, CQL).format(**fill)
        c.add("GET", "/wiki/rest/api/search?" + form([("cql", q), ("limit", "25"), ("expand", "content.space")]),
              fetch(rng, hst, f"https://{hst}/wiki/search?text={quote(q[:12])}"))


HE_TITLES = ['הבורסה בתל אביב ננעלה בעליות; מדד ת"א 35 עלה ב-{p}%', 'צה"ל: {n} פצועים בתאונת אימונים',
             'מחירי הדירות עלו ב-{p}% בשנה האחרונה', 'ארה"ב ואיראן: השיחות נמשכות', 'אלקטרה בע"מ - {n}0% הנחה על מזגנים',
             'ריבית בנק ישראל נותרה {p}%; מדד המחירים עלה ב-{p}%', 'עו"ד כהן: "הפסיקה תשנה את השוק"',
             'ד"ר לוי מסביר: למה המשכנתא התייקרה ב-{p}%', 'משלוח חינם מעל {n}00 ש"ח']
HE_SEARCHES = ['מזגן אלקטרה 1.5 כ"ס', 'רח\' ז\'בוטינסקי רמת גן', 'טלוויזיה 55" 4K', 'ביטוח רכב מקיף - הנחה {n}%',
               'צה"ל מתגייסים', 'מבצע ש"ח {n}9.90', 'ספה תלת מושבית 20% הנחה']


def hebrew(rng, c):
    """A Hebrew news or shop page: its title in an analytics hit, a search from its form."""
    fill = {"p": f"{rng.randint(0, 9)}.{rng.randint(1, 9)}", "n": str(rng.randint(2, 9))}
    hst = pick(rng, ["www.ynet-example.co.il", "shop.motek-example.co.il", "news.walla-example.co.il"])
    page = f"https://{hst}/{pick(rng, ['article', 'digital/article', 'products'])}/{alnum(rng, 9).lower()}"
    if rng.random() < 0.6:
        title = pick(rng, HE_TITLES).format(**fill)
        hit = [("v", "2"), ("tid", f"G-{alnum(rng, 10).upper()}"), ("gtm", f"45je4{alnum(rng, 5).lower()}"),
               ("_p", str(ts(rng))), ("cid", f"{rng.randint(10**8, 10**10)}.{ts(rng) // 1000}"), ("ul", "he-il"),
               ("sr", pick(rng, ["1920x1080", "390x844", "1536x864"])), ("_s", str(rng.randint(1, 9))),
               ("sid", str(ts(rng) // 1000)), ("sct", str(rng.randint(1, 30))), ("seg", "1"), ("dl", page),
               ("dr", pick(rng, ["", "https://www.google.com/"])), ("dt", title), ("en", pick(rng, ["page_view", "scroll", "user_engagement"]))]
        c.add("POST", "/g/collect?" + form(hit), fetch(rng, "region1.google-analytics.com", page, accept="*/*",
                                                       mode="no-cors", lang="he-IL,he;q=0.9,en-US;q=0.8,en;q=0.7"))
    else:
        q = pick(rng, HE_SEARCHES).format(**fill)
        c.add("GET", "/search?" + form([("q", q)]), navigation(rng, hst, referer=page, site="same-origin",
                                                               lang="he-IL,he;q=0.9,en-US;q=0.8,en;q=0.7"))


NEWS = ["www.dailynews-example.com", "news.northwind.example", "www.sportsdesk.example.com", "realty.example.net"]


def us_ads(rng, c):
    """A US news page's ads: Google Ad Manager's call, a Prebid server auction, Amazon's bid, each with the IAB US
    Privacy string (`1---` where the CCPA does not apply) and the page's `usprivacy` cookie."""
    usp = pick(rng, ["1---", "1---", "1---", "1YNN", "1YNY", "1NNN"])
    page = f"https://{pick(rng, NEWS)}/{pick(rng, ['sports', 'politics', 'real-estate', 'health'])}/{alnum(rng, 10).lower()}"
    cookie = f"usprivacy={usp}; OptanonConsent=isGpcEnabled=0&datestamp={quote(iso_now(rng))}&version=202405.1.0&isIABGlobal=false&consentId={uid(rng)}&interactionCount=1"
    kind = rng.randrange(3)
    if kind == 0:
        slot = pick(rng, ["rail", "top", "mid1", "mid2", "footer"])
        params = [("pvsid", str(rng.randint(10**15, 10**16))), ("correlator", str(rng.randint(10**15, 10**16))),
                  ("eid", ",".join(str(rng.randint(31080000, 31089999)) for _ in range(3))), ("output", "ldjh"),
                  ("gdfp_req", "1"), ("vrg", "202411"), ("ptt", "17"), ("impl", "fifs"), ("us_privacy", usp),
                  ("iu_parts", f"6498,{pick(rng, ['news', 'sports'])},{slot}"), ("prev_iu_szs", "300x250|728x90"),
                  ("prev_scp", f"pos={slot}&hb_bidder={pick(rng, ['appnexus', 'rubicon', 'ix'])}&hb_pb={rng.randint(1, 90) / 10:.2f}"),
                  ("cust_params", f"section={pick(rng, ['sports', 'news'])}&zip={rng.randint(10000, 99999)}&page=article"),
                  ("url", page), ("dt", str(ts(rng)))]
        c.add("GET", "/gampad/ads?" + form(params), fetch(rng, "securepubads.g.doubleclick.net", page, accept="*/*",
                                                         cookie=cookie if rng.random() < 0.5 else None))
    elif kind == 1:
        body = {"id": uid(rng), "imp": [{"id": f"div-gpt-ad-{rng.randint(100, 999)}-0", "banner": {"format": [{"w": 300, "h": 250}]},
                                         "ext": {"prebid": {"bidder": {"appnexus": {"placementId": rng.randint(10**7, 10**8)}}}}}],
                "site": {"page": page, "domain": page.split("/")[2], "publisher": {"id": hexid(rng, 8)}},
                "device": {"w": 1920, "h": 1080, "language": "en", "dnt": 0},
                "regs": {"ext": {"us_privacy": usp, "gdpr": 0}}, "user": {"ext": {"eids": []}}, "tmax": 1000}
        c.add("POST", "/openrtb2/auction", fetch(rng, "prebid-server.example-ssp.com", page, content_type="text/plain",
                                                 accept="*/*"), jsonb(body))
    else:
        body = {"slots": [{"sd": f"div-gpt-ad-{rng.randint(100, 999)}-0", "s": ["300x250", "300x600"], "sn": "/6498/news"}],
                "pubid": uid(rng), "u": page, "us_privacy": usp, "pj": {"site": "news"}, "cb": str(rng.randint(1, 9))}
        c.add("GET", "/e/dtb/bid?" + form([("src", "3288"), ("pubid", body["pubid"]), ("u", page),
                                           ("pid", alnum(rng, 12)), ("cb", "0"), ("ws", "1920x969"), ("v", "24.1025.1606"),
                                           ("t", "2000"), ("slots", jsonb(body["slots"]).decode()), ("us_privacy", usp)]),
              fetch(rng, "aax.amazon-adsystem.com", page, accept="*/*"))


AIRPORTS = ["TLV", "VIE", "BCN", "JFK", "LHR", "CDG", "FCO", "ATH", "BKK", "FRA"]


def booking_engine(rng, c):
    """An airline's hosted booking engine: the next step of a flight search, sent with the search page as its
    Referer, whose link carries the site's settings as an XML document in `SO_GL`."""
    site = pick(rng, ["ELALLYDX", "AIRXPLNX", "SKYFLYNX"])
    office = f"{pick(rng, AIRPORTS)}{alnum(rng, 2).upper()}08AA"
    so_gl = ('<?xml version="1.0" encoding="iso-8859-1"?><SO_GL><GLOBAL_LIST mode="partial">'
             f'<NAME>SITE_LIST_OB_FEE_CODE_TO_EXEMPT</NAME><LIST_ELEMENT><CODE>T0{rng.randint(1, 9)}</CODE>'
             '<LIST_VALUE>0</LIST_VALUE></LIST_ELEMENT></GLOBAL_LIST><PARAMETER><NAME>SITE_QUEUE_OFFICE_ID</NAME>'
             f'<VALUE>{office}</VALUE></PARAMETER></SO_GL>')
    origin, dest = rng.sample(AIRPORTS, 2)
    search = [("TRIPFLOW", "YES"), ("EMBEDDED_TRANSACTION", "FlexPricerAvailability"), ("SITE", site),
              ("LANGUAGE", pick(rng, ["GB", "IW", "DE"])), ("ENCT", "1"), ("ENC", hexid(rng, 64).upper()),
              ("SO_SITE_OFFICE_ID", office), ("TRIP_TYPE", "R"), ("B_LOCATION_1", origin), ("E_LOCATION_1", dest),
              ("B_DATE_1", f"2025{rng.randint(1, 12):02d}{rng.randint(1, 28):02d}0000"),
              ("TRAVELLER_TYPE_1", "ADT"), ("CABIN", pick(rng, ["E", "B"])), ("SO_GL", so_gl)]
    hst = "booking.airline-example.com"
    referer = f"https://{hst}/plnext/{site}/Override.action?" + form(search)
    step = pick(rng, ["FareFamilyAvailability", "SeatMap", "TravellerInformation"])
    fields = [("SITE", site), ("LANGUAGE", "GB"), ("PAGE_TICKET", str(rng.randint(1, 9))), ("RECOMMENDATION_ID_1", str(rng.randint(0, 20))),
              ("FARE_FAMILY_1", pick(rng, ["ECOLITE", "ECOCLASSIC", "BUSFLEX"]))]
    c.add("POST", f"/plnext/{site}/{step}.action;jsessionid={alnum(rng, 32).upper()}",
          form_post(rng, hst, referer, "application/x-www-form-urlencoded"), form(fields))


SHOPS = ["https://www.shop-example.com/checkout", "https://store.example.co.uk/basket/payment",
         "https://www.moda-esempio.it/cassa", "https://www.beispiel-laden.de/kasse/zahlung", "https://www.example-outdoor.com/"]


def payment_frame(rng, c):
    """A payment provider's frame inside a shop's checkout: a navigation of an `iframe` (Sec-Fetch-Dest), cross-site,
    with the shop's page as its Referer and the provider's own session id in its query."""
    shop = pick(rng, SHOPS)
    fam = browser(rng)
    h = navigation(rng, "", referer=shop, site="cross-site", b=fam)
    h = [(k, "iframe" if k == "Sec-Fetch-Dest" else v) for k, v in h if k != "Sec-Fetch-User"]
    session = f"uid_{alnum(rng, 10)}_{alnum(rng, 10)}"
    kind = pick(rng, ["buttons", "klarna", "card"])
    if kind == "buttons":
        hst = "www.paypal.com"
        meta = base64.b64encode(('{"url":"https://www.paypal.com/sdk/js?client-id=%s&currency=EUR&components=buttons",'
                                 '"attrs":{"data-uid":"uid_%s"}}' % (_b64(rng, 40), alnum(rng, 20))).encode()).decode()
        query = [("style.label", "paypal"), ("style.layout", pick(rng, ["vertical", "horizontal"])),
                 ("style.color", "gold"), ("components.0", "buttons"), ("locale.country", pick(rng, ["DE", "NL", "GB"])),
                 ("sdkMeta", meta), ("clientID", _b64(rng, 40)), ("sessionID", session),
                 ("buttonSessionID", f"uid_{alnum(rng, 10)}_{alnum(rng, 10)}"), ("env", "production"),
                 ("currency", "EUR"), ("intent", "capture"), ("commit", "true")]
        path = "/smart/buttons?" + form(query)
    elif kind == "klarna":
        hst = "js.klarna.com"
        query = [("sessionId", uid(rng)), ("paymentMethodCategories", "pay_later,pay_over_time"),
                 ("locale", pick(rng, ["en-GB", "de-DE", "sv-SE"])), ("merchantUrl", "https://" + shop.split("/")[2])]
        path = "/eu/kp/legacy/main/v1/index.html?" + form(query)
    else:
        hst = "checkoutshopper-live.example-psp.com"
        query = [("originKey", "pub.v2." + hexid(rng, 32)), ("sessionId", hexid(rng, 24)), ("locale", "en-US")]
        path = "/checkoutshopper/securedfields/card.html?" + form(query)
    c.add("GET", path, [("Host", hst) if k == "Host" else (k, v) for k, v in h])


def field_selection(rng, c):
    """An API call whose `fields` parameter selects nested fields in braces, as Graph-style APIs take them."""
    kind = pick(rng, ["graph", "duolingo"])
    if kind == "graph":
        hst, referer = "graph.facebook.com", "https://www.facebook.com/"
        fields = pick(rng, ["id,name,picture{url,width,height}", "posts.limit(5){message,created_time,attachments{media}}",
                            "id,name,albums{name,count,cover_photo{source}}", "accounts{access_token,name,tasks}"])
        path = f"/v19.0/{rng.randint(10**14, 10**15)}?" + form([("fields", fields), ("access_token", "EAAB" + _b64(rng, 60))])
    else:
        hst, referer = "www.duolingo.com", "https://www.duolingo.com/learn"
        fields = pick(rng, ["users{id,name,picture,username,totalXp}", "courses{id,title,learningLanguage,xp}",
                            "streak,streakData{currentStreak{length,startDate}}"])
        path = "/2017-06-30/users?" + form([("username", pick(rng, ["maria.g", "o_brien", "kenji42"])), ("fields", fields)])
    c.add("GET", path, fetch(rng, hst, referer))


def restli_patch(rng, c):
    """A Rest.li partial update from LinkedIn's front end: a conversation marked read, a notification seen."""
    hst, referer = "www.linkedin.com", "https://www.linkedin.com/messaging/"
    profile = "ACoAA" + _b64(rng, 34)
    urn = f"urn:li:msg_conversation:(urn:li:fsd_profile:{profile},2-{_b64(rng, 40)}==)"
    field = pick(rng, [("read", True), ("starred", False), ("archived", True), ("muted", True)])
    body = {"entities": {urn: {"patch": {"$set": {field[0]: field[1]}}}}}
    csrf = f"ajax:{rng.randint(10**18, 10**19 - 1)}"
    h = fetch(rng, hst, referer, content_type="application/json", accept="application/vnd.linkedin.normalized+json+2.1",
              cookie=f'JSESSIONID="{csrf}"; lang=v=2&lang=en-us; li_at={_b64(rng, 150)}',
              extra=[("csrf-token", csrf), ("x-restli-protocol-version", "2.0.0"), ("x-li-lang", "en_US")])
    c.add("POST", "/voyager/api/voyagerMessagingDashMessengerConversations?ids=List(" + quote(urn, safe="") + ")",
          h, jsonb(body))


def quoted_state_cookie(rng, c):
    """A shop's page, asked for with its page state as a JavaScript object literal in a quoted cookie."""
    hst = "www.shop-example.co.kr"
    state = pick(rng, ["{'search':[{'reqUrl':'/search.pang','isValid':true}]}", "{'recent':['%s','%s'],'v':2}" % (
        rng.randint(10**8, 10**9), rng.randint(10**8, 10**9)), "{'cart':{'count':%d,'ts':%d}}" % (rng.randint(0, 9), ts(rng))])
    cookie = f'PCID={rng.randint(10**19, 10**20 - 1)}; FUN="{state}"; sid={hexid(rng, 32)}'
    q = pick(rng, ["노트북", "무선 이어폰", "생수 2L", "a4 용지"])
    c.add("GET", "/np/search?" + form([("component", ""), ("q", q), ("channel", "user")]),
          navigation(rng, hst, referer=f"https://{hst}/", cookie=cookie, site="same-origin"))


def teams(rng, c):
    """Microsoft Teams' chat service, asked with the bare `Accept: json` its web client sends."""
    hst = pick(rng, ["teams.microsoft.com", "emea.ng.msg.teams.microsoft.com", "amer.ng.msg.teams.microsoft.com"])
    ref = "https://teams.microsoft.com/v2/"
    auth = "Bearer " + _b64(rng, 900)
    extra = [("Authentication", f"skypetoken={_b64(rng, 600)}"), ("ClientInfo", "os=windows; osVer=NT 10.0; proc=x86; lcid=en-us; "
             "deviceType=1; country=us; clientName=skypeteams; clientVer=1415/24080616305")]
    if rng.random() < 0.5:
        c.add("GET", f"/api/chatsvc/{pick(rng, ['amer', 'emea'])}/v1/users/ME/conversations?view=msnp24Equivalent%7CsupportsMessageProperties"
                     f"&pageSize=100&startTime={ts(rng) * 1000}",
              fetch(rng, hst, ref, accept="json", auth=auth, extra=extra))
    else:
        body = {"content": f"<p>{pick(rng, ['Sounds good 👍', 'Can you check the deck before 3pm?', 'Danke, passt so!', 'On it — ETA 10 min'])}</p>",
                "messagetype": "RichText/Html", "contenttype": "text", "clientmessageid": str(rng.randint(10 ** 18, 10 ** 19)),
                "imdisplayname": pick(rng, ["Siobhán O'Neill", "Jürgen Weiß", "Priya Natarajan"]), "properties": {"importance": "", "subject": ""}}
        c.add("POST", f"/api/chatsvc/{pick(rng, ['amer', 'emea'])}/v1/users/ME/conversations/19%3A{hexid(rng, 32)}%40thread.v2/messages",
              fetch(rng, hst, ref, accept="json", content_type="application/json", auth=auth, extra=extra), jsonb(body))


def office_file_sync(rng, c):
    """Word's and OneNote's file sync on the web (MS-FSSHTTP): a SOAP request with MTOM, its body multipart/related
    with the root part's type in `type` and `start-info`, the XML part then the binary part."""
    hst = pick(rng, ["word-edit.officeapps.live.com", "onenote.officeapps.live.com", "euc-word-edit.officeapps.live.com"])
    boundary = f"urn:uuid:{uid(rng)}"
    start = f"<{uid(rng)}@tempuri.org>"
    soap = ('<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><RequestVersion Version="2" MinorVersion="2" '
            'xmlns="http://schemas.microsoft.com/sharepoint/soap/"/><RequestCollection CorrelationId="{%s}" '
            'xmlns="http://schemas.microsoft.com/sharepoint/soap/"><Request Url="https://contoso-my.sharepoint.com/personal/%s/Documents/%s" '
            'RequestToken="1"><SubRequest Type="Cell" SubRequestToken="1"><SubRequestData BinaryDataSize="%d">'
            '<xop:Include href="cid:%s" xmlns:xop="http://www.w3.org/2004/08/xop/include"/></SubRequestData></SubRequest></Request>'
            '</RequestCollection></s:Body></s:Envelope>') % (uid(rng).upper(), pick(rng, ["j_doe_contoso_com", "m_ozturk_contoso_com"]),
                                                             quote(pick(rng, ["Quarterly report.docx", "Notes/Meeting 2024-05-14.one"])),
                                                             rng.randint(100, 4000), uid(rng))
    body = (f"--{boundary}\r\nContent-ID: {start}\r\nContent-Transfer-Encoding: 8bit\r\n"
            f"Content-Type: application/xop+xml;charset=utf-8;type=\"text/xml; charset=utf-8\"\r\n\r\n{soap}\r\n"
            f"--{boundary}\r\nContent-ID: <{uid(rng)}>\r\nContent-Transfer-Encoding: binary\r\nContent-Type: application/octet-stream\r\n\r\n").encode()
    body += rng.randbytes(rng.randint(100, 3000)) + f"\r\n--{boundary}--\r\n".encode()
    ctype = (f'multipart/related; type="application/xop+xml"; boundary="{boundary}"; start="{start}"; '
             'start-info="text/xml; charset=utf-8"')
    c.add("POST", f"/o/{pick(rng, ['wordeditorframe.aspx', 'OneNote.ashx'])}?usid={uid(rng)}&build=16.0.18516.41007&waccluster=WEU1",
          fetch(rng, hst, f"https://{hst}/", content_type=ctype, accept="*/*",
                extra=[("SOAPAction", '"http://schemas.microsoft.com/sharepoint/soap/ICellStorages/ExecuteCellStorageRequest"')]), body)


def evernote(rng, c):
    """Evernote's web client speaking Apache Thrift's binary protocol to its note store: a call's name, its
    sequence id, then its struct (a note's title and its ENML content, a tag's name, a search)."""
    def string(field, value):
        data = value.encode()
        return bytes([11]) + field.to_bytes(2, "big") + len(data).to_bytes(4, "big") + data
    call = pick(rng, ["findNotesMetadata", "createTag", "getFilteredSyncChunk", "createNote"])
    header = b"\x80\x01\x00\x01" + len(call).to_bytes(4, "big") + call.encode() + rng.randint(1, 9999).to_bytes(4, "big")
    token = string(1, f"S=s{rng.randint(1, 600)}:U={hexid(rng, 6)}:E={hexid(rng, 11)}:C={hexid(rng, 11)}:P=1cd:A=en-web:V=2:H={hexid(rng, 32)}")
    if call == "createNote":
        enml = ('<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n<!DOCTYPE en-note SYSTEM "http://xml.evernote.com/pub/enml2.dtd">\n'
                f"<en-note><div>{text.sentence(rng, pick(rng, text.LANGUAGES))}</div></en-note>")
        struct = b"\x0c\x00\x02" + string(2, text.title(rng)) + string(3, enml) + b"\x00"
    elif call == "createTag":
        struct = b"\x0c\x00\x02" + string(2, pick(rng, ["Rezepte", "tax 2024", "travel ✈", "à lire"])) + b"\x00"
    else:
        struct = b"\x0c\x00\x02" + string(3, pick(rng, ["tag:work intitle:budget", "created:day-7", "\"board meeting\""])) + b"\x00"
    body = header + token + struct + b"\x00"
    c.add("POST", f"/shard/s{rng.randint(1, 600)}/notestore",
          fetch(rng, "www.evernote.com", "https://www.evernote.com/client/web", content_type="application/x-thrift",
                accept="application/x-thrift"), body)


def bluesky(rng, c):
    """Bluesky's web client writing to its PDS over AT Protocol's XRPC: records and their parts name their
    schema's type in `$type` (a post with a link facet, an embedded image, a like, a follow)."""
    did = "did:plc:" + alnum(rng, 24, string.ascii_lowercase + "234567")
    now = iso_now(rng) + ".000Z"
    kind = pick(rng, ["post", "like", "follow"])
    if kind == "post":
        words = pick(rng, ["New blog post is up: ", "Ich habe das hier gefunden: ", "Enfin publié ! ", "Thread on DB indexes 🧵 "])
        link = f"https://{pick(rng, ['example.blog', 'notes.example.org', 'dev.example.io'])}/{pick(rng, ['why-we-moved-to-postgres', 'mein-erstes-jahr', 'notes-on-rust-async', 'la-recette-du-pain'])}"
        post = words + link
        start = len(words.encode())
        record = {"$type": "app.bsky.feed.post", "text": post, "createdAt": now, "langs": [pick(rng, ["en", "de", "fr"])],
                  "facets": [{"index": {"byteStart": start, "byteEnd": start + len(link.encode())},
                              "features": [{"$type": "app.bsky.richtext.facet#link", "uri": link}]}]}
        if rng.random() < 0.5:
            record["embed"] = {"$type": "app.bsky.embed.images", "images": [{"alt": text.sentence(rng, "en"), "image": {
                "$type": "blob", "ref": {"$link": "bafkrei" + alnum(rng, 52, string.ascii_lowercase + "234567")},
                "mimeType": "image/jpeg", "size": rng.randint(20000, 900000)}}]}
        collection = "app.bsky.feed.post"
    elif kind == "like":
        subject = f"at://did:plc:{alnum(rng, 24, string.ascii_lowercase + '234567')}/app.bsky.feed.post/{alnum(rng, 13, string.ascii_lowercase + '234567')}"
        record = {"$type": "app.bsky.feed.like", "subject": {"uri": subject, "cid": "bafyrei" + alnum(rng, 52, string.ascii_lowercase + "234567")},
                  "createdAt": now}
        collection = "app.bsky.feed.like"
    else:
        record = {"$type": "app.bsky.graph.follow", "subject": "did:plc:" + alnum(rng, 24, string.ascii_lowercase + "234567"), "createdAt": now}
        collection = "app.bsky.graph.follow"
    body = {"collection": collection, "repo": did, "record": record}
    hst = pick(rng, ["morel.us-east.host.bsky.network", "shiitake.us-east.host.bsky.network", "amanita.us-east.host.bsky.network"])
    c.add("POST", "/xrpc/com.atproto.repo.createRecord",
          fetch(rng, hst, "https://bsky.app/", content_type="application/json", accept="*/*", auth="Bearer " + _b64(rng, 400),
                extra=[("atproto-accept-labelers", "did:plc:ar7c4by46qjdydhdevvrndac;redact")]), jsonb(body))


# Wikidata items and properties the example queries of its query service name.
WIKIDATA_CLASSES = [("Q5", "human"), ("Q515", "city"), ("Q11424", "film"), ("Q7889", "video game"), ("Q3305213", "painting"),
                    ("Q16521", "taxon"), ("Q571", "book")]


def wikidata_query(rng, c):
    """A SPARQL query as Wikidata's query service sends it: the UI's own view comment, line breaks and indents, the
    service's predefined prefixes, the label service, a filter, grouping and ordering."""
    cls, name = pick(rng, WIKIDATA_CLASSES)
    lang = pick(rng, ["en", "de", "fr", "ja", "pt", "he"])
    view = pick(rng, ["", "#defaultView:BubbleChart\n", "#defaultView:Map\n", "# " + name + "s by country\n"])
    if rng.random() < 0.5:
        query = (f"{view}SELECT ?country ?countryLabel (COUNT(?item) AS ?count) WHERE {{\n"
                 f"  ?item wdt:P31 wd:{cls}; wdt:P17 ?country.\n"
                 f"  SERVICE wikibase:label {{ bd:serviceParam wikibase:language \"[AUTO_LANGUAGE],{lang}\". }}\n"
                 f"}}\nGROUP BY ?country ?countryLabel\nORDER BY DESC(?count)\nLIMIT {pick(rng, [10, 20, 100])}")
    else:
        query = (f"{view}SELECT ?item ?itemLabel ?date WHERE {{\n"
                 f"  ?item wdt:P31/wdt:P279* wd:{cls} .\n"
                 f"  OPTIONAL {{ ?item wdt:P577 ?date . }}\n"
                 f"  FILTER(YEAR(?date) >= {rng.randint(1950, 2020)} && LANG(?itemLabel) = \"{lang}\")\n"
                 f"  SERVICE wikibase:label {{ bd:serviceParam wikibase:language \"{lang}\". }}\n}}")
    hst = "query.wikidata.org"
    accept = "application/sparql-results+json"
    if len(query) < 300 or rng.random() < 0.5:
        c.add("GET", "/sparql?" + form([("query", query)]), fetch(rng, hst, f"https://{hst}/", accept=accept))
    else:
        c.add("POST", "/sparql", fetch(rng, hst, f"https://{hst}/", accept=accept,
                                       content_type="application/x-www-form-urlencoded; charset=UTF-8"), form([("query", query)]))


def cloud_storage_calls(rng, c):
    """Google Drive's web client (a batch posted as a simple request with its content type in `$ct`, a request line
    per part; a partial response's field selection in `fields`), Dropbox's upload with its arguments as ASCII-only
    JSON in `Dropbox-API-Arg`, SharePoint's REST call with a parameter alias holding a quoted GUID, and Bumble's web
    API, which labels its JSON bodies `json`."""
    kind = rng.randrange(5)
    key = "AIza" + "".join(rng.choice(B64[:62]) for _ in range(35))
    if kind == 0:
        boundary = "=====" + "".join(rng.choice(string.ascii_lowercase + string.digits) for _ in range(12)) + "====="
        parts = "".join(f"--{boundary}\r\nContent-Type: application/http\r\nContent-ID: <{hexid(rng, 8)}+{i}>\r\n\r\n"
                        f"PATCH /drive/v2internal/files/{alnum(rng, 33)}?supportsTeamDrives=true HTTP/1.1\r\n"
                        f"Content-Type: application/json\r\n\r\n{{\"title\":\"{text.title(rng)}\"}}\r\n" for i in range(rng.randint(1, 3)))
        body = parts + f"--{boundary}--"
        c.add("POST", "/batch/drive/v2internal?" + form([("$ct", f'multipart/mixed; boundary="{boundary}"'), ("key", key)]),
              fetch(rng, "clients6.google.com", "https://drive.google.com/", content_type="text/plain; charset=UTF-8", accept="*/*"), body)
    elif kind == 1:
        fields = pick(rng, ["nextPageToken,newStartPageToken,changes(fileId,removed,time,file(id,name,mimeType,parents))",
                            "files(id,name,mimeType,modifiedTime,owners(displayName,emailAddress)),nextPageToken",
                            "items(id,snippet/title,snippet/publishedAt),pageInfo"])
        c.add("GET", "/drive/v3/changes?" + form([("pageToken", str(rng.randint(1000, 99999))), ("fields", fields), ("key", key)]),
              fetch(rng, "content.googleapis.com", "https://drive.google.com/", accept="*/*"))
    elif kind == 2:
        name = pick(rng, ["\\u010ce\\u0161tina \\u2013 \\u00fakoly", "Rapport \\u2013 f\\u00e9vrier", "Notes \\u2014 Q3"])
        arg = '{"path":"/' + name + '/IMG_' + str(rng.randint(1000, 9999)) + '.jpg","mode":"add","autorename":true}'
        c.add("POST", "/2/files/upload", [("Host", "content.dropboxapi.com"), ("User-Agent", "OfficialDropboxPythonSDKv2/12.0.2"),
                                          ("Authorization", "Bearer sl." + alnum(rng, 60)), ("Dropbox-API-Arg", arg),
                                          ("Content-Type", "application/octet-stream")], bytes(rng.randrange(256) for _ in range(64)))
    elif kind == 3:
        guid = f"{hexid(rng, 8)}-{hexid(rng, 4)}-{hexid(rng, 4)}-{hexid(rng, 4)}-{hexid(rng, 12)}"
        c.add("GET", "/sites/team/_api/web/lists(@a1)/items?" + form([("@a1", "'{" + guid + "}'"), ("$top", "100")]),
              fetch(rng, "contoso.sharepoint.com", "https://contoso.sharepoint.com/sites/team", accept="application/json;odata=verbose"))
    else:
        body = {"$gpb": "badoo.bma.BadooMessage", "body": [{"message_type": 104, "server_send_chat_message": {
            "chat_instance_id": alnum(rng, 12), "message": text.title(rng), "message_type": 1}}], "message_id": rng.randint(1, 99),
            "message_type": 104, "version": 1, "is_background": False}
        c.add("POST", "/mwebapi.phtml?SERVER_SEND_CHAT_MESSAGE", fetch(rng, "bumble.com", "https://bumble.com/app", content_type="json",
                                                                        accept="*/*", extra=[("X-Pingback", hexid(rng, 32)),
                                                                                             ("x-desktop-web", "1"), ("X-Message-type", "104")]), jsonb(body))


def iso_now(rng):
    return f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00"


def build(n=1000, seed=0x1A65E):
    rng = random.Random(seed)
    c = Corpus("large-sites")
    makers = [(3, youtube), (2, pinterest), (2, wikipedia), (2, outlook), (2, atlassian), (3, hebrew), (2, us_ads), (1, booking_engine), (1, payment_frame), (1, field_selection), (1, restli_patch),
              (1, quoted_state_cookie), (1, teams), (1, office_file_sync), (1, evernote), (1, bluesky), (1, wikidata_query), (1, cloud_storage_calls)]
    for _ in range(n):
        weighted(rng, makers)(rng, c)
    return c
