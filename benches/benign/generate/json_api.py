"""json-api-large.txt: JSON APIs of single-page apps, mobile apps and server-to-server integrations, with nested
objects and arrays, nulls, numbers, Unicode text and JSON carried inside strings (Stripe-style metadata, event
payloads, saved editor state, webhook bodies relayed as strings, feature-flag rules). Shapes follow what common
frameworks and services send: checkout and cart APIs (Shopify/commercetools-like), CMS documents (Contentful/Strapi
entries), chat and comments, analytics batches, app settings sync, Stripe and payment webhooks, CRM contacts
(HubSpot-like properties), calendar events, IoT telemetry, spreadsheet cells with their formulas (Google Sheets,
Microsoft Graph's workbooks, Smartsheet); methods POST, PUT, PATCH and DELETE, plus GETs with
JSON-ish query parameters.
"""
import json
import random

from . import text
from .common import (Corpus, api_ref, app_client, bearer, cookie_header, email, fetch, hexid, host, iso, jsonb,
                     pick, qs, sdk_client, ts, uid, weighted, alnum)


def money(rng):
    return {"amount": rng.randint(100, 999999), "currency": pick(rng, ["EUR", "USD", "GBP", "JPY", "PLN", "BRL", "TRY"])}


def address(rng, lang):
    return {"name": text.name(rng, lang), "line1": text.address(rng, lang), "line2": pick(rng, [None, "", "c/o " + text.name(rng, lang)]),
            "city": text.city(rng, lang), "postal_code": str(rng.randint(1000, 99999)),
            "country": pick(rng, ["DE", "FR", "US", "GB", "JP", "BR", "TR", "PL", "IN", "EG", "IL", "KR", "VN", "TH", "GR"]),
            "phone": pick(rng, [None, f"+{rng.randint(1, 99)} {rng.randint(100, 999)} {rng.randint(1000000, 9999999)}"])}


def checkout(rng, lang):
    items = [{"sku": f"{alnum(rng, 3).upper()}-{rng.randint(1000, 9999)}", "name": text.product(rng, lang), "quantity": rng.randint(1, 4),
              "unit_price": money(rng), "options": {"size": pick(rng, ["S", "M", "L", "42", "10.5 US", None]),
                                                     "color": pick(rng, ["navy", "schwarz", "rouge", "緑", None])},
              "gift_message": pick(rng, [None, text.sentence(rng, lang)])} for _ in range(rng.randint(1, 8))]
    return {"cart_id": uid(rng), "customer": {"email": email(rng), "accepts_marketing": rng.random() < 0.3},
            "shipping_address": address(rng, lang), "billing_address": pick(rng, [None, address(rng, lang)]),
            "line_items": items, "discount_codes": pick(rng, [[], ["WELCOME10"], ["BLACKFRIDAY", "FREESHIP"]]),
            "note": pick(rng, ["", text.prose(rng, lang, 2)]), "locale": lang,
            "metadata": {"source": pick(rng, ["web", "ios", "android"]), "ab": json.dumps({"exp_checkout_v3": pick(rng, ["control", "b"])})},
            "client_details": {"browser_ip": f"203.0.113.{rng.randint(1, 254)}", "accept_language": text.accept_language(rng, lang)}}


def cms_entry(rng, lang):
    blocks = []
    for _ in range(rng.randint(2, 10)):
        kind = pick(rng, ["paragraph", "heading", "image", "quote", "list", "embed"])
        if kind == "paragraph":
            blocks.append({"type": kind, "text": text.prose(rng, lang)})
        elif kind == "heading":
            blocks.append({"type": kind, "level": rng.randint(2, 4), "text": text.title(rng, lang)})
        elif kind == "image":
            blocks.append({"type": kind, "asset": {"id": alnum(rng, 22), "url": f"//images.example.net/{alnum(rng, 12)}/{hexid(rng, 32)}/photo.jpg",
                                                   "alt": text.title(rng, lang), "width": 1600, "height": 900}})
        elif kind == "quote":
            blocks.append({"type": kind, "text": text.sentence(rng, lang), "cite": text.name(rng, lang)})
        elif kind == "list":
            blocks.append({"type": kind, "ordered": rng.random() < 0.5, "items": [text.sentence(rng, lang) for _ in range(rng.randint(2, 5))]})
        else:
            blocks.append({"type": kind, "url": pick(rng, ["https://www.youtube.com/watch?v=" + alnum(rng, 11), "https://vimeo.com/" + str(rng.randint(10 ** 7, 10 ** 9))])})
    return {"fields": {"title": {lang: text.title(rng, lang)}, "slug": {lang: f"{alnum(rng, 6).lower()}-{rng.randint(1, 999)}"},
                       "body": {lang: blocks}, "seo": {"description": text.sentence(rng, lang), "noindex": False},
                       "publishDate": iso(rng), "author": {"sys": {"type": "Link", "linkType": "Entry", "id": alnum(rng, 22)}}},
            "metadata": {"tags": []}}


def chat(rng, lang):
    return {"conversation_id": uid(rng), "client_msg_id": uid(rng), "text": text.prose(rng, lang),
            "mentions": [{"user_id": str(rng.randint(1, 99999)), "offset": rng.randint(0, 20), "length": rng.randint(3, 12)} for _ in range(rng.randint(0, 2))],
            "attachments": [{"type": "link", "url": f"https://{host(rng)}/p/{rng.randint(1, 9999)}", "title": text.title(rng, lang)}] if rng.random() < 0.3 else [],
            "reply_to": pick(rng, [None, uid(rng)]), "sent_at": iso(rng)}


def analytics_batch(rng, lang):
    return {"batch": [{"type": pick(rng, ["track", "identify", "page"]), "event": pick(rng, ["Product Added", "Search", "Video Played", "Coupon Applied"]),
                       "properties": {"query": text.search_query(rng, lang), "category": pick(rng, ["Bücher", "Électronique", "Ropa", "家電"]),
                                      "value": rng.randint(0, 999) / 10, "filters": {"price": [rng.randint(0, 50), rng.randint(51, 500)], "in_stock": True}},
                       "context": {"app": {"name": "Shop", "version": "7.3.1", "build": str(rng.randint(100, 999))},
                                   "device": {"model": pick(rng, ["iPhone15,2", "SM-S911B", "Pixel 8"]), "type": pick(rng, ["ios", "android"])},
                                   "locale": lang, "timezone": pick(rng, ["Europe/Paris", "Asia/Tokyo", "America/Sao_Paulo"])},
                       "anonymousId": uid(rng), "messageId": uid(rng), "timestamp": iso(rng)} for _ in range(rng.randint(1, 20))],
            "sentAt": iso(rng)}


def settings(rng, lang):
    return {"profile": {"display_name": text.name(rng, lang), "bio": text.sentence(rng, lang), "pronouns": pick(rng, [None, "she/her", "he/him", "they/them"]),
                        "links": [f"https://{pick(rng, ['github.com', 'www.linkedin.com/in', 'mastodon.social/@'])}/{alnum(rng, 8).lower()}"]},
            "preferences": {"language": lang, "theme": pick(rng, ["dark", "light", "system"]),
                            "notifications": {"email": {"digest": pick(rng, ["daily", "weekly", "never"]), "mentions": True},
                                              "push": {"enabled": rng.random() < 0.5, "quiet_hours": {"from": "22:00", "to": "07:30"}}},
                            "editor": json.dumps({"fontSize": rng.randint(12, 18), "vim": False, "tabSize": pick(rng, [2, 4])})},
            "version": rng.randint(1, 400), "updated_at": iso(rng)}


def webhook(rng, lang):
    obj = {"id": "pi_" + alnum(rng, 24), "object": "payment_intent", "amount": rng.randint(100, 99999), "currency": pick(rng, ["eur", "usd", "gbp"]),
           "status": pick(rng, ["succeeded", "requires_action", "processing"]), "customer": "cus_" + alnum(rng, 14),
           "description": text.title(rng, lang), "metadata": {"order_id": str(rng.randint(10000, 999999)), "cart": json.dumps(
               [{"sku": rng.randint(1, 9999), "qty": rng.randint(1, 3)} for _ in range(rng.randint(1, 3))])},
           "shipping": {"name": text.name(rng, lang), "address": {"line1": text.address(rng, lang), "city": text.city(rng, lang)}},
           "charges": {"object": "list", "data": [], "has_more": False}}
    return {"id": "evt_" + alnum(rng, 24), "object": "event", "api_version": "2024-06-20", "created": ts(rng),
            "data": {"object": obj, "previous_attributes": pick(rng, [None, {"status": "processing"}])},
            "livemode": rng.random() < 0.8, "pending_webhooks": 1, "request": {"id": "req_" + alnum(rng, 14), "idempotency_key": uid(rng)},
            "type": pick(rng, ["payment_intent.succeeded", "payment_intent.payment_failed", "charge.refunded"])}


def crm_contact(rng, lang):
    return {"properties": {"email": email(rng), "firstname": text.name(rng, lang).split(" ")[0], "lastname": text.name(rng, lang).split(" ")[-1],
                           "company": pick(rng, ["Müller & Söhne GmbH", "O'Brien Consulting Ltd.", "株式会社サクラ", "Acme, Inc.", "Café \"Le Zinc\""]),
                           "lifecyclestage": pick(rng, ["lead", "customer", "opportunity"]), "notes_last_contacted": iso(rng),
                           "message": text.prose(rng, lang), "hs_language": lang,
                           "utm_source": pick(rng, ["google", "newsletter", "linkedin"]), "form_payload": json.dumps({"consent": True, "fields": ["email", "message"]})},
            "associations": [{"to": {"id": str(rng.randint(1, 10 ** 9))}, "types": [{"associationCategory": "HUBSPOT_DEFINED", "associationTypeId": 279}]}]}


def calendar(rng, lang):
    start = ts(rng)
    return {"summary": text.title(rng, lang), "description": text.prose(rng, lang, 2), "location": f"{text.address(rng, lang)}, {text.city(rng, lang)}",
            "start": {"dateTime": iso(rng, start), "timeZone": pick(rng, ["Europe/Berlin", "Asia/Seoul", "America/New_York"])},
            "end": {"dateTime": iso(rng, start + 3600 * rng.randint(1, 4))},
            "attendees": [{"email": email(rng), "responseStatus": pick(rng, ["needsAction", "accepted", "tentative"])} for _ in range(rng.randint(1, 6))],
            "recurrence": pick(rng, [None, ["RRULE:FREQ=WEEKLY;BYDAY=MO,WE;COUNT=10"], ["RRULE:FREQ=MONTHLY;BYMONTHDAY=1"]]),
            "reminders": {"useDefault": False, "overrides": [{"method": "popup", "minutes": pick(rng, [10, 30, 1440])}]},
            "conferenceData": {"createRequest": {"requestId": uid(rng)}}}


def telemetry(rng, lang):
    return {"device_id": hexid(rng, 16), "fw": f"{rng.randint(1, 4)}.{rng.randint(0, 20)}.{rng.randint(0, 99)}",
            "readings": [{"t": ts(rng), "temp_c": round(rng.uniform(-20, 45), 2), "rh": round(rng.uniform(5, 99), 1),
                          "co2_ppm": rng.randint(380, 2500), "battery": round(rng.uniform(2.8, 4.2), 3)} for _ in range(rng.randint(1, 30))],
            "location": {"lat": round(rng.uniform(-60, 70), 6), "lon": round(rng.uniform(-170, 170), 6), "accuracy_m": rng.randint(3, 200)},
            "config": json.dumps({"interval_s": pick(rng, [60, 300, 900]), "alerts": {"temp_max": 30}})}


def feature_flags(rng, lang):
    return {"key": pick(rng, ["new-checkout", "dark-mode", "search-v2", "recommendations"]), "enabled": rng.random() < 0.7,
            "rules": [{"id": uid(rng), "clauses": [{"attribute": pick(rng, ["country", "email", "plan", "appVersion"]),
                                                    "op": pick(rng, ["in", "endsWith", "semVerGreaterThan", "matches"]),
                                                    "values": pick(rng, [["DE", "AT", "CH"], ["@example.com"], ["7.2.0"], ["^beta-.*$"]])}],
                       "rollout": {"variations": [{"variation": 0, "weight": 50000}, {"variation": 1, "weight": 50000}]}} for _ in range(rng.randint(1, 4))],
            "variations": [{"value": True}, {"value": False}], "comment": text.sentence(rng, lang)}


def spreadsheet(rng, lang):
    """Cells written through a spreadsheet API as users type them (Google Sheets' values:batchUpdate with
    USER_ENTERED input, Microsoft Graph's workbook ranges, Smartsheet's rows): names, numbers and formulas."""
    r = rng.randint(2, 400)
    formulas = [f"=SUM(B{r}:D{r})", f'=IF(C{r}="", "", D{r}/C{r})', f"=AVERAGE(Sheet1!B2:B{r})",
                f"=VLOOKUP(A{r}, Prices!A:C, 3, FALSE)", f"=IFERROR(B{r}/C{r}, 0)", '=TEXT(TODAY(), "yyyy-mm-dd")',
                f'=COUNTIF(E2:E{r}, ">100")', f"=ROUND(B{r}*1.2, 2)", f'=CONCATENATE(A{r}, " ", B{r})',
                f'=IF(AND(B{r}>0, C{r}<10), "ok", "check")', f'=SUMIFS(D:D, A:A, "{text.city(rng, lang)}")',
                f"=INDEX(A2:A{r}, MATCH(MAX(B2:B{r}), B2:B{r}, 0))", f"=B{r}-C{r}", f"=SUMME(B2:B{r};C2:C{r})"]
    row = [text.name(rng, lang), rng.randint(1, 500), round(rng.uniform(1, 99), 2), pick(rng, formulas)]
    kind = rng.randrange(3)
    if kind == 0:
        return {"valueInputOption": "USER_ENTERED", "data": [{"range": f"Sheet1!A{r}:D{r}", "values": [row]}]}
    if kind == 1:
        return {"values": [row], "formulas": [[None, None, None, pick(rng, formulas)]]}
    return {"toTop": False, "cells": [{"columnId": rng.randint(10**15, 10**16), "value": row[0]},
                                      {"columnId": rng.randint(10**15, 10**16), "formula": pick(rng, formulas)}]}


MAKERS = [(5, checkout), (3, cms_entry), (4, chat), (3, analytics_batch), (3, settings), (2, webhook), (2, crm_contact),
          (2, calendar), (2, telemetry), (2, feature_flags), (1, spreadsheet)]
PATHS = {checkout: ["/api/checkout", "/v1/carts/{id}/checkout", "/storefront/api/2025-01/checkouts"],
         cms_entry: ["/spaces/{id}/environments/master/entries/{id}", "/api/articles/{id}", "/admin/api/pages"],
         chat: ["/api/v1/conversations/{id}/messages", "/chat.postMessage", "/v2/threads/{id}/replies"],
         analytics_batch: ["/v1/batch", "/track/batch", "/api/events"],
         settings: ["/api/me/settings", "/v1/users/{id}/preferences", "/sync/settings"],
         webhook: ["/webhooks/stripe", "/api/payments/webhook", "/hooks/{id}"],
         crm_contact: ["/crm/v3/objects/contacts", "/api/leads", "/v1/contacts/{id}"],
         calendar: ["/calendar/v3/calendars/primary/events", "/api/events/{id}", "/v1/bookings"],
         telemetry: ["/v1/devices/{id}/telemetry", "/ingest", "/api/iot/readings"],
         feature_flags: ["/api/v2/flags/default/{id}", "/admin/flags", "/v1/flags/{id}"],
         spreadsheet: ["/v4/spreadsheets/{id}/values:batchUpdate", "/v4/spreadsheets/{id}/values/Sheet1!A1:append",
                       "/v1.0/me/drive/items/{id}/workbook/worksheets/Sheet1/range(address='A2:D2')", "/2.0/sheets/{id}/rows"]}


def build(n=2500, seed=0x15041):
    rng = random.Random(seed)
    c = Corpus("json-api-large")
    for _ in range(n):
        maker = weighted(rng, MAKERS)
        lang = pick(rng, text.LANGUAGES)
        path = pick(rng, PATHS[maker]).replace("{id}", pick(rng, [uid(rng), str(rng.randint(1, 999999)), alnum(rng, 22)]))
        method = weighted(rng, [(6, "POST"), (2, "PUT"), (2, "PATCH"), (1, "DELETE"), (1, "GET")])
        client = weighted(rng, [(6, "browser"), (3, "app"), (3, "sdk")])
        hst, ref = api_ref(rng)
        if client == "browser":
            h = fetch(rng, hst, ref, content_type="application/json" if method not in ("GET", "DELETE") else None,
                      auth=bearer(rng) if rng.random() < 0.6 else None, lang=text.accept_language(rng, lang),
                      cookie=cookie_header(rng) if rng.random() < 0.5 else None,
                      extra=[("X-Requested-With", "XMLHttpRequest")] if rng.random() < 0.2 else
                      [("X-CSRF-Token", alnum(rng, 40))] if rng.random() < 0.3 else [])
        elif client == "app":
            h = [("Host", hst)] + app_client(rng) + [("Authorization", bearer(rng)), ("X-App-Version", f"{rng.randint(1, 9)}.{rng.randint(0, 30)}.{rng.randint(0, 9)}"),
                                                     ("X-Device-Id", uid(rng))]
            if method not in ("GET", "DELETE"):
                h.append(("Content-Type", pick(rng, ["application/json; charset=UTF-8", "application/json"])))
        else:
            h = [("Host", hst)] + sdk_client(rng) + [("Authorization", bearer(rng)), ("Idempotency-Key", uid(rng))]
            if method not in ("GET", "DELETE"):
                h.append(("Content-Type", "application/json"))
            if maker is webhook:
                h.append(("Stripe-Signature", f"t={ts(rng)},v1={hexid(rng, 64)},v0={hexid(rng, 64)}"))
        if method == "GET":
            q = [("filter", json.dumps({"status": pick(rng, ["open", "paid"]), "created": {"gte": iso(rng)}}, separators=(",", ":"))),
                 ("sort", pick(rng, ["-created_at", "name", "priority,-updated"])), ("page[size]", str(pick(rng, [10, 25, 50]))),
                 ("q", text.search_query(rng, lang))]
            c.add("GET", path + "?" + qs(rng.sample(q, rng.randint(1, 4))), h)
        elif method == "DELETE":
            body = jsonb({"reason": text.sentence(rng, lang)}) if rng.random() < 0.3 else b""
            if body:
                h.append(("Content-Type", "application/json"))
            c.add("DELETE", path, h, body)
        else:
            doc = maker(rng, lang)
            if rng.random() < 0.15:  # a client that sends the document as a JSON string inside JSON
                doc = {"payload": json.dumps(doc, ensure_ascii=rng.random() < 0.5), "schema": maker.__name__, "v": rng.randint(1, 5)}
            c.add(method, path, h, jsonb(doc, pretty=rng.random() < 0.15))
    return c
