"""back_office.py: the back offices of businesses, old and new, whose clients write their own formats into requests.
PeopleSoft and other Oracle WebLogic applications (the session cookie `JSESSIONID=<id>!<hash>!<time>`); ASP.NET
WebForms postbacks (`__EVENTTARGET=ctl00$MainContent$gvOrders`, `__EVENTARGUMENT=Page$Next`, `Sort$Name`) with
Application Insights' telemetry (`ai.internal.sdkVersion` is `javascript:3.x.y`); open-data portals on Socrata
queried in SoQL (`$where`, `$select`, `$order`, `$query`, conditions with quoted values, a quote in one doubled,
and `LIKE '%...%'`);
YouTrack's field selections (`fields=id,summary,reporter(login),visibility($type)`); Azure DevOps' WIQL; Firefox
Sync's Hawk-signed requests (`Authorization: Hawk id="...", mac="..."`); a shop's product and promotion names
(`Phone case (silicone) for iPhone 15`, `Save 20% (today only)`); EDI documents (X12, EDIFACT) posted over AS2 and
a marketplace's tab-separated inventory file; XenForo's AJAX calls naming the page they are on
(`_xfRequestUri=/threads/<slug>.<id>/`); and bug reports quoting Android and Java stack traces
(`AndroidRuntime`, `java.net.SocketTimeoutException`); Oracle ADF pages posting their view state token
(`javax.faces.ViewState=!-6p693zdqiv`); an accounting batch in Windows-1252 posted as the body (DATEV's `EXTF`
CSV); the Azure portal batching ARM calls whose URLs carry OData's `$filter`, and storage CORS settings allowing
a developer's `http://localhost:3000`; a chart reading a sheet through the Google Visualization API (`tq=select
A, sum(B) group by A`); an app's strings with their format placeholders (`Share "%@" with.`, `%1$s`); a library's interlibrary loan
system, an ISAPI extension (`/illiad/illiad.dll?Action=10&Form=30` with an OpenURL, its forms posted back); a
clinic's HL7 v2 lab results posted to an interface engine, a SMART on FHIR backend service's token request
(`scope=system/*.read`), and a phone app's search with its `sessionId` beside its Bearer token.

Where the shapes come from: Oracle WebLogic's session cookie format, ASP.NET's postback and GridView event
arguments, Application Insights' envelope schema, Socrata's SODA and SoQL documentation, YouTrack's REST API field
syntax, Azure DevOps' WIQL reference, Mozilla's Hawk and SyncStorage protocols, ANSI X12 and UN/EDIFACT and RFC 4130
(AS2), XenForo's JavaScript, Android's logcat format, Oracle ADF's state saving, DATEV's EXTF format, Azure Resource
Manager's batch API and CORS rules, the Google Visualization API's query language, iOS's and Android's string
resources, OpenURL (Z39.88-2004) and ILLiad's web pages, HL7 v2.5.1 and SMART on FHIR's backend services; written from that knowledge, every value generated here.
"""
import random

from . import text
from .common import Corpus, alnum, fetch, form, form_post, hexid, jsonb, navigation, pick, uid, weighted

COMPONENTS = ["HR_EE_ADDR.GBL", "HR_EE_PERS_INFO.GBL", "TL_MSS_EE_SRCH_PRD.GBL", "EX_SHEET_ENTRY.GBL",
              "SS_ES_STUDENT_CENTER.GBL", "NUI_FRAMEWORK.PT_LANDINGPAGE.GBL"]


def weblogic_session(rng):
    return f"{alnum(rng, 32, 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_')}!{rng.choice(['-', ''])}{rng.randint(10**8, 2**31)}" + (
        f"!{rng.randint(1700000000000, 1740000000000)}" if rng.random() < 0.4 else "")


def peoplesoft(rng, c):
    """PeopleSoft's self-service pages, behind WebLogic's session cookie."""
    host = pick(rng, ["hcm.example.edu", "fscm.example.com", "cs.example-college.edu"])
    site = host.split(".")[0]
    cookie = (f"{site}-443-PORTAL-PSJSESSIONID={weblogic_session(rng)}; PS_LOGINLIST=https://{host}/{site}; "
              f"ExpirePage=https://{host}/psc/ps/; PS_TOKEN={alnum(rng, 120)}=; SignOnDefault=; PS_DEVICEFEATURES=width:1920")
    component = pick(rng, COMPONENTS)
    if rng.random() < 0.5:
        c.add("GET", f"/psc/ps/EMPLOYEE/HRMS/c/{component}?Page={component.split('.')[0]}&Action=U",
              navigation(rng, host, referer=f"https://{host}/psp/ps/EMPLOYEE/HRMS/h/?tab=DEFAULT", cookie=cookie, site="same-origin"))
    else:
        c.add("POST", f"/psc/ps/EMPLOYEE/HRMS/c/{component}",
              form_post(rng, host, f"https://{host}/psc/ps/EMPLOYEE/HRMS/c/{component}", "application/x-www-form-urlencoded", cookie=cookie),
              form([("ICAJAX", "1"), ("ICType", "Panel"), ("ICStateNum", str(rng.randint(2, 40))), ("ICAction", "DERIVED_ADDR_SAVE_PB"),
                    ("ICSID", alnum(rng, 44) + "="), ("ADDRESS1$0", text.address(rng, "en").split(",")[0]),
                    ("CITY$0", text.city(rng, "en")), ("POSTAL$0", str(rng.randint(10000, 99999)))]))


def webforms(rng, c):
    """An ASP.NET WebForms grid paged, sorted or edited, and the page's Application Insights telemetry."""
    host = pick(rng, ["intranet.example.local", "orders.example.com", "portal.example.co.uk"])
    if rng.random() < 0.35:
        envelope = [{"time": "2026-11-30T09:12:44.123Z", "iKey": uid(rng), "name": "Microsoft.ApplicationInsights.PageView",
                     "tags": {"ai.user.id": alnum(rng, 5), "ai.session.id": alnum(rng, 5), "ai.device.id": "browser",
                              "ai.operation.name": "/Orders.aspx", "ai.internal.sdkVersion": f"javascript:{pick(rng, ['2.8.18', '3.0.5', '3.1.2', '3.3.4'])}"},
                     "data": {"baseType": "PageviewData", "baseData": {"ver": 2, "name": "Orders", "url": f"https://{host}/Orders.aspx",
                                                                       "duration": "00:00:00.412", "properties": {"refUri": f"https://{host}/Default.aspx"}}}}]
        c.add("POST", "/v2/track", fetch(rng, "dc.services.visualstudio.com", f"https://{host}/Orders.aspx",
                                         content_type="text/plain;charset=UTF-8", accept="*/*", mode="cors"), jsonb(envelope))
        return
    grid = pick(rng, ["gvOrders", "gvCustomers", "grdInvoices"])
    argument = pick(rng, ["Page$Next", "Page$Prev", "Page$First", "Page$Last", f"Page${rng.randint(2, 40)}", "Sort$OrderDate",
                          "Sort$CustomerName", f"Select${rng.randint(0, 19)}", f"Edit${rng.randint(0, 19)}"])
    fields = [("__EVENTTARGET", f"ctl00$MainContent${grid}"), ("__EVENTARGUMENT", argument), ("__LASTFOCUS", ""),
              ("__VIEWSTATE", "/wEP" + alnum(rng, rng.randint(200, 900)) + "=="), ("__VIEWSTATEGENERATOR", hexid(rng, 8).upper()),
              ("__EVENTVALIDATION", "/wEd" + alnum(rng, 120) + "="), ("ctl00$MainContent$txtSearch", text.search_query(rng)),
              ("ctl00$MainContent$ddlStatus", pick(rng, ["Open", "Shipped", "All"]))]
    c.add("POST", "/Orders.aspx", form_post(rng, host, f"https://{host}/Orders.aspx", "application/x-www-form-urlencoded",
                                            cookie=f"ASP.NET_SessionId={alnum(rng, 24).lower()}; .ASPXAUTH={hexid(rng, 160).upper()}"),
          form(fields))


SOQL = [("$where", "boro = '{boro}' AND status = 'Open'"), ("$where", "work_description like '%{word}%'"),
        ("$where", "issue_date > '2024-01-01' AND street_name = '{street}'"), ("$where", "within_circle(location, 40.71, -74.0, 500)"),
        ("$query", "SELECT boro, count(*) AS n WHERE complaint_type = 'Noise' GROUP BY boro"),
        ("$where", "date_trunc_ym(created_date) = '2024-06' AND agency IN('DOT', 'DEP')")]


def open_data(rng, c):
    """A city's open-data portal and the apps built on it, querying datasets in SoQL."""
    host = pick(rng, ["data.cityofexample.gov", "opendata.example-county.org"])
    name, template = pick(rng, SOQL)
    value = template.format(boro=pick(rng, ["Brooklyn", "Queens", "Staten Island"]), word=pick(rng, ["ADU", "Solar", "CAFE", "BAR"]),
                            street=pick(rng, ["MILWAUKEE", "O''FARRELL", "BROADWAY"]))
    params = [(name, value), ("$limit", str(pick(rng, [100, 1000, 5000])))]
    if rng.random() < 0.5:
        params.append(("$order", pick(rng, ["created_date DESC", ":id", "issue_date"])))
    c.add("GET", f"/resource/{alnum(rng, 4).lower()}-{alnum(rng, 4).lower()}.json?" + form(params),
          fetch(rng, host, f"https://{host}/", extra=[("X-App-Token", alnum(rng, 25))]))


def trackers(rng, c):
    """YouTrack's web app asking for fields, Azure DevOps Boards' WIQL, and a bug report quoting a stack trace."""
    kind = rng.random()
    if kind < 0.4:
        fields = pick(rng, ["id,idReadable,summary,reporter(login,fullName),visibility($type,permittedGroups(id,name))",
                            "id,text,created,author(id,login,avatarUrl),attachments(id,name,url),reactions(id,reaction),$type"])
        c.add("GET", f"/api/issues/{pick(rng, ['QA', 'WEB', 'MOB'])}-{rng.randint(10, 9999)}?" + form([("fields", fields)]),
              fetch(rng, "youtrack.example.com", "https://youtrack.example.com/issues"))
    elif kind < 0.7:
        wiql = pick(rng, ["SELECT [System.Id], [System.Title], [System.State] FROM WorkItems WHERE [System.TeamProject] = @project "
                          "AND [System.State] <> 'Closed' ORDER BY [System.ChangedDate] DESC",
                          "SELECT [System.Id] FROM WorkItems WHERE [System.AssignedTo] = @Me AND [System.WorkItemType] = 'Bug'"])
        c.add("POST", "/Fabrikam/_apis/wit/wiql?api-version=7.1", fetch(rng, "dev.azure.example.com", "https://dev.azure.example.com/Fabrikam/_queries",
                                                                       content_type="application/json"), jsonb({"query": wiql}))
    else:
        trace = pick(rng, [
            "E/AndroidRuntime: FATAL EXCEPTION: main\n    Process: com.example.field, PID: 23817\n    java.lang.IllegalStateException: "
            "Fragment SyncFragment not attached to a context.\n        at androidx.fragment.app.Fragment.requireContext(Fragment.java:972)",
            "W/OkHttp: <-- HTTP FAILED: java.net.SocketTimeoutException: timeout\n        at okio.AsyncTimeout.newTimeoutException(AsyncTimeout.kt:186)",
            "Caused by: java.lang.RuntimeException: Unable to start activity\n        at android.app.ActivityThread.performLaunchActivity(ActivityThread.java:3449)"])
        body = f"### Steps to reproduce\n1. {text.sentence(rng)}\n2. Sync\n\n### Log\n```\n{trace}\n```\n"
        c.add("POST", f"/api/v4/projects/{rng.randint(10, 9000)}/issues", fetch(rng, "gitlab.example.com", "https://gitlab.example.com/",
                                                                              content_type="application/json"),
              jsonb({"title": text.title(rng), "description": body, "labels": "bug"}))


def firefox_sync(rng, c):
    """Firefox Sync reading and writing collections, each request signed with Hawk."""
    b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    auth = (f'Hawk id="{alnum(rng, 120, b64[:-2] + "-_")}==", ts="{rng.randint(1700000000, 1740000000)}", nonce="{alnum(rng, 8, b64)}", '
            f'mac="{alnum(rng, 43, b64)}="')
    path = f"/1.5/{rng.randint(10**8, 10**9)}/storage/{pick(rng, ['bookmarks', 'history', 'tabs', 'meta/global'])}"
    c.add("GET", path + ("?full=1&newer=1732519379.10" if rng.random() < 0.5 else ""),
          [("Host", "sync-1-us-west1-g.sync.services.mozilla.com"), ("User-Agent", "Firefox/133.0 FxSync/1.135.0.20241125.desktop"),
           ("Accept", "application/json"), ("Authorization", auth), ("Accept-Encoding", "gzip, deflate, br")])


PRODUCTS = ["Phone case (silicone) for iPhone 15", "Pillow case (2 pack) linen", "Laptop case (13 inch) for MacBook Air",
            "Save 20% (today only)", "Up to 50% off (selected items)", "LAL 1% (Purchasers)", "Case for Galaxy S24 (clear)"]


def shop_admin(rng, c):
    """A shop's admin saving products and promotions, and an ads manager naming audiences."""
    name = pick(rng, PRODUCTS)
    c.add("PUT", f"/admin/api/2024-10/products/{rng.randint(10**9, 10**10)}.json",
          fetch(rng, "shop.example.org", "https://shop.example.org/admin/products", content_type="application/json"),
          jsonb({"product": {"title": name, "body_html": f"<p>{text.sentence(rng)}</p>", "tags": "case, accessories"}}))


X12 = ("ISA*00*          *00*          *ZZ*SENDERID       *ZZ*RECEIVERID     *241130*0912*U*00401*000000{n}*0*P*>~"
       "GS*PO*SENDERID*RECEIVERID*20241130*0912*{n}*X*004010~ST*850*0001~BEG*00*SA*PO{n}**20241130~"
       "PO1*1*{qty}*EA*9.25**BP*ACME-{sku}~CTT*1~SE*5*0001~GE*1*{n}~IEA*1*000000{n}~")


def b2b(rng, c):
    """Trading partners posting EDI over AS2, and a seller's tab-separated inventory upload."""
    if rng.random() < 0.6:
        kind = pick(rng, ["application/edi-x12", "application/EDIFACT"])
        n, qty, sku = rng.randint(100, 999), rng.randint(1, 500), rng.randint(1000, 9999)
        doc = X12.format(n=n, qty=qty, sku=sku) if kind == "application/edi-x12" else (
            f"UNA:+.? 'UNB+UNOC:3+SENDER+RECEIVER+241130:0912+{n}'UNH+1+ORDERS:D:96A:UN'BGM+220+PO{n}+9'"
            f"LIN+1++ACME-{sku}:SA'QTY+21:{qty}'UNT+5+1'UNZ+1+{n}'")
        c.add("POST", "/as2/receive", [("Host", "b2b.example.com"), ("User-Agent", "AS2 Connector/4.2"), ("AS2-Version", "1.2"),
                                       ("AS2-From", "SENDERID"), ("AS2-To", "RECEIVERID"), ("Message-ID", f"<{uid(rng)}@as2.example.net>"),
                                       ("Disposition-Notification-To", "as2@example.net"), ("Content-Type", kind)], doc)
        return
    rows = ["sku\tprice\tquantity\thandling-time"] + [f"ACME-{rng.randint(1000, 9999)}\t{rng.randint(5, 300)}.{rng.randint(0, 99):02d}\t"
                                                       f"{rng.randint(0, 900)}\t{rng.randint(1, 5)}" for _ in range(rng.randint(2, 12))]
    c.add("PUT", f"/feeds/{uid(rng)}?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20261130T091244Z",
          [("Host", "tortuga-prod-eu.s3-eu-west-1.amazonaws.com"), ("User-Agent", "python-requests/2.32.3"),
           ("Content-Type", "text/tab-separated-values; charset=UTF-8")], "\n".join(rows) + "\n")


SLUGS = ["docker-container-can-t-reach-host-network", "mysql-replication-lag-after-upgrade", "curl-returns-403-behind-proxy",
         "ssh-key-rejected-after-os-update", "python-script-runs-twice-in-cron"]


def xenforo(rng, c):
    """XenForo's scripts asking for a member list or a preview, naming the thread they are on."""
    page = f"/threads/{pick(rng, SLUGS)}.{rng.randint(10000, 999999)}/"
    host = "forum.example.org"
    c.add("GET", "/members/find?" + form([("q", text.name(rng)[:4]), ("_xfRequestUri", page), ("_xfWithData", "1"),
                                          ("_xfToken", f"{rng.randint(1700000000, 1740000000)},{hexid(rng, 32)}"), ("_xfResponseType", "json")]),
          fetch(rng, host, f"https://{host}{page}", accept="application/json, text/javascript, */*; q=0.01",
                extra=[("X-Requested-With", "XMLHttpRequest")]))


def adf(rng, c):
    """An Oracle ADF page (OPERA Cloud, Fusion apps) posting a partial page request with its view state token."""
    host = pick(rng, ["opera.example-hotel.com", "fa-example.oraclecloud.com"])
    c.add("POST", "/OPERA9/faces/adf.task-flow", form_post(rng, host, f"https://{host}/OPERA9/faces/home", "application/x-www-form-urlencoded"),
          form([("pt1:r1:0:it1", text.name(rng)), ("org.apache.myfaces.trinidad.faces.FORM", "f1"),
                ("javax.faces.ViewState", f"!{rng.choice(['-', ''])}{alnum(rng, rng.randint(9, 12), 'abcdefghijklmnopqrstuvwxyz0123456789')}"),
                ("event", "pt1:r1:0:cb1"), ("oracle.adf.view.rich.PPR_FORCED", "true")]))


def accounting_batch(rng, c):
    """An accounting import posted as its file: DATEV's EXTF batch, semicolon-separated, in Windows-1252."""
    rows = ['"EXTF";700;21;"Buchungsstapel";13;20250520095654889;;"RE";"DATEV";"";948072;58674;20250101;4',
            "Umsatz (ohne Soll/Haben-Kz);Soll/Haben-Kennzeichen;WKZ Umsatz;Konto;Gegenkonto (ohne BU-Schlüssel);Belegdatum;Buchungstext"]
    for _ in range(rng.randint(2, 8)):
        rows.append(f'{rng.randint(1, 9999)},{rng.randint(0, 99):02d};"{pick(rng, ["S", "H"])}";"EUR";{rng.randint(1000, 9999)};'
                    f'{rng.randint(1000, 9999)};{rng.randint(101, 3112)};"{pick(rng, ["Bürobedarf (Papier, Toner)", "Tankstelle Berlin", "Fachliteratur „NWB“ Abo", "Zeitschriften/Bücher"])}"')
    c.add("POST", "/platform/v3/clients/948072-58674/extf-files/import",
          [("Host", "accounting-extf-files.api.example.de"), ("User-Agent", "Apache-HttpClient/4.5.13 (Java/11.0.21)"),
           ("Content-Type", "application/octet-stream"), ("Filename", "EXTF_Buchungsstapel_202505.csv")],
          ("\r\n".join(rows) + "\r\n").encode("cp1252"))


def cloud_console(rng, c):
    """The Azure portal batching ARM calls with OData filters, and a storage account's CORS settings."""
    if rng.random() < 0.5:
        sub = uid(rng)
        url = (f"https://management.azure.com/subscriptions/{sub}/providers/Microsoft.Consumption/usageDetails?"
               f"$filter=properties%2FusageStart%20ge%20'2026-{rng.randint(1, 9):02d}-01'&api-version=2023-05-01")
        c.add("POST", "/batch?api-version=2020-06-01", fetch(rng, "management.azure.com", "https://portal.azure.com/",
                                                             content_type="application/json", auth="Bearer " + alnum(rng, 64)),
              jsonb({"requests": [{"httpMethod": "GET", "name": uid(rng), "url": url}]}))
    else:
        origins = ["https://app.example.com", f"http://localhost:{pick(rng, [3000, 5173, 8080])}", "http://127.0.0.1:4200"]
        c.add("PUT", f"/subscriptions/{uid(rng)}/resourceGroups/web/providers/Microsoft.Storage/storageAccounts/assets/blobServices/default"
                     "?api-version=2023-01-01",
              fetch(rng, "management.azure.com", "https://portal.azure.com/", content_type="application/json"),
              jsonb({"properties": {"cors": {"corsRules": [{"allowedOrigins": origins, "allowedMethods": ["GET", "PUT"],
                                                           "allowedHeaders": ["*"], "exposedHeaders": ["*"], "maxAgeInSeconds": 3600}]}}}))


def chart_query(rng, c):
    """A chart reading a sheet through the Google Visualization API's query language."""
    tq = pick(rng, ["select A, sum(B) group by A", "select B, count(A) where A is not null group by B order by count(A) desc",
                    "select A, B, C where D > 136 order by D desc limit 20"])
    c.add("GET", f"/spreadsheets/d/{alnum(rng, 44)}/gviz/tq?" + form([("tqx", "out:json"), ("tq", tq), ("gid", "0")]),
          fetch(rng, "docs.example.com", "https://dashboard.example.org/"))


def app_strings(rng, c):
    """A localization platform saving an app's strings with their format placeholders."""
    key, value = pick(rng, [("share_sheet_title", 'Share "%@" with.'), ("items_left", "%1$d items left (%2$s)"),
                            ("discount_label", "Save %d%% today"), ("price_per", "%.2f per month")])
    c.add("PUT", f"/api2/projects/{hexid(rng, 16)}/keys/{rng.randint(1000, 99999)}",
          fetch(rng, "app.example-l10n.com", "https://app.example-l10n.com/project", content_type="application/json"),
          jsonb({"key_name": key, "translations": [{"language_iso": "en", "translation": value}]}))


def isapi(rng, c):
    """A library's interlibrary loan system, an ISAPI extension of IIS: links from a catalogue carrying an OpenURL
    (`illiad.dll?Action=10&Form=30&rft.atitle=...`) and its own forms posted back to `illiad.dll`."""
    hst = pick(rng, ["illiad.library.example.edu", "ill.lib.example.ac.uk"])
    if rng.random() < 0.5:
        query = form([("Action", "10"), ("Form", "30"), ("url_ver", "Z39.88-2004"),
                      ("rft_val_fmt", "info:ofi/fmt:kev:mtx:journal"), ("rfr_id", "info:sid/firstsearch.oclc.org:WorldCat"),
                      ("rft.atitle", text.title(rng)), ("rft.jtitle", pick(rng, ["Journal of Applied Ecology", "Annales (Histoire)"])),
                      ("rft.volume", str(rng.randint(1, 90))), ("rft.spage", str(rng.randint(1, 400))),
                      ("rft.date", str(rng.randint(1950, 2024))), ("rft.issn", f"{rng.randint(1000, 9999)}-{rng.randint(100, 999)}X")])
        c.add("GET", "/illiad/illiad.dll?" + query, navigation(rng, hst, referer="https://search.worldcat.example/", site="cross-site"))
        return
    fields = [("ILLiadForm", "ArticleRequest"), ("PhotoJournalTitle", pick(rng, ["Nature", "Revue d'histoire moderne"])),
              ("PhotoArticleTitle", text.title(rng)), ("PhotoArticleAuthor", text.name(rng)),
              ("PhotoJournalYear", str(rng.randint(1900, 2024))), ("NotWantedAfter", "12/31/2026"),
              ("Notes", text.prose(rng)), ("AcceptNonEnglish", pick(rng, ["Yes", "No"])), ("SubmitButton", "Submit Request")]
    c.add("POST", "/illiad/illiad.dll", form_post(rng, hst, f"https://{hst}/illiad/illiad.dll?Action=10&Form=22",
                                                 "application/x-www-form-urlencoded"), form(fields))


def clinical(rng, c):
    """A clinic's systems: an HL7 v2 lab result posted to an interface engine's HTTP listener, a SMART on FHIR
    backend service asking for a token with its scopes (`system/*.read`), a phone app's search carrying its
    `sessionId` beside its Bearer token."""
    kind = rng.randrange(3)
    if kind == 0:
        value = f"{rng.randint(30, 55) / 10:.1f}"
        msg = "\r".join([
            f"MSH|^~\\&|LAB|NORTHCLINIC|EHR|NORTHCLINIC|20251102{rng.randint(10, 23)}{rng.randint(10, 59)}||ORU^R01|{rng.randint(10**6, 10**7)}|P|2.5.1",
            f"PID|1||{rng.randint(10**5, 10**6)}^^^MRN||{text.name(rng).replace(' ', '^')}||19{rng.randint(40, 99)}0{rng.randint(1, 9)}1{rng.randint(0, 9)}|{pick(rng, ['F', 'M'])}",
            f"OBX|1|NM|2823-3^Potassium^LN||{value}|mmol/L|3.5-5.1|{'L' if float(value) < 3.5 else 'N'}|||F",
            f"NTE|1||{pick(rng, ['K+ low -> repleted 20 mEq PO', 'Hemolyzed? redraw if <3.0', 'pt c/o cramps x2d; f/u 1/52'])}"]) + "\r"
        c.add("POST", "/hl7/oru", [("Host", "mirth.clinic.example.org:8443"), ("User-Agent", "Apache-HttpClient/4.5.14 (Java/17.0.9)"),
                                   ("Content-Type", pick(rng, ["application/hl7-v2; charset=UTF-8", "x-application/hl7-v2+er7; charset=UTF-8"])),
                                   ("Authorization", "Basic " + alnum(rng, 24))], msg)
    elif kind == 1:
        scopes = " ".join(rng.sample(["system/*.read", "system/Patient.rs", "system/Observation.rs", "system/*.*"], 2))
        c.add("POST", "/oauth2/token", [("Host", "fhir.ehr.example.org"), ("User-Agent", "python-requests/2.32.3"),
                                        ("Accept", "application/json"), ("Content-Type", "application/x-www-form-urlencoded")],
              form([("grant_type", "client_credentials"), ("scope", scopes),
                    ("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"),
                    ("client_assertion", f"eyJhbGciOiJSUzM4NCJ9.{alnum(rng, 120)}.{alnum(rng, 86)}")]))
    else:
        c.add("GET", "/v2/shops?" + form([("lat", f"37.{rng.randint(10**5, 10**6)}"), ("lng", f"127.{rng.randint(10**5, 10**6)}"),
                                          ("sessionId", hexid(rng, 32)), ("appver", "13.11.2")]),
              [("Host", "api.delivery.example"), ("Authorization", f"Bearer eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9.{alnum(rng, 60)}.{alnum(rng, 43)}"),
               ("Accept-Encoding", "gzip"), ("User-Agent", "okhttp/4.12.0")])


def build(n=1000, seed=0xB0FF):
    rng = random.Random(seed)
    c = Corpus("back-office")
    makers = [(3, peoplesoft), (3, webforms), (2, open_data), (3, trackers), (1, firefox_sync), (2, shop_admin), (2, b2b),
              (1, xenforo), (1, adf), (1, accounting_batch), (2, cloud_console), (1, chart_query), (1, app_strings),
              (1, isapi), (1, clinical)]
    for _ in range(n):
        weighted(rng, makers)(rng, c)
    return c
