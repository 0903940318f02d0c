"""frameworks.py: the wire formats of the web frameworks a page's own scripts speak to its server, each carrying
what people type. JavaServer Faces and PrimeFaces partial requests (`.xhtml` pages, `javax.faces.*` fields with
`form:field` names; a form with a file field submitted whole as multipart, the names in its parts), Laravel Livewire's component messages (v2's `fingerprint`/`serverMemo`/`updates` with
`$set` and `$refresh` calls, v3's snapshot as a JSON string), Next.js App Router (`_rsc` fetches with
`Next-Router-State-Tree`, Server Actions posted as `text/plain` JSON arrays or multipart with `$ACTION_ID_`
fields), Remix `_data` loaders and actions, SvelteKit `__data.json` and `?/action` forms, htmx and Inertia.js
requests with their headers, Vaadin Flow's UIDL RPC, Apache Wicket Ajax URLs, Struts 1 forms (`.do` actions with the transaction token Struts names
`org.apache.struts.taglib.html.TOKEN`), ASP.NET Core SignalR (negotiate,
and the JSON hub protocol's messages ended by the record separator 0x1E), Phoenix LiveView's long-poll events,
and Matrix client-server API calls (`!room:server` ids in paths). Then the front ends of large sites and SaaS
applications calling their own APIs: Google's `batchexecute` (`f.req`, JSON arrays inside a JSON string inside a
form), Facebook's GraphQL form posts, LinkedIn's Rest.li parameters (`(key:value,list:List(...))`), ServiceNow's
encoded queries (`sysparm_query=active=true^priorityIN1,2^ORDERBYDESCsys_created_on`), Azure's batch bodies with
OData options as JSON members (`{"$top":100}`), Outlook on the web's JSON request in a header, Notion's
transactions, Slack's rich-text blocks and Discord's messages. And the hosted back ends single-page apps query
straight from the browser: Firestore (REST `documents:runQuery` under `databases/(default)`, and the WebChannel
`Listen/channel` with its `req0___data__` JSON), Supabase's PostgREST (`select=id,author:users(name)`,
`or=(priority.gt.3,due.lt.2024-12-01)`, `tags=cs.{sale,new}`), Directus and Appwrite filters, Algolia's and
Meilisearch's search bodies. Moodle's grader posting its serialised form as a JSON string inside a JSON call
(`jsonformdata`). And the block editor of WordPress saving a post whose code block shows code with its
markup escaped (`<!-- wp:code --><pre class="wp-block-code"><code>&lt;script ...&gt;</code></pre>`), one block a
line, as a tutorial or a support article is written.

Where the shapes come from: each framework's client script and protocol documentation (the JSF 2 JavaScript
API's partial request fields, Livewire's client payloads, the Next.js router and Server Action request headers,
Remix's and SvelteKit's routing conventions, the htmx and Inertia request headers, Vaadin's UIDL, Wicket's Ajax
request attributes, the SignalR hub protocol specification, Phoenix's long-poll transport, the Matrix
client-server API; the Firestore REST and WebChannel protocols, PostgREST's API reference, the Directus and
Appwrite query documentation, Algolia's and Meilisearch's search APIs; for the site front ends, the request shapes their web clients send as seen in a browser's
developer tools). Every value is generated here; nothing is copied from recorded traffic.
"""
import html
import json
import random
from urllib.parse import quote

from . import snippets, text
from .browsing import SEARCHES
from .common import Corpus, alnum, cookie_header, fetch, form, form_post, hexid, jsonb, pick, site, ts, uid, weighted


def _page(rng):
    s = site(rng)
    hst = f"www.{s}"
    return hst, f"https://{hst}" + pick(rng, ["/", "/orders", "/account/settings", "/search?q=" + quote(pick(rng, SEARCHES))])


def _typed(rng):
    """What a person types into a field: a search, a name, a sentence."""
    return pick(rng, [pick(rng, SEARCHES), text.name(rng), text.sentence(rng), text.title(rng)])


def jsf(rng, c):
    hst, ref = _page(rng)
    view = pick(rng, ["orders", "customers/edit", "index", "reports/monthly"])
    source = pick(rng, ["form:save", "form:search", "form:table", "form:customer"])
    fields = [("javax.faces.partial.ajax", "true"), ("javax.faces.source", source),
              ("javax.faces.partial.execute", pick(rng, ["@all", "@this", source])),
              ("javax.faces.partial.render", pick(rng, ["form:msgs form:table", "@form", "form:results"]))]
    if source == "form:table":
        fields += [("javax.faces.behavior.event", "page"), ("javax.faces.partial.event", "page"),
                   ("form:table_pagination", "true"), ("form:table_first", str(10 * rng.randint(0, 9))),
                   ("form:table_rows", "10"), ("form:table_encodeFeature", "true")]
    else:
        fields += [(source, source), ("form:name", text.name(rng)), ("form:notes", _typed(rng)),
                   ("form:query", pick(rng, SEARCHES))]
    state = pick(rng, [f"-{rng.randint(10**17, 10**18)}:-{rng.randint(10**17, 10**18)}", f"e{rng.randint(1, 9)}s1",
                       "stateless"])
    fields += [("form", "form"), ("javax.faces.ViewState", state)]
    if view == "customers/edit" and source == "form:save":
        # A form with a file field (`enctype="multipart/form-data"`), submitted whole: each field's name carries its
        # form's id and a colon into the part's Content-Disposition.
        boundary = "----WebKitFormBoundary" + alnum(rng, 16)
        parts = "".join(f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'
                        for k, v in fields[4:])
        parts += (f'--{boundary}\r\nContent-Disposition: form-data; name="form:photo"; filename=""\r\n'
                  f"Content-Type: application/octet-stream\r\n\r\n\r\n--{boundary}--\r\n")
        c.add("POST", f"/app/{view}.xhtml", form_post(rng, hst, ref, f"multipart/form-data; boundary={boundary}",
                                                       cookie=cookie_header(rng)), parts)
        return
    c.add("POST", f"/app/{view}.xhtml" + pick(rng, ["", f";jsessionid={hexid(rng, 32).upper()}", "?faces-redirect=true"]),
          fetch(rng, hst, ref, content_type="application/x-www-form-urlencoded; charset=UTF-8",
                accept="application/xml, text/xml, */*; q=0.01", cookie=cookie_header(rng),
                extra=[("Faces-Request", "partial/ajax"), ("X-Requested-With", "XMLHttpRequest")]), form(fields))


def livewire(rng, c):
    hst, ref = _page(rng)
    name = pick(rng, ["search-users", "todo-list", "checkout-form", "comments"])
    if rng.random() < 0.5:  # v2
        updates = [{"type": "syncInput", "payload": {"id": alnum(rng, 3).lower(), "name": "search", "value": _typed(rng)}}]
        updates.append(pick(rng, [
            {"type": "callMethod", "payload": {"id": alnum(rng, 3).lower(), "method": "$set", "params": ["page", rng.randint(1, 9)]}},
            {"type": "callMethod", "payload": {"id": alnum(rng, 3).lower(), "method": "$refresh", "params": []}},
            {"type": "callMethod", "payload": {"id": alnum(rng, 3).lower(), "method": "save", "params": []}},
            {"type": "fireEvent", "payload": {"id": alnum(rng, 3).lower(), "event": "postAdded", "params": [rng.randint(1, 99)]}}]))
        body = {"fingerprint": {"id": alnum(rng, 20), "name": name, "locale": pick(rng, ["en", "de", "fr"]),
                                "path": pick(rng, ["users", "todos", "checkout"]), "method": "GET", "v": "acj"},
                "serverMemo": {"children": [], "errors": [], "htmlHash": hexid(rng, 8),
                               "data": {"search": "", "page": 1}, "dataMeta": [], "checksum": hexid(rng, 64)},
                "updates": updates}
        path = f"/livewire/message/{name}"
    else:  # v3: the component's state travels as a JSON string
        snapshot = jsonb({"data": {"title": text.title(rng), "items": [[text.product(rng, "en"), {"s": "arr"}]]},
                          "memo": {"id": alnum(rng, 20), "name": name, "path": "todos", "method": "GET", "children": [],
                                   "scripts": [], "assets": [], "errors": [], "locale": "en"},
                          "checksum": hexid(rng, 64)}).decode()
        body = {"_token": alnum(rng, 40), "components": [{"snapshot": snapshot, "updates": {"draft": _typed(rng)},
                                                          "calls": [{"path": "", "method": pick(rng, ["add", "save", "$refresh"]),
                                                                     "params": []}]}]}
        path = "/livewire/update"
    c.add("POST", path, fetch(rng, hst, ref, content_type="application/json", accept="text/html, application/xhtml+xml",
                              cookie=cookie_header(rng), extra=[("X-Livewire", "true"), ("X-CSRF-TOKEN", alnum(rng, 40))]),
          jsonb(body))


def _router_tree(segment):
    tree = ["", {"children": [segment, {"children": ["__PAGE__", {}]}]}, None, None, True]
    return quote(json.dumps(tree, separators=(",", ":")), safe="")


def nextjs(rng, c):
    hst, ref = _page(rng)
    segment = pick(rng, ["dashboard", "settings", "blog"])
    tree = _router_tree(segment)
    kind = rng.randrange(3)
    if kind == 0:
        c.add("GET", f"/{segment}/{pick(rng, ['billing', 'team', 'hello-world'])}?_rsc={alnum(rng, 5).lower()}",
              fetch(rng, hst, ref, accept="*/*", extra=[("RSC", "1"), ("Next-Router-State-Tree", tree),
                                                        ("Next-Url", f"/{segment}")]))
        return
    action = hexid(rng, 40)
    headers = [("Next-Action", action), ("Next-Router-State-Tree", tree)]
    if kind == 1:
        body = jsonb([{"title": text.title(rng), "note": _typed(rng)}, pick(rng, ["$undefined", "$K1", "$@1"])])
        c.add("POST", f"/{segment}", fetch(rng, hst, ref, content_type="text/plain;charset=UTF-8",
                                           accept="text/x-component", extra=headers), body)
        return
    boundary = "----WebKitFormBoundary" + alnum(rng, 16)
    parts = [(f"1_$ACTION_ID_{action}", ""), ("1_title", text.title(rng)), ("1_body", _typed(rng)), ("0", '["$K1"]')]
    body = "".join(f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n' for k, v in parts)
    c.add("POST", f"/{segment}", fetch(rng, hst, ref, content_type=f"multipart/form-data; boundary={boundary}",
                                       accept="text/x-component", extra=headers), body + f"--{boundary}--\r\n")


def remix_svelte(rng, c):
    hst, ref = _page(rng)
    kind = rng.randrange(4)
    if kind == 0:
        route = pick(rng, ["routes/posts.$slug", "routes/__app/dashboard.projects.$projectId", "routes/_index",
                           "routes/($lang).products.$handle"])
        c.add("GET", f"/posts/{alnum(rng, 8).lower()}?_data={quote(route, safe='')}", fetch(rng, hst, ref, accept="*/*"))
    elif kind == 1:
        c.add("POST", f"/posts/new?index&_data={quote('routes/posts.new', safe='')}",
              fetch(rng, hst, ref, content_type="application/x-www-form-urlencoded;charset=UTF-8", accept="*/*"),
              form([("title", text.title(rng)), ("body", text.prose(rng))]))
    elif kind == 2:
        c.add("GET", f"/blog/{alnum(rng, 8).lower()}/__data.json?x-sveltekit-invalidated={pick(rng, ['01', '11', '001'])}",
              fetch(rng, hst, ref, accept="*/*"))
    else:
        c.add("POST", f"/account?/{pick(rng, ['update', 'register', 'subscribe'])}",
              fetch(rng, hst, ref, content_type="application/x-www-form-urlencoded", accept="application/json",
                    extra=[("x-sveltekit-action", "true")]),
              form([("name", text.name(rng)), ("bio", _typed(rng))]))


def htmx_inertia(rng, c):
    hst, ref = _page(rng)
    if rng.random() < 0.5:
        q = _typed(rng)
        extra = [("HX-Request", "true"), ("HX-Current-URL", ref), ("HX-Trigger", "search"), ("HX-Trigger-Name", "q"),
                 ("HX-Target", "search-results")]
        if rng.random() < 0.5:
            c.add("GET", f"/contacts?q={quote(q)}&page={rng.randint(1, 5)}", fetch(rng, hst, ref, accept="*/*", extra=extra))
        else:
            c.add("POST", f"/contacts/{rng.randint(1, 999)}/edit",
                  fetch(rng, hst, ref, content_type="application/x-www-form-urlencoded", accept="*/*", extra=extra),
                  form([("first", text.name(rng).split()[0]), ("last", text.name(rng).split()[-1]), ("note", q)]))
        return
    extra = [("X-Inertia", "true"), ("X-Inertia-Version", hexid(rng, 32)), ("X-Requested-With", "XMLHttpRequest")]
    if rng.random() < 0.5:
        extra += [("X-Inertia-Partial-Data", "users,filters"), ("X-Inertia-Partial-Component", "Users/Index")]
        c.add("GET", f"/users?search={quote(pick(rng, SEARCHES))}&role={pick(rng, ['admin', 'editor', ''])}",
              fetch(rng, hst, ref, accept="text/html, application/xhtml+xml", extra=extra))
    else:
        c.add("PUT", f"/users/{rng.randint(1, 999)}",
              fetch(rng, hst, ref, content_type="application/json", accept="text/html, application/xhtml+xml", extra=extra),
              jsonb({"name": text.name(rng), "bio": _typed(rng), "role": pick(rng, ["admin", "editor"])}))


def vaadin_wicket(rng, c):
    hst, ref = _page(rng)
    if rng.random() < 0.5:
        rpc = [{"type": "mSync", "node": rng.randint(2, 80), "feature": 1, "property": "value", "value": _typed(rng)},
               {"type": "event", "node": rng.randint(2, 80), "event": "click",
                "data": {"event.shiftKey": False, "event.metaKey": False, "event.detail": 1, "event.ctrlKey": False,
                         "event.altKey": False, "event.button": 0}}]
        c.add("POST", f"/?v-r=uidl&v-uiId={rng.randint(0, 3)}",
              fetch(rng, hst, ref, content_type="application/json; charset=UTF-8", accept="*/*", cookie=cookie_header(rng)),
              jsonb({"csrfToken": uid(rng), "rpc": rpc, "syncId": rng.randint(1, 40), "clientId": rng.randint(1, 40)}))
        return
    page = rng.randint(1, 12)
    extra = [("Wicket-Ajax", "true"), ("Wicket-Ajax-BaseURL", f"page?{page}"), ("X-Requested-With", "XMLHttpRequest")]
    if rng.random() < 0.5:
        c.add("GET", f"/wicket/page?{page}-1.0-form-{pick(rng, ['submit', 'search', 'next'])}&_={ts(rng)}",
              fetch(rng, hst, ref, accept="text/xml", extra=extra))
    else:
        c.add("POST", f"/wicket/page?{page}-1.IBehaviorListener.0-form-save",
              fetch(rng, hst, ref, content_type="application/x-www-form-urlencoded; charset=UTF-8", accept="text/xml",
                    extra=extra), form([(f"id{rng.randint(1, 9)}_hf_0", ""), ("name", text.name(rng)),
                                        ("comment", _typed(rng)), ("save", "1")]))


RS = "\x1e"  # the SignalR JSON hub protocol ends each message with the record separator


def realtime(rng, c):
    hst, ref = _page(rng)
    kind = rng.randrange(4)
    hub = pick(rng, ["/chathub", "/hubs/notifications", "/_blazor"])
    signalr = [("X-Requested-With", "XMLHttpRequest"),
               ("X-SignalR-User-Agent", "Microsoft SignalR/8.0 (8.0.7; Unknown OS; Browser; Unknown Runtime Version)")]
    if kind == 0:
        c.add("POST", f"{hub}/negotiate?negotiateVersion=1",
              fetch(rng, hst, ref, content_type="text/plain;charset=UTF-8", accept="*/*", extra=signalr))
    elif kind == 1:
        messages = ['{"protocol":"json","version":1}'] if rng.random() < 0.3 else []
        messages.append(json.dumps({"type": 1, "target": pick(rng, ["SendMessage", "JoinGroup", "Typing"]),
                                    "arguments": [text.name(rng), _typed(rng)]}, ensure_ascii=False))
        if rng.random() < 0.4:
            messages.append('{"type":6}')
        c.add("POST", f"{hub}?id={alnum(rng, 22)}", fetch(rng, hst, ref, content_type="text/plain;charset=UTF-8",
                                                          accept="*/*", extra=signalr),
              "".join(m + RS for m in messages))
    elif kind == 2:  # Phoenix LiveView over long polling: one JSON array a line
        topic = f"lv:phx-F{alnum(rng, 10)}"
        value = form([("user[name]", text.name(rng)), ("user[bio]", _typed(rng)), ("_target", "user[name]")])
        events = [json.dumps(["4", str(rng.randint(5, 99)), topic, "event", {"type": "form", "event": "validate", "value": value}]),
                  json.dumps(["4", str(rng.randint(5, 99)), topic, "event", {"type": "click", "event": "inc", "value": {"value": ""}}])]
        c.add("POST", f"/live/longpoll?_csrf_token={alnum(rng, 56)}&vsn=2.0.0",
              fetch(rng, hst, ref, content_type="application/x-ndjson", accept="application/json"), "\n".join(events))
    else:  # Matrix client-server API: room ids begin with `!`, servers follow `:`
        room = f"!{alnum(rng, 18)}:{pick(rng, ['matrix.org', 'example.org', 'chat.example.com'])}"
        auth = f"Bearer syt_{alnum(rng, 8)}_{alnum(rng, 20)}_{alnum(rng, 6)}"
        if rng.random() < 0.5:
            body = _typed(rng)
            c.add("PUT", f"/_matrix/client/v3/rooms/{quote(room, safe='!:')}/send/m.room.message/m{ts(rng)}.{rng.randint(0, 9)}",
                  fetch(rng, hst, ref, content_type="application/json", auth=auth),
                  jsonb({"msgtype": "m.text", "body": body}))
        else:
            c.add("GET", f"/_matrix/client/v3/rooms/{quote(room, safe='')}/messages?dir=b&from=t{rng.randint(1000, 99999)}-"
                         f"{rng.randint(10**6, 10**7)}_{rng.randint(1000, 99999)}&limit=30&filter="
                         + quote('{"lazy_load_members":true}', safe=''), fetch(rng, hst, ref, auth=auth))


def site_front_ends(rng, c):
    hst, ref = _page(rng)
    typed = _typed(rng)
    kind = rng.randrange(8)
    if kind == 0:  # Google batchexecute: the call's arguments are JSON in a JSON string in a form field
        rpc = alnum(rng, 6)
        args = jsonb([None, typed, None, [rng.randint(0, 3)], pick(rng, ["en", "de", "ja"])]).decode()
        c.add("POST", f"/_/{pick(rng, ['DocsUi', 'MapsUi', 'KeepUi'])}/data/batchexecute?rpcids={rpc}&source-path=%2F"
                      f"&f.sid=-{rng.randint(10**17, 10**18)}&bl=boq_server_20241120.08_p0&hl=en&_reqid={rng.randint(1000, 999999)}&rt=c",
              fetch(rng, hst, ref, content_type="application/x-www-form-urlencoded;charset=UTF-8", accept="*/*",
                    extra=[("X-Same-Domain", "1")]),
              form([("f.req", jsonb([[[rpc, args, None, "generic"]]]).decode()), ("at", f"{alnum(rng, 16)}:{ts(rng)}")]) + "&")
    elif kind == 1:  # Facebook's GraphQL: the variables are JSON in a form field beside the page's tokens
        variables = {"input": {"message": {"ranges": [], "text": typed}, "feedback_id": alnum(rng, 24),
                               "client_mutation_id": str(rng.randint(1, 9))}, "scale": 2, "useDefaultActor": False}
        c.add("POST", "/api/graphql/", fetch(rng, hst, ref, content_type="application/x-www-form-urlencoded", accept="*/*",
                                             extra=[("X-FB-Friendly-Name", "CometUFICreateCommentMutation")]),
              form([("av", str(rng.randint(10**14, 10**15))), ("__a", "1"), ("__req", alnum(rng, 2).lower()),
                    ("__hs", f"{rng.randint(20000, 20100)}.HYP:comet_pkg.2.1..2.1"), ("dpr", "2"), ("__ccg", "EXCELLENT"),
                    ("__rev", str(rng.randint(10**9, 2 * 10**9))), ("__dyn", alnum(rng, 120)), ("__csr", alnum(rng, 40)),
                    ("fb_dtsg", f"{alnum(rng, 40)}:{rng.randint(10**16, 10**17)}:{ts(rng) // 1000}"),
                    ("jazoest", str(rng.randint(20000, 29999))), ("lsd", alnum(rng, 11)),
                    ("fb_api_caller_class", "RelayModern"), ("fb_api_req_friendly_name", "CometUFICreateCommentMutation"),
                    ("variables", jsonb(variables).decode()), ("server_timestamps", "true"),
                    ("doc_id", str(rng.randint(10**15, 10**16)))]))
    elif kind == 2:  # LinkedIn's Rest.li: records in parentheses, lists as List(...)
        words = quote(pick(rng, SEARCHES), safe="")
        c.add("GET", f"/voyager/api/graphql?variables=(start:{10 * rng.randint(0, 5)},origin:GLOBAL_SEARCH_HEADER,"
                     f"query:(keywords:{words},flagshipSearchIntent:SEARCH_SRP,queryParameters:List((key:resultType,"
                     f"value:List({pick(rng, ['PEOPLE', 'COMPANIES', 'JOBS'])}))),includeFiltersInResponse:false))"
                     f"&queryId=voyagerSearchDashClusters.{hexid(rng, 32)}",
              fetch(rng, hst, ref, accept="application/vnd.linkedin.normalized+json+2.1",
                    extra=[("csrf-token", f"ajax:{rng.randint(10**18, 10**19)}"), ("x-restli-protocol-version", "2.0.0")]))
    elif kind == 3:  # ServiceNow's encoded queries: conditions joined by ^, ^OR, operators written as words
        field = pick(rng, ["short_description", "description", "caller_id.name", "assignment_group.name"])
        word = quote(pick(rng, ["email", "vpn", "printer", "password reset", "o'neil"]), safe="")
        query = (f"active%3Dtrue%5Epriority%3D{rng.randint(1, 4)}%5EORpriority%3D{rng.randint(1, 4)}%5E{field}"
                 f"{pick(rng, ['LIKE', 'STARTSWITH', 'ENDSWITH'])}{word}%5EORDERBY{pick(rng, ['DESC', ''])}sys_created_on")
        c.add("GET", f"/api/now/table/{pick(rng, ['incident', 'sc_req_item', 'change_request'])}?sysparm_query={query}"
                     f"&sysparm_fields=number%2Cshort_description%2Cassigned_to&sysparm_limit={rng.randint(10, 100)}",
              fetch(rng, hst, ref, extra=[("X-UserToken", hexid(rng, 72))]))
    elif kind == 4:  # Azure's batch of Resource Graph queries, OData options as members
        content = {"query": f"resources | where type =~ 'microsoft.compute/virtualmachines' | project name, location"
                            f" | order by name {pick(rng, ['asc', 'desc'])}",
                   "options": {"$top": pick(rng, [50, 100, 1000]), "$skip": 0, "resultFormat": "objectArray"}}
        c.add("POST", "/batch?api-version=2020-06-01",
              fetch(rng, hst, ref, content_type="application/json", auth="Bearer " + alnum(rng, 120)),
              jsonb({"requests": [{"httpMethod": "POST", "url": "https://management.azure.com/providers/"
                                   "Microsoft.ResourceGraph/resources?api-version=2021-03-01", "content": content}]}))
    elif kind == 5:  # Outlook on the web: the JSON request URL-encoded in a header, the body empty
        request = {"__type": "FindItemJsonRequest:#Exchange",
                   "Header": {"__type": "JsonRequestHeaders:#Exchange", "RequestServerVersion": "V2018_01_08"},
                   "Body": {"__type": "FindItemRequest:#Exchange", "Traversal": "Shallow",
                            "ParentFolderIds": [{"__type": "DistinguishedFolderId:#Exchange", "Id": "inbox"}],
                            "QueryString": f"from:{text.name(rng).split()[0].lower()} subject:({typed})"}}
        c.add("POST", f"/owa/service.svc?action=FindItem&app=Mail&n={rng.randint(1, 99)}",
              fetch(rng, hst, ref, content_type="application/json; charset=utf-8",
                    extra=[("Action", "FindItem"), ("X-OWA-CANARY", alnum(rng, 76)),
                           ("X-OWA-UrlPostData", quote(jsonb(request).decode(), safe=""))]))
    elif kind == 6:  # Notion's transactions: a block's title set to what was typed
        block = uid(rng)
        ops = [{"pointer": {"table": "block", "id": block, "spaceId": uid(rng)}, "path": ["properties", "title"],
                "command": "set", "args": [[typed]]},
               {"pointer": {"table": "block", "id": block}, "path": [], "command": "update",
                "args": {"last_edited_time": ts(rng)}}]
        c.add("POST", "/api/v3/saveTransactionsFanout",
              fetch(rng, hst, ref, content_type="application/json", extra=[("notion-client-version", "23.13.0.1234")]),
              jsonb({"requestId": uid(rng), "transactions": [{"id": uid(rng), "spaceId": uid(rng), "operations": ops}]}))
    else:  # Slack's rich-text blocks in a multipart form, or Discord's message JSON
        if rng.random() < 0.5:
            blocks = jsonb([{"type": "rich_text", "block_id": alnum(rng, 4), "elements": [
                {"type": "rich_text_section", "elements": [{"type": "text", "text": typed},
                                                           {"type": "user", "user_id": "U" + alnum(rng, 10).upper()}]}]}])
            boundary = "----WebKitFormBoundary" + alnum(rng, 16)
            parts = [("token", f"xoxc-{rng.randint(10**9, 10**10)}-{alnum(rng, 64).lower()}"), ("channel", "C" + alnum(rng, 10).upper()),
                     ("type", "message"), ("blocks", blocks.decode()), ("unfurl", "[]"), ("_x_reason", "webapp_message_send")]
            body = "".join(f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n' for k, v in parts)
            c.add("POST", f"/api/chat.postMessage?_x_id={alnum(rng, 8)}-{ts(rng)}&slack_route=T{alnum(rng, 8).upper()}",
                  fetch(rng, hst, ref, content_type=f"multipart/form-data; boundary={boundary}", accept="*/*"),
                  body + f"--{boundary}--\r\n")
        else:
            c.add("POST", f"/api/v9/channels/{rng.randint(10**17, 10**18)}/messages",
                  fetch(rng, hst, ref, content_type="application/json", auth=alnum(rng, 24) + "." + alnum(rng, 6) + "." + alnum(rng, 38),
                        extra=[("X-Discord-Locale", "en-US")]),
                  jsonb({"content": typed, "nonce": str(rng.randint(10**18, 10**19)), "tts": False, "flags": 0}))


def backend_services(rng, c):
    hst, ref = _page(rng)
    typed = _typed(rng)
    project = f"{pick(rng, ['shop', 'notes', 'chat'])}-{alnum(rng, 5).lower()}"
    database = f"projects/{project}/databases/(default)"
    kind = rng.randrange(6)
    if kind == 0:  # Firestore REST
        where = {"fieldFilter": {"field": {"fieldPath": pick(rng, ["status", "room", "owner"])}, "op": "EQUAL",
                                 "value": {"stringValue": pick(rng, ["open", "general", uid(rng)])}}}
        c.add("POST", f"/v1/{database}/documents:runQuery",
              fetch(rng, "firestore.googleapis.com", ref, content_type="application/json", auth="Bearer " + alnum(rng, 80)),
              jsonb({"structuredQuery": {"from": [{"collectionId": pick(rng, ["orders", "notes", "messages"])}], "where": where,
                                         "orderBy": [{"field": {"fieldPath": "createdAt"}, "direction": "DESCENDING"}],
                                         "limit": rng.randint(10, 50)}}))
    elif kind == 1:  # Firestore WebChannel: a write's JSON in a form field
        data = {"database": database, "writes": [{"update": {"name": f"{database}/documents/notes/{alnum(rng, 20)}",
                                                             "fields": {"text": {"stringValue": typed}}},
                                                  "updateMask": {"fieldPaths": ["text"]}}]}
        c.add("POST", f"/google.firestore.v1.Firestore/Write/channel?VER=8&database={quote(database, safe='()')}"
                      f"&gsessionid={alnum(rng, 12)}&SID={alnum(rng, 8)}&RID={rng.randint(10000, 99999)}&AID={rng.randint(1, 9)}"
                      f"&zx={alnum(rng, 12).lower()}&t=1",
              fetch(rng, "firestore.googleapis.com", ref, content_type="application/x-www-form-urlencoded",
                    extra=[("X-Goog-Api-Client", "gl-js/ fire/10.13.0")]),
              form([("count", "1"), ("ofs", str(rng.randint(0, 9))), ("req0___data__", jsonb(data).decode())]))
    elif kind == 2:  # Supabase's PostgREST
        params = pick(rng, [
            "select=id%2Ctitle%2Cauthor%3Ausers(name%2Cavatar_url)&status=eq.open&or=(priority.gt.3%2Cdue.lt.2024-12-01)"
            "&order=created_at.desc.nullslast",
            f"select=*&name=ilike.*{quote(pick(rng, SEARCHES).split()[0])}*&price=lte.{rng.randint(10, 500)}"
            "&category=in.(%22shoes%22%2C%22bags%22)",
            f"select=id%2Cname&tags=cs.%7B{pick(rng, ['sale', 'new', 'featured'])}%2C{pick(rng, ['summer', 'kids'])}%7D",
            f"select=title%2Cbody&body=wfts(english).{quote(pick(rng, SEARCHES))}"])
        c.add("GET", f"/rest/v1/{pick(rng, ['todos', 'products', 'posts'])}?{params}&limit={rng.randint(10, 50)}",
              fetch(rng, f"{alnum(rng, 20).lower()}.supabase.co", ref, auth="Bearer " + alnum(rng, 120),
                    extra=[("apikey", alnum(rng, 120)), ("x-client-info", "supabase-js-web/2.46.1")]))
    elif kind == 3:  # Directus and Appwrite filters
        if rng.random() < 0.5:
            c.add("GET", "/items/articles?fields=*,author.first_name,tags.tags_id.*&filter%5Bstatus%5D%5B_eq%5D=published"
                         f"&filter%5Btitle%5D%5B_icontains%5D={quote(pick(rng, SEARCHES))}&sort=-date_published&limit=10&meta=*",
                  fetch(rng, hst, ref))
        else:
            queries = [jsonb({"method": "equal", "attribute": "status", "values": ["published"]}).decode(),
                       jsonb({"method": "search", "attribute": "title", "values": [typed]}).decode(),
                       jsonb({"method": "orderDesc", "attribute": "$createdAt"}).decode()]
            c.add("GET", "/v1/databases/main/collections/posts/documents?" + "&".join(
                f"queries%5B{i}%5D={quote(q, safe='')}" for i, q in enumerate(queries)),
                  fetch(rng, "cloud.appwrite.io", ref, extra=[("X-Appwrite-Project", hexid(rng, 20))]))
    elif kind == 4:  # Algolia's multi-queries (JSON labelled as a form, as its client sends it)
        params = (f"facets=%5B%22brand%22%5D&filters=price%20%3C%3D%20{rng.randint(10, 500)}&hitsPerPage=20&page=0"
                  f"&query={quote(typed)}")
        c.add("POST", "/1/indexes/*/queries?x-algolia-agent=Algolia%20for%20JavaScript%20(4.24.0)%3B%20Browser%20(lite)"
                      f"&x-algolia-api-key={hexid(rng, 32)}&x-algolia-application-id={alnum(rng, 10).upper()}",
              fetch(rng, f"{alnum(rng, 10).lower()}-dsn.algolia.net", ref, content_type="application/x-www-form-urlencoded",
                    accept="*/*"),
              jsonb({"requests": [{"indexName": pick(rng, ["products", "articles"]), "params": params}]}))
    else:  # Meilisearch
        c.add("POST", f"/indexes/{pick(rng, ['movies', 'products'])}/search",
              fetch(rng, hst, ref, content_type="application/json", auth="Bearer " + alnum(rng, 64)),
              jsonb({"q": typed, "filter": f"genres = '{pick(rng, ['horror', 'drama'])}' AND (rating >= {rng.randint(1, 9)})",
                     "sort": ["release_date:desc"], "limit": 20}))


# Markup people show in tutorials and support articles: embeds and tags a reader is told to paste into a page.
EMBEDS = [
    '<script async src="https://www.googletagmanager.com/gtag/js?id=G-{id}"></script>',
    '<script src="https://cdn.example.com/widget.js" data-site="{id}" defer></script>',
    '<iframe src="https://www.youtube.com/embed/{id}" width="560" height="315" allowfullscreen></iframe>',
    '<button onclick="document.getElementById(\'menu\').classList.toggle(\'open\')">Menu</button>',
    '<a href="javascript:void(0)" onclick="openChat()">Chat with us</a>',
    '<img src="/logo.png" onerror="this.src=\'/fallback.png\'" alt="Logo">',
    '<form action="/subscribe" method="post"><input type="email" name="email"><button>Join</button></form>',
]


def block_editor(rng, c):
    hst, _ = _page(rng)
    if rng.random() < 0.5:
        code, lang = pick(rng, EMBEDS).format(id=alnum(rng, 10)), "html"
    else:
        code, lang = snippets.snippet(rng)
    blocks = [f"<!-- wp:paragraph -->\n<p>{html.escape(text.sentence(rng), quote=False)}</p>\n<!-- /wp:paragraph -->",
              f'<!-- wp:code -->\n<pre class="wp-block-code"><code lang="{lang}" class="language-{lang}">'
              f"{html.escape(code, quote=False)}</code></pre>\n<!-- /wp:code -->",
              f"<!-- wp:paragraph -->\n<p>{html.escape(text.sentence(rng), quote=False)}</p>\n<!-- /wp:paragraph -->"]
    post = rng.randint(1, 9999)
    # An autosave, or the save itself: the editor's API client sends its PUT as a POST that names the method in
    # X-HTTP-Method-Override.
    save = post % 2 == 0
    extra = [("X-WP-Nonce", hexid(rng, 10))] + ([("X-HTTP-Method-Override", "PUT")] if save else [])
    c.add("POST", f"/wp-json/wp/v2/posts/{post}" + ("" if save else "/autosaves") + "?_locale=user",
          fetch(rng, hst, f"https://{hst}/wp-admin/post.php?post={post}&action=edit", content_type="application/json",
                cookie=cookie_header(rng), extra=extra),
          jsonb({"id": post, "title": text.title(rng), "content": "\n\n".join(blocks), "excerpt": ""}))


def struts(rng, c):
    """A form of an Apache Struts 1 application (an action ending in `.do`), posted whole: the transaction token
    `<html:form>` writes into every form under Struts' own name, `org.apache.struts.taglib.html.TOKEN`, beside
    what people type, with the `dispatch` parameter of a DispatchAction."""
    hst, ref = _page(rng)
    action = pick(rng, ["cadastro/salvarSolicitacao", "payee/addPayee", "claims/submitClaim", "profile/updateAddress"])
    fields = [("dispatch", pick(rng, ["salvar", "save", "submit", "update"])),
              ("org.apache.struts.taglib.html.TOKEN", hexid(rng, 32)),
              ("nome", text.name(rng)), ("observacao", _typed(rng)),
              ("endereco.logradouro", pick(rng, ["Rua das Flores, 120 - apto 31", "12 O'Connell Street", "Hauptstr. 5 (Hinterhaus)"]))]
    c.add("POST", f"/portal/{action}.do" + pick(rng, ["", f";jsessionid={hexid(rng, 32).upper()}"]),
          form_post(rng, hst, ref, "application/x-www-form-urlencoded", cookie=cookie_header(rng)), form(fields))


def moodle_grading(rng, c):
    """Moodle's grader saving a grade through its AJAX web service: the grading form serialised by the page
    (`id=...&...`, its feedback editor's HTML URL-encoded) and then written as a JSON string (`jsonformdata`) inside
    the call's JSON."""
    hst, ref = _page(rng)
    feedback = (f'<p dir="ltr" style="text-align: left;">{html.escape(text.sentence(rng), quote=False)}</p>'
                + pick(rng, ["", f"<p>{html.escape(text.sentence(rng), quote=False)}</p>", "<p><br></p>"]))
    fields = [("id", str(rng.randint(1000, 999999))), ("rownum", "0"), ("useridlistid", hexid(rng, 17)),
              ("attemptnumber", "-1"), ("ajax", "0"), ("userid", "0"),
              ("sendstudentnotifications", pick(rng, ["true", "false"])), ("action", "submitgrade"),
              ("sesskey", alnum(rng, 10)), ("_qf__mod_assign_grade_form_" + str(rng.randint(1, 99)), "1"),
              ("grade", f"{rng.randint(0, 100)}.00"), ("assignfeedbackcomments_editor[text]", feedback),
              ("assignfeedbackcomments_editor[format]", "1"), ("addattempt", "0")]
    call = [{"index": 0, "methodname": "mod_assign_submit_grading_form",
             "args": {"assignmentid": str(rng.randint(1, 9999)), "userid": rng.randint(2, 99999),
                      "jsonformdata": json.dumps(form(fields))}}]
    c.add("POST", f"/lib/ajax/service.php?sesskey={alnum(rng, 10)}&info=mod_assign_submit_grading_form",
          fetch(rng, hst, ref, content_type="application/json", accept="application/json, text/javascript, */*; q=0.01",
                cookie=cookie_header(rng), extra=[("X-Requested-With", "XMLHttpRequest")]), jsonb(call))


def build(n=1500, seed=0xF4A3E):
    rng = random.Random(seed)
    c = Corpus("frameworks")
    makers = [(2, jsf), (2, livewire), (2, nextjs), (2, remix_svelte), (2, htmx_inertia), (1, vaadin_wicket),
              (2, realtime), (3, site_front_ends),
              (2, backend_services), (1, block_editor), (1, struts), (1, moodle_grading)]
    for _ in range(n):
        weighted(rng, makers)(rng, c)
    return c
