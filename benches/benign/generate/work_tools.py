"""work_tools.py: the tools of office, research and home work, whose requests carry their own languages and formats.
Jira's issue navigator and REST search with whole JQL queries (history operators `WAS ... ON`, `CHANGED TO ...
DURING (...)`, functions, relative dates, custom fields `cf[10020]`, quoted phrases with escaped quotes), the issue
list's address as the next request's Referer, `/rest/api/3/jql/parse` with an array of queries; JupyterLab saving
notebooks through the contents API (nbformat cells of Python and R: pandas, statsmodels formulas, SQL strings,
`!pip` lines) and opening kernel channels (a WebSocket handshake with `session_id`); Git's smart HTTP protocol
(`info/refs`, `git-upload-pack` negotiation in pkt-lines, `git-receive-pack` with a pack); Home Assistant's front
end signing in on the LAN (OAuth with its own address as `client_id`, IndieAuth style);
Zapier zap steps mapping fields as `{{step__field}}`; spreadsheet edits (Microsoft Graph workbook ranges with
formulas naming sheets in quotes and Excel table references, Google Sheets' `QUERY` with its own query language);
translation platforms' strings in ICU MessageFormat with react-intl's rich-text tags (`<link>...</link>`, `<b>`);
a search page remembering its settings in a cookie quoted as Python's `http.cookies` quotes one (`\\"`, `\\054`);
SDKs naming their runtime in the User-Agent (`ZulipPython/0.9.0 (Linux; Ubuntu 22.04; Python 3.10.12)`); headless
CMS entries whose rich-text nodes hold headings such as `Update (Jan 14):`; and Zimbra's web client posting JSON
with its SOAP media type (`SendMsgRequest` with a mail's text and HTML parts); and PubMed's and a scholarly search
engine's boolean queries (field tags `[tiab]`, `[mh]`, wildcards, phrases, `AND`/`OR`/`NOT`, parentheses); Scratch
saving projects (blocks keyed by Blockly's generated ids, twenty characters of letters, digits and punctuation) and
costumes drawn in its editor (SVG), and a Blockly lesson posting its program as Blockly's XML (`<xml><block ...>`);
meeting transcripts uploaded as WebVTT (`<v Name>` voice tags); a wiki's visual editor saving a page as the whole
HTML document its parser made (a `<base>` of the wiki's own address, categories and RDFa relations as
`<link rel="mw:...">`); and a site builder saving the head code of a site's pages
(`head_html`: font preconnects, a style sheet of its own, JSON-LD structured data).

Where the shapes come from: Atlassian's JQL reference and REST API v2/v3, the Jupyter Server contents and kernels
REST API and nbformat 4, Git's http-protocol and pack-protocol documentation, Home Assistant's authentication API
and IndieAuth, Zapier's field mapping syntax, Microsoft Graph's workbook API and Excel's structured references,
Google Sheets' QUERY function, ICU MessageFormat and react-intl's rich text formatting, Python's `http.cookies`,
the SDKs' own User-Agent formats, Contentful's Rich Text model, Zimbra's JSON SOAP, PubMed's search field tags and E-utilities, Scratch 3's project format and Blockly's ids, and
WebVTT, MediaWiki's VisualEditor API and Parsoid's HTML, schema.org's JSON-LD; written from that knowledge,
every value generated here.
"""
import random
import struct
import zlib
from urllib.parse import quote

from . import text
from .common import Corpus, alnum, browser, fetch, form, hexid, jsonb, navigation, pick, uid, weighted

PROJECTS = ["OPS", "WEB", "DATA", "MOB", "SEC", "INFRA", "SUP", "FIN"]
STATUSES = ['"In Progress"', '"To Do"', "Done", '"Code Review"', "Blocked", '"Waiting for customer"', "Reopened"]
PHRASES = ["SSO / SAML", "2FA code not received", "payment failed", "N+1 query", "time-out on export", "page blank (iOS)",
           "can't log in", "facture en double", "Zahlung fehlgeschlagen", "ошибка оплаты", "支払いエラー"]


def jql(rng):
    """A JQL query as people write or build it in the issue navigator."""
    p = pick(rng, PROJECTS)
    clauses = [
        f"project = {p}",
        f"project in ({', '.join(rng.sample(PROJECTS, 3))})",
        f"status in ({', '.join(rng.sample(STATUSES, 3))})",
        f"status was {pick(rng, STATUSES)} ON \"2024-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}\"",
        f"status changed to Done during (startOfWeek(-{rng.randint(1, 4)}), now())",
        f"assignee was currentUser()",
        f"created >= -{rng.randint(1, 30)}{pick(rng, 'dw')}",
        f"cf[100{rng.randint(10, 99)}] = {rng.randint(1, 400)}",
        f"\"Story Points\" > {rng.randint(1, 13)}",
        f"\"Epic Link\" = {p}-{rng.randint(1, 900)}",
        f"text ~ \"\\\"{pick(rng, PHRASES)}\\\"\"",
        f"summary ~ \"{pick(rng, PHRASES)}\"",
        "attachments IS NOT EMPTY",
        "resolution = Unresolved",
        f"fixVersion in unreleasedVersions()",
        f"issueFunction in linkedIssuesOf(\"project = {p}\", \"blocks\")",
        f"labels in ({pick(rng, ['ux', 'tech-debt', 'backend', 'p1'])})",
        f"reporter in membersOf(\"{pick(rng, ['jira-users', 'support-team', 'Équipe Paris'])}\")",
    ]
    query = f" {pick(rng, ['AND', 'AND', 'OR'])} ".join(rng.sample(clauses, rng.randint(2, 5)))
    if rng.random() < 0.3:
        query = f"({query}) AND {pick(rng, clauses)}"
    if rng.random() < 0.6:
        query += f" ORDER BY {pick(rng, ['created DESC', 'priority DESC, updated', 'duedate ASC', 'rank'])}"
    return query


def jira(rng, c):
    hst = f"{pick(rng, ['acme', 'globex-eng', 'meridian-health', 'norrland-energi'])}.atlassian.net"
    q = jql(rng)
    issues = f"https://{hst}/issues/?" + form([("jql", q)])
    kind = rng.randrange(4)
    if kind == 0:
        c.add("GET", "/issues/?" + form([("jql", q)]), navigation(rng, hst, referer=f"https://{hst}/jira/your-work", site="same-origin"))
    elif kind == 1:
        c.add("GET", "/rest/api/3/search?" + form([("jql", q), ("startAt", "0"), ("maxResults", "50")]), fetch(rng, hst, issues))
    elif kind == 2:
        c.add("POST", "/rest/api/3/search/jql", fetch(rng, hst, issues, content_type="application/json"),
              jsonb({"jql": q, "fields": ["summary", "status", "assignee"], "maxResults": 50}))
    else:
        c.add("POST", "/rest/api/3/jql/parse?validation=strict", fetch(rng, hst, issues, content_type="application/json"),
              jsonb({"queries": [jql(rng) for _ in range(rng.randint(1, 3))]}))


CELLS = [
    "import pandas as pd\ndf = pd.read_csv('data/survey_{n}.csv', sep=';', encoding='latin-1')\ndf.head()",
    "model = smf.ols('log(wage) ~ educ + exper + I(exper**2)', data=df).fit(cov_type='HC3')\nprint(model.summary())",
    "fit <- lmer(score ~ time + (1 | subject), data = df)\nsummary(fit)",
    "query = \"\"\"\nSELECT region, count(*) AS n\nFROM orders\nWHERE created_at >= '2024-0{n}-01'\nGROUP BY region\n\"\"\"\n"
    "pd.read_sql(query, con)",
    "!pip install -q statsmodels\n!ls data/ | head",
    "df = df[df['age'].between(18, 65) & (df['country'] != 'N/A')]\nprint(len(df))",
    "with open('results.json', 'w') as f:\n    json.dump({{'acc': acc, 'f1': f1}}, f, indent=2)",
]


def jupyter(rng, c):
    hst = pick(rng, ["jupyter.example.edu", "hub.lab.example.org", "notebooks.example.com"])
    user = pick(rng, ["msmith", "a.nowak", "lgarcia7", "omar.haddad", "student42"])
    cookie = f"_xsrf=2|{hexid(rng, 8)}|{hexid(rng, 32)}|{rng.randint(1700000000, 1740000000)}"
    if rng.random() < 0.3:
        h = [("Host", hst), ("Connection", "Upgrade"), ("Pragma", "no-cache"), ("Cache-Control", "no-cache"),
             ("User-Agent", browser(rng)[1]),
             ("Upgrade", "websocket"), ("Origin", f"https://{hst}"), ("Sec-WebSocket-Version", "13"),
             ("Accept-Encoding", "gzip, deflate, br, zstd"), ("Cookie", cookie), ("Sec-WebSocket-Key", alnum(rng, 22) + "=="),
             ("Sec-WebSocket-Protocol", "v1.kernel.websocket.jupyter.org")]
        c.add("GET", f"/user/{user}/api/kernels/{uid(rng)}/channels?session_id={uid(rng)}", h)
        return
    cells = []
    for _ in range(rng.randint(2, 6)):
        if rng.random() < 0.25:
            cells.append({"cell_type": "markdown", "id": uid(rng), "metadata": {},
                          "source": f"## {text.title(rng)}\n{text.sentence(rng)} $\\beta_1$"})
        else:
            cells.append({"cell_type": "code", "execution_count": pick(rng, [None, rng.randint(1, 60)]), "id": uid(rng),
                          "metadata": {}, "outputs": [], "source": pick(rng, CELLS).format(n=rng.randint(1, 9))})
    doc = {"type": "notebook", "format": "json", "content": {
        "cells": cells, "metadata": {"kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}},
        "nbformat": 4, "nbformat_minor": 5}}
    name = quote(pick(rng, ["analysis.ipynb", "week3/lab03_regression.ipynb", "thesis/ch4 (v2).ipynb", "Übung_5.ipynb"]))
    c.add("PUT", f"/user/{user}/api/contents/{name}",
          fetch(rng, hst, f"https://{hst}/user/{user}/lab", content_type="text/plain;charset=UTF-8",
                extra=[("X-XSRFToken", hexid(rng, 32))], cookie=cookie), jsonb(doc))


def pkt(line):
    """A Git pkt-line: four hex digits of length, then the data."""
    data = line.encode()
    return f"{len(data) + 4:04x}".encode() + data


def git(rng, c):
    hst = pick(rng, ["git.example.org", "gitlab.example.com", "code.example.net"])
    repo = f"/{pick(rng, ['platform', 'web', 'infra'])}/{pick(rng, ['api', 'frontend', 'terraform', 'docs'])}.git"
    ua = f"git/2.{rng.randint(39, 47)}.{rng.randint(0, 3)}"
    auth = ("Authorization", "Basic " + alnum(rng, 40) + "=")
    kind = rng.randrange(3)
    if kind == 0:
        service = pick(rng, ["git-upload-pack", "git-receive-pack"])
        c.add("GET", f"{repo}/info/refs?service={service}", [("Host", hst), ("User-Agent", ua), ("Accept", "*/*"),
                                                            ("Accept-Encoding", "deflate, gzip, br, zstd"), auth,
                                                            ("Git-Protocol", "version=2"), ("Pragma", "no-cache")])
    elif kind == 1:
        body = pkt("command=fetch") + pkt(f"agent={ua}") + pkt("object-format=sha1") + b"0001" + pkt("thin-pack\n") + \
            pkt("ofs-delta\n") + b"".join(pkt(f"want {hexid(rng, 40)}\n") for _ in range(rng.randint(1, 4))) + \
            b"".join(pkt(f"have {hexid(rng, 40)}\n") for _ in range(rng.randint(0, 6))) + pkt("done\n") + b"0000"
        c.add("POST", f"{repo}/git-upload-pack", [("Host", hst), ("User-Agent", ua), auth, ("Accept-Encoding", "deflate, gzip, br, zstd"),
                                                  ("Content-Type", "application/x-git-upload-pack-request"),
                                                  ("Accept", "application/x-git-upload-pack-result"), ("Git-Protocol", "version=2")], body)
    else:
        old, new = hexid(rng, 40), hexid(rng, 40)
        branch = pick(rng, ["main", "feature/checkout-v2", "fix/typo-in-readme"])
        objects = bytes(rng.randrange(256) for _ in range(rng.randint(200, 2000)))
        pack = b"PACK" + struct.pack(">II", 2, rng.randint(1, 9)) + zlib.compress(objects) + bytes(rng.randrange(256) for _ in range(20))
        body = pkt(f"{old} {new} refs/heads/{branch}\x00 report-status side-band-64k agent={ua}") + b"0000" + pack
        c.add("POST", f"{repo}/git-receive-pack", [("Host", hst), ("User-Agent", ua), auth, ("Accept-Encoding", "deflate, gzip, br, zstd"),
                                                   ("Content-Type", "application/x-git-receive-pack-request"),
                                                   ("Accept", "application/x-git-receive-pack-result")], body)


def lan(headers, base):
    """Headers of a page served over plain HTTP at `base`: its Origin is that address."""
    return [(k, base if k == "Origin" else v) for k, v in headers]


def home_assistant(rng, c):
    ip = f"192.168.{rng.randint(0, 3)}.{rng.randint(2, 250)}" if rng.random() < 0.7 else f"10.0.{rng.randint(0, 9)}.{rng.randint(2, 250)}"
    base = f"http://{ip}:8123"
    hst = f"{ip}:8123"
    client = base + "/"
    kind = rng.randrange(3)
    if kind == 0:
        c.add("GET", "/auth/authorize?" + form([("response_type", "code"), ("redirect_uri", base + "/?auth_callback=1"),
                                                 ("client_id", client), ("state", alnum(rng, 40))]),
              navigation(rng, hst, referer=base + "/", site="same-origin"))
    elif kind == 1:
        c.add("POST", "/auth/login_flow", lan(fetch(rng, hst, base + "/auth/authorize", content_type="text/plain;charset=UTF-8"), base),
              jsonb({"client_id": client, "handler": ["homeassistant", None], "redirect_uri": base + "/?auth_callback=1"}))
    else:
        c.add("POST", "/auth/token", lan(fetch(rng, hst, base + "/?auth_callback=1", content_type="application/x-www-form-urlencoded"), base),
              form([("grant_type", "authorization_code"), ("code", hexid(rng, 32)), ("client_id", client)]))


def zapier(rng, c):
    step = rng.randint(100000000, 999999999)
    fields = {"to": [f"{{{{{step}__email}}}}"], "subject": f"New order {{{{{step}__order_number}}}}",
              "body": f"Hi {{{{{step}__first_name}}}},\n\n{text.sentence(rng)}\n{{{{{step}__line_items__title}}}}",
              "phone": f"{{{{{step}__phone}}}}"}
    body = {"title": text.title(rng), "steps": [{"action": "gmail_send", "inputs": fields}]}
    c.add("POST", "/v2/zaps", fetch(rng, "api.zapier.com", "https://zapier.com/editor/" + str(step), content_type="application/json"),
          jsonb(body))


FORMULAS = ["=IFERROR(VLOOKUP([@SKU],Products!A:C,3,FALSE),\"-\")", "=SUM('{s}'!B2:B{n})", "=SUMIFS(Table1[Amount],Table1[Region],\"{r}\")",
            "=IF([@Qty]>0,[@Qty]*[@Price],\"\")", "=AVERAGE('{s}'!C2:C{n})", "=COUNTIF(A:A,\"<>\")"]
QUERIES = ["=QUERY(A:G,\"select B, count(A) where A is not null group by B order by count(A) desc\")",
           "=QUERY(A:G,\"select * where B contains '{r}' and G is not null\")",
           "=QUERY('{s}'!A1:E,\"select A, sum(E) where C = '{r}' group by A label sum(E) 'Total'\")"]


def spreadsheets(rng, c):
    fill = {"s": pick(rng, ["Q1 Sales", "Données 2024", "Team A"]), "n": rng.randint(10, 400), "r": pick(rng, ["North", "Süd", "O'Hare"])}
    if rng.random() < 0.5:
        formula = pick(rng, FORMULAS).format(**fill)
        c.add("PATCH", f"/v1.0/me/drive/items/{alnum(rng, 34).upper()}/workbook/worksheets/{quote(fill['s'])}/range(address='D{rng.randint(2, 99)}')",
              fetch(rng, "graph.microsoft.com", "https://excel.cloud.microsoft/", content_type="application/json",
                    auth="Bearer eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9." + alnum(rng, 120)), jsonb({"formulas": [[formula]]}))
    else:
        formula = pick(rng, QUERIES).format(**fill)
        c.add("POST", f"/v4/spreadsheets/{alnum(rng, 44)}:batchUpdate",
              fetch(rng, "sheets.googleapis.com", "https://docs.google.com/", content_type="application/json"),
              jsonb({"requests": [{"updateCells": {"rows": [{"values": [{"userEnteredValue": {"formulaValue": formula}}]}],
                                                    "fields": "userEnteredValue", "start": {"sheetId": 0, "rowIndex": 1, "columnIndex": 7}}}]}))


MESSAGES = ["Your free trial ends in {{days, plural, one {{# day}} other {{# days}}}}. <link>Upgrade now</link> to keep your projects.",
            "<b>{{name}}</b> invited you to <link>{{project}}</link>",
            "Seu teste gratuito termina em {{days, plural, one {{# dia}} other {{# dias}}}}. <link>Faça upgrade agora</link>.",
            "Ваш пробный период закончится через {{days, plural, one {{# день}} other {{# дней}}}}. <link>Обновить</link>",
            "By continuing you accept the <termsLink>Terms</termsLink> and <privacyLink>Privacy Policy</privacyLink>."]


def translations(rng, c):
    key = pick(rng, ["billing.trialEnds", "invite.title", "legal.consent"])
    c.add("POST", f"/api/v2/projects/{rng.randint(10, 999)}/strings",
          fetch(rng, "api.crowdin.example", "https://crowdin.example/editor", content_type="application/json",
                auth="Bearer " + alnum(rng, 80)),
          jsonb({"text": pick(rng, MESSAGES).format(), "identifier": key, "context": text.sentence(rng)}))


def quoted_cookie(rng, c):
    """A search page whose settings live in a cookie a Python framework wrote with `http.cookies` quoting."""
    size = pick(rng, ["25", "50", "100", "200"])
    value = ('"{\\"order\\": \\"' + pick(rng, ["", "-announced_date_first", "submitted_date"]) + '\\"\\054 \\"size\\": \\"'
             + size + '\\"\\054 \\"abstracts\\": \\"' + pick(rng, ["show", "hide"]) + '\\"}"')
    cookie = f"browser={rng.randint(1, 250)}.{rng.randint(1, 250)}.{rng.randint(1, 250)}.{rng.randint(1, 250)}.{rng.randint(10**15, 10**16)}; search-settings={value}"
    c.add("GET", "/search/?" + form([("query", text.search_query(rng)), ("searchtype", "all"), ("size", size)]),
          navigation(rng, "papers.example.org", referer="https://papers.example.org/", cookie=cookie, site="same-origin"))


def sdk_runtime(rng, c):
    ua = pick(rng, ["ZulipPython/0.9.0 (Linux; Ubuntu 22.04; Python 3.10.12)", "Algolia for Python (3.0.0); Python (3.11.7)",
                    "Shopify API Library v13.4.0 | Ruby 3.2.2", "OTel-OTLP-Exporter-Ruby/0.28.0 Ruby/3.3.1 (x86_64-linux; ruby)",
                    "Algolia for PHP (3.4.1); PHP (8.2.15); Guzzle (7)"])
    c.add("POST", "/api/v1/messages", [("Host", "chat.example.org"), ("User-Agent", ua), ("Accept", "*/*"),
                                       ("Authorization", "Basic " + alnum(rng, 48) + "="),
                                       ("Content-Type", "application/x-www-form-urlencoded")],
          form([("type", "stream"), ("to", "general"), ("topic", "deploys"), ("content", text.sentence(rng))]))


def cms_heading(rng, c):
    heading = pick(rng, ["Update (Jan 14):", "Update (14 janvier) :", "Update 2 (final)", "Select (any) two:"])
    doc = {"nodeType": "document", "data": {}, "content": [
        {"nodeType": "heading-3", "data": {}, "content": [{"nodeType": "text", "value": heading, "marks": [], "data": {}}]},
        {"nodeType": "paragraph", "data": {}, "content": [{"nodeType": "text", "value": text.prose(rng), "marks": [], "data": {}}]}]}
    c.add("PUT", f"/spaces/{alnum(rng, 12).lower()}/environments/master/entries/{alnum(rng, 22)}",
          fetch(rng, "api.contentful.com", "https://app.contentful.com/", content_type="application/vnd.contentful.management.v1+json",
                auth="Bearer CFPAT-" + alnum(rng, 43), extra=[("X-Contentful-Version", str(rng.randint(1, 40)))]),
          jsonb({"fields": {"title": {"en-US": text.title(rng)}, "body": {"en-US": doc}}}))


def zimbra(rng, c):
    hst = pick(rng, ["webmail.example.edu", "mail.example.fr"])
    name = text.name(rng)
    plain = f"{text.prose(rng)}\n\n-- \n{name}\nhttps://www.example.org/team/{alnum(rng, 6).lower()}"
    html = (f"<html><body><div style=\"font-family: arial, helvetica, sans-serif; font-size: 12pt\"><div>{text.prose(rng)}</div>"
            f"<div><br data-mce-bogus=\"1\"></div><div>-- <br>{name}</div></div></body></html>")
    body = {"Header": {"context": {"_jsns": "urn:zimbra", "userAgent": {"name": "ZimbraWebClient - GC131 (Win)", "version": "10.1.2_GA_4718"},
                                   "csrfToken": "0_" + hexid(rng, 40)}},
            "Body": {"SendMsgRequest": {"_jsns": "urn:zimbraMail", "m": {
                "e": [{"t": "t", "a": f"{alnum(rng, 7).lower()}@example.com"}], "su": {"_content": text.title(rng)},
                "mp": [{"ct": "multipart/alternative", "mp": [{"ct": "text/plain", "content": {"_content": plain}},
                                                              {"ct": "text/html", "content": {"_content": html}}]}]}}}}
    c.add("POST", "/service/soap/SendMsgRequest", fetch(rng, hst, f"https://{hst}/", content_type="application/soap+xml; charset=utf-8",
                                                       accept="*/*", extra=[("X-Zimbra-Csrf-Token", "0_" + hexid(rng, 40))]), jsonb(body))


SEARCHES = ["({a} OR {b}) AND (review[pt] OR \"clinical trial\"[pt])", "{a}*[tiab] AND (child* OR adolescen*) AND humans[mh]",
            "Neoplasm Metastasis/therapy[mh] AND {a}[nm]", "{a}[tiab] NOT (rat OR mouse) AND English[la]",
            "author:\"{au}\" AND intitle:{a}", "\"{a}\" AND ({b} OR placebo) NOT review[pt]"]
DRUGS = ["tirzepatide", "lithium", "adalimumab", "metformin", "atorvastatin", "levodopa", "tamoxifen", "dexamethasone"]


def literature_search(rng, c):
    """PubMed's and a scholarly search engine's boolean queries: field tags, wildcards, phrases, AND/OR/NOT."""
    a, b = rng.sample(DRUGS, 2)
    q = pick(rng, SEARCHES).format(a=a, b=b, au=pick(rng, ["Smith J", "Nguyen T", "Müller K", "O'Brien P"]))
    if rng.random() < 0.5:
        c.add("GET", "/?" + form([("term", q), ("sort", pick(rng, ["date", "relevance"]))]),
              navigation(rng, "pubmed.example.gov", referer="https://pubmed.example.gov/", site="same-origin"))
    else:
        c.add("GET", "/entrez/eutils/esearch.fcgi?" + form([("db", "pubmed"), ("term", q), ("retmax", "200"), ("retmode", "json")]),
              [("Host", "eutils.example.gov"), ("User-Agent", "python-requests/2.32.3"), ("Accept-Encoding", "gzip, deflate"),
               ("Accept", "*/*"), ("Connection", "keep-alive")])


# Blockly's id alphabet (its `genUid` soup): letters, digits and punctuation, twenty of them per block.
SOUP = "!#$%()*+,-./:;=?@[]^_`{|}~ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
OPCODES = ["event_whenflagclicked", "motion_movesteps", "motion_turnright", "looks_sayforsecs", "control_repeat",
           "control_wait", "sound_play", "event_whenthisspriteclicked"]


def scratch(rng, c):
    """Scratch 3 saving a project (its blocks keyed by Blockly ids, each naming the next and its parent by theirs) and
    uploading a costume drawn in its paint editor (SVG)."""
    if rng.random() < 0.3:
        w, h = rng.randint(20, 200), rng.randint(20, 200)
        svg = (f'<svg version="1.1" xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="{w}" '
               f'height="{h}" viewBox="0,0,{w},{h}"><!--rotationCenter:{w // 2}:{h // 2}--><g fill="{pick(rng, ["#ffab19", "#4c97ff", "#9966ff"])}" '
               f'stroke="#000000" stroke-width="2"><path d="M{rng.randint(1, 9)},{rng.randint(1, 9)}L{w - 2},{h - 3}z"/>'
               f'<text x="4" y="{h // 2}" font-family="Sans Serif" font-size="12">{text.title(rng)[:20]}</text></g></svg>')
        c.add("POST", f"/{hexid(rng, 32)}.svg", fetch(rng, "assets.scratch.example", "https://scratch.example/projects/editor/",
                                                      content_type="image/svg+xml"), svg)
        return
    if rng.random() < 0.3:
        blockly(rng, c)
        return
    ids = ["".join(rng.choice(SOUP) for _ in range(20)) for _ in range(rng.randint(2, 6))]
    blocks = {}
    for i, block in enumerate(ids):
        blocks[block] = {"opcode": pick(rng, OPCODES), "next": ids[i + 1] if i + 1 < len(ids) else None,
                         "parent": ids[i - 1] if i else None, "inputs": {}, "fields": {}, "shadow": False, "topLevel": i == 0}
    project = {"targets": [{"isStage": False, "name": pick(rng, ["Sprite1", "Cat", "Ball"]), "variables": {}, "blocks": blocks,
                            "costumes": [{"name": "costume1", "assetId": hexid(rng, 32), "dataFormat": "svg"}]}],
               "meta": {"semver": "3.0.0", "vm": "4.8.0", "agent": "Mozilla/5.0"}}
    c.add("PUT", f"/{rng.randint(900000000, 999999999)}", fetch(rng, "projects.scratch.example", "https://scratch.example/",
                                                               content_type="application/json"), jsonb(project))


def blockly(rng, c):
    """A Blockly lesson submitting its program as Blockly's XML (`<xml>` around nested `<block>`s, `<field>`s and
    `<next>`s), as code.org-style course sites post it with the attempt's result."""
    def chain(depth):
        kind = pick(rng, ["maze_moveForward", "maze_turn", "controls_repeat", "math_number", "text_print"])
        inner = {"maze_turn": f'<field name="DIR">{pick(rng, ["turnLeft", "turnRight"])}</field>',
                 "controls_repeat": f'<field name="TIMES">{rng.randint(2, 9)}</field>',
                 "math_number": f'<field name="NUM">{rng.randint(0, 99)}</field>',
                 "text_print": f'<value name="TEXT"><block type="text"><field name="TEXT">{text.sentence(rng)[:30]}</field></block></value>'
                 }.get(kind, "")
        rest = f"<next>{chain(depth - 1)}</next>" if depth else ""
        return f'<block type="{kind}" id="{"".join(rng.choice(SOUP[26:]) for _ in range(20))}">{inner}{rest}</block>'
    program = f'<xml xmlns="https://developers.google.com/blockly/xml"><block type="when_run" deletable="false" x="20" y="20"><next>{chain(rng.randint(1, 5))}</next></block></xml>'
    if rng.random() < 0.5:
        program = program.replace(' xmlns="https://developers.google.com/blockly/xml"', "")
    c.add("POST", f"/milestone/{rng.randint(10**8, 10**9)}/{rng.randint(1000, 99999)}/{rng.randint(1000, 99999)}",
          fetch(rng, "studio.course.example", "https://studio.course.example/s/course/lessons/3/levels/2",
                content_type="application/x-www-form-urlencoded; charset=UTF-8", accept="application/json, text/javascript, */*; q=0.01"),
          form([("program", program), ("result", pick(rng, ["true", "false"])), ("testResult", str(rng.choice([30, 100]))),
                ("time", str(rng.randint(2000, 90000))), ("lines", str(rng.randint(1, 12)))]))


def transcript(rng, c):
    """A meeting platform's transcript uploaded as WebVTT, voices named in `<v>` tags."""
    lines = ["WEBVTT", ""]
    for i in range(rng.randint(2, 6)):
        lines += [str(i + 1), f"00:0{i}:0{rng.randint(0, 9)}.000 --> 00:0{i}:1{rng.randint(0, 9)}.000",
                  f"<v {text.name(rng)}>{text.sentence(rng)}", ""]
    c.add("POST", "/v1/transcripts", fetch(rng, "meet.example.com", "https://meet.example.com/recordings", content_type="text/vtt"),
          "\n".join(lines))


def wiki_edit(rng, c):
    """MediaWiki's VisualEditor saving a section: Parsoid's whole document, whose head points `<base>` at the wiki."""
    lang = pick(rng, ["en", "nl", "de", "fr", "ja", "pl"])
    host = f"{lang}.wiki.example.org"
    page = text.title(rng).replace(" ", "_")
    category = pick(rng, ["Dams", "Paintings_of_1642", "Living_people", "Rivers_of_Europe"])
    doc = (f'<!DOCTYPE html>\n<html prefix="dc: http://purl.org/dc/terms/ mw: http://mediawiki.org/rdf/"><head prefix="mwr: '
           f'https://{host}/wiki/Special:Redirect/"><meta charset="utf-8"/><meta property="mw:pageId" content="{rng.randint(1000, 9999999)}"/>'
           f'<link rel="dc:replaces" resource="mwr:revision/{rng.randint(10**8, 10**9)}"/><link rel="dc:isVersionOf" href="//{host}/wiki/{page}"/>'
           f'<base href="//{host}/wiki/"/><title>{page}</title></head><body id="mwAA" lang="{lang}" class="mw-content-ltr parsoid-body '
           f'mediawiki mw-parser-output" dir="ltr"><section data-mw-section-id="0" id="mwAQ"><p id="mwAg">{text.prose(rng)}</p>'
           f'<link rel="mw:PageProp/Category" href="./Category:{category}" id="mwBw"/></section></body></html>')
    c.add("POST", "/w/api.php", fetch(rng, host, f"https://{host}/wiki/{page}?veaction=edit&section=1",
                                      content_type="application/x-www-form-urlencoded; charset=UTF-8",
                                      accept="application/json, text/javascript, */*; q=0.01"),
          form([("action", "visualeditoredit"), ("paction", "save"), ("page", page), ("oldid", str(rng.randint(10**8, 10**9))),
                ("html", doc), ("summary", "/* History */ " + text.sentence(rng)), ("captchaid", ""), ("format", "json"),
                ("formatversion", "2"), ("token", hexid(rng, 40) + "+\\")]))


def site_head(rng, c):
    """A site builder saving the code its users put in every page's head: preconnects, fonts, JSON-LD."""
    name = text.title(rng)
    ld = ('<script type="application/ld+json">{"@context":"https://schema.org","@type":"Organization","name":"'
          + name + '","url":"https://www.example.com/","logo":"https://www.example.com/logo.png"}</script>')
    head = "\n".join(rng.sample([
        '<link rel="preconnect" href="https://fonts.googleapis.com">',
        '<link rel="preconnect" href="https://fonts.gstatic.com" crossorigin>',
        '<link rel="dns-prefetch" href="//cdn.example.net">',
        '<meta name="google-site-verification" content="' + alnum(rng, 43) + '">',
        '<link rel="canonical" href="https://www.example.com/">', ld], rng.randint(1, 4)))
    c.add("PUT", f"/api/v1/sites/{hexid(rng, 24)}/settings", fetch(rng, "builder.example.com", "https://builder.example.com/dashboard",
                                                                content_type="application/json"),
          jsonb({"seo": {"title": name, "description": text.sentence(rng)}, "custom_code": {"head_html": head, "footer_html": ""}}))


def build(n=1000, seed=0x3017):
    rng = random.Random(seed)
    c = Corpus("work-tools")
    makers = [(4, jira), (2, jupyter), (2, git), (2, home_assistant), (1, zapier), (2, spreadsheets), (1, translations),
              (1, quoted_cookie), (1, sdk_runtime), (1, cms_heading), (1, zimbra), (1, literature_search), (1, scratch),
              (1, transcript), (1, wiki_edit), (1, site_head)]
    for _ in range(n):
        weighted(rng, makers)(rng, c)
    return c
