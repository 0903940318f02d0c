"""webhooks.py: what SaaS services deliver to a site's own endpoints, and what error trackers send. Inbound e-mail
parsed by SendGrid (multipart: the raw headers, `html`, `text`, `envelope`), Mailgun (a form: `body-html`,
`stripped-text`, `message-headers` as JSON) and Postmark (JSON: `HtmlBody`, `TextBody`, `Headers`), each mail
written as its client writes HTML: a transactional template (XHTML doctype and namespace, a Content-Type
`<meta>`, a style sheet of media queries, Outlook's `<!--[if mso]>` block), Outlook desktop (VML and Office
namespaces on `<html>`, `MsoNormal` paragraphs, `<o:p>`), Gmail (`gmail_quote` blockquotes), Apple Mail and
Thunderbird (`moz-cite-prefix`). Error trackers' events: Sentry envelopes posted to a site's own tunnel
(`text/plain`, as the browser SDK's `tunnel` option sends them) and Sentry's issue-alert webhooks, with stack
frames quoting their code (`context_line`, `pre_context`, `abs_path`, `vars`) and breadcrumbs; Rollbar's and
Bugsnag's item webhooks. Twilio's SMS callbacks and PayPal's IPN (forms), Typeform's answers (JSON).

Where the shapes come from: each vendor's documented payload (SendGrid's Inbound Parse fields, Mailgun's routes,
Postmark's inbound webhook, Sentry's event and envelope protocol and its integration platform's webhooks,
Rollbar's and Bugsnag's webhook notifications, Twilio's messaging webhook parameters, PayPal's IPN variables,
Typeform's webhook payload); the mail HTML as those mail clients and a template of the common e-mail boilerplate
write it. Every value is generated here; nothing is copied from recorded traffic.
"""
import html
import json
import random
from email.header import Header

from . import snippets, text
from .common import Corpus, alnum, email, form, hexid, jsonb, pick, ts, uid, weighted

HOOKS = "hooks.example.org"


def _deliver(c, path, ua, content_type, body, extra=()):
    c.add("POST", path, [("Host", HOOKS), ("User-Agent", ua), ("Accept", "*/*"), ("Content-Type", content_type),
                         *extra, ("Accept-Encoding", "gzip")], body)


def _paragraphs(rng, lang):
    return [html.escape(text.sentence(rng, lang), quote=False) for _ in range(rng.randint(1, 4))]


def template_mail(rng, lang):
    """A transactional or newsletter template: XHTML doctype, meta, a style sheet, Outlook's conditional block."""
    paras = "".join(f'<p style="margin:0 0 12px">{p}</p>' for p in _paragraphs(rng, lang))
    link = f"https://track.example.org/c/{alnum(rng, 24)}?u={hexid(rng, 8)}&amp;id={hexid(rng, 6)}"
    return ('<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" '
            '"http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd"><html xmlns="http://www.w3.org/1999/xhtml">'
            '<head><meta http-equiv="Content-Type" content="text/html; charset=UTF-8"/>'
            '<meta name="viewport" content="width=device-width, initial-scale=1.0"/>'
            '<meta http-equiv="X-UA-Compatible" content="IE=edge"/><title>' + html.escape(text.title(rng, lang)) +
            '</title><style type="text/css">body{margin:0;padding:0}table,td{border-collapse:collapse}'
            '@media only screen and (max-width:480px){.col{width:100%!important}.hide{display:none!important}}</style>'
            '<!--[if mso]><xml><o:OfficeDocumentSettings><o:AllowPNG/><o:PixelsPerInch>96</o:PixelsPerInch>'
            '</o:OfficeDocumentSettings></xml><![endif]--><!--[if gte mso 15]><style type="text/css">'
            'table{font-size:1px;line-height:0;mso-margin-top-alt:1px}</style><![endif]--></head>'
            '<body style="margin:0;background:#f4f4f4"><table role="presentation" width="100%" cellpadding="0" '
            f'cellspacing="0"><tr><td class="col" align="center" style="font-family:Arial,sans-serif">{paras}'
            f'<a href="{link}" style="background:#0b5;color:#fff;padding:10px 16px;text-decoration:none">'
            f'{html.escape(text.title(rng, lang))}</a><img src="https://open.example.org/o/{alnum(rng, 32)}.gif" '
            'width="1" height="1" alt="" style="display:none"/></td></tr></table></body></html>')


def outlook_mail(rng, lang):
    paras = "".join(f"<p class=MsoNormal>{p}<o:p></o:p></p><p class=MsoNormal><o:p>&nbsp;</o:p></p>"
                    for p in _paragraphs(rng, lang))
    return ('<html xmlns:v="urn:schemas-microsoft-com:vml" xmlns:o="urn:schemas-microsoft-com:office:office" '
            'xmlns:w="urn:schemas-microsoft-com:office:word" xmlns:m="http://schemas.microsoft.com/office/2004/12/omml" '
            'xmlns="http://www.w3.org/TR/REC-html40"><head><meta http-equiv=Content-Type content="text/html; '
            'charset=utf-8"><meta name=Generator content="Microsoft Word 15 (filtered medium)"><style><!--\n'
            '/* Font Definitions */\n@font-face\n\t{font-family:"Cambria Math";\n\tpanose-1:2 4 5 3 5 4 6 3 2 4;}\n'
            'p.MsoNormal, li.MsoNormal, div.MsoNormal\n\t{margin:0cm;\n\tfont-size:11.0pt;\n\tfont-family:"Calibri",'
            'sans-serif;}\n@page WordSection1\n\t{size:612.0pt 792.0pt;\n\tmargin:72.0pt 72.0pt 72.0pt 72.0pt;}\n'
            'div.WordSection1\n\t{page:WordSection1;}\n--></style><!--[if gte mso 9]><xml>\n<o:shapedefaults '
            'v:ext="edit" spidmax="1026" />\n</xml><![endif]--><!--[if gte mso 9]><xml>\n<o:shapelayout v:ext="edit">\n'
            '<o:idmap v:ext="edit" data="1" />\n</o:shapelayout></xml><![endif]--></head><body lang=EN-GB '
            'link="#0563C1" vlink="#954F72" style=\'word-wrap:break-word\'><div class=WordSection1>' + paras +
            f'<p class=MsoNormal>{html.escape(text.name(rng, lang))}<o:p></o:p></p></div></body></html>')


def gmail_mail(rng, lang):
    paras = "".join(f"<div>{p}</div>" for p in _paragraphs(rng, lang))
    quoted = "".join(f"<div>{p}</div>" for p in _paragraphs(rng, lang))
    who = text.name(rng, lang)
    return (f'<div dir="ltr">{paras}<div><br></div><div>{html.escape(who)}</div></div><br><div class="gmail_quote">'
            f'<div dir="ltr" class="gmail_attr">On Thu, 28 Nov 2026 at 09:{rng.randint(10, 59)}, Support &lt;'
            'support@shop.example.org&gt; wrote:<br></div><blockquote class="gmail_quote" style="margin:0px 0px 0px '
            f'0.8ex;border-left:1px solid rgb(204,204,204);padding-left:1ex">{quoted}</blockquote></div>')


def apple_mail(rng, lang):
    paras = "".join(f"<div>{p}</div>" for p in _paragraphs(rng, lang))
    return ('<html aria-label="message body"><head><meta http-equiv="content-type" content="text/html; '
            'charset=utf-8"></head><body style="overflow-wrap: break-word; -webkit-nbsp-mode: space; line-break: '
            f'after-white-space;">{paras}<div><br><blockquote type="cite"><div>On 28 Nov 2026, at 10:02, '
            f'{html.escape(text.name(rng, lang))} &lt;{email(rng)}&gt; wrote:</div><br><div><div>'
            f'{html.escape(text.sentence(rng, lang))}</div></div></blockquote></div><br></body></html>')


def thunderbird_mail(rng, lang):
    paras = "".join(f"<p>{p}</p>" for p in _paragraphs(rng, lang))
    return ('<!DOCTYPE html>\n<html>\n  <head>\n    <meta http-equiv="Content-Type" content="text/html; charset=UTF-8">\n'
            f'  </head>\n  <body>\n    {paras}\n    <div class="moz-cite-prefix">On 28/11/2026 10:02, '
            f'{html.escape(text.name(rng, lang))} wrote:<br>\n    </div>\n    <blockquote type="cite" '
            f'cite="mid:{alnum(rng, 20)}@mail.example.org">\n      <p>{html.escape(text.sentence(rng, lang))}</p>\n'
            '    </blockquote>\n  </body>\n</html>')


MAILERS = [template_mail, outlook_mail, gmail_mail, apple_mail, thunderbird_mail]


def _mail(rng):
    lang = pick(rng, text.LANGUAGES)
    subject = pick(rng, ["Re: ", "Fwd: ", "", "AW: ", "RE: "]) + text.title(rng, lang)
    plain = "\n\n".join(text.sentence(rng, lang) for _ in range(rng.randint(1, 4)))
    sender = f"{text.name(rng, lang)} <{email(rng)}>"
    return subject, plain, pick(rng, MAILERS)(rng, lang), sender


def _header(value):
    """A header's value as a mail carries it: non-ASCII words as RFC 2047 encoded words."""
    return Header(value, "utf-8").encode() if not value.isascii() else value


def inbound_mail(rng, c):
    subject, plain, body_html, sender = _mail(rng)
    to = f"support+{hexid(rng, 4)}@in.example.org"
    kind = rng.randrange(3)
    if kind == 0:  # SendGrid Inbound Parse: multipart/form-data
        headers = (f"Received: from mail-{alnum(rng, 6).lower()}.example.net (mail.example.net [198.51.100.{rng.randint(2, 250)}]) "
                   f"by mx.sendgrid.net with SMTP id {alnum(rng, 22)} for <{to}>; Thu, 28 Nov 2026 10:15:02.{rng.randint(100, 999)} +0000 (UTC)\n"
                   f"DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=example.net; s=s1; h=from:to:subject:date; "
                   f"bh={alnum(rng, 43)}=; b={alnum(rng, 172)}\nMIME-Version: 1.0\nFrom: {_header(sender)}\nTo: {to}\n"
                   f"Subject: {_header(subject)}\nDate: Thu, 28 Nov 2026 10:14:51 +0000\nMessage-ID: <{uid(rng)}@mail.example.net>\n"
                   f"Content-Type: multipart/alternative; boundary=\"000000000000{hexid(rng, 8)}\"")
        fields = [("headers", headers), ("dkim", "{@example.net : pass}"), ("content-ids", "{}"), ("to", to),
                  ("html", body_html), ("from", sender), ("text", plain), ("sender_ip", f"198.51.100.{rng.randint(2, 250)}"),
                  ("envelope", json.dumps({"to": [to], "from": sender.split("<")[1].rstrip(">")})), ("attachments", "0"),
                  ("subject", subject), ("charsets", json.dumps({"to": "UTF-8", "html": "UTF-8", "subject": "UTF-8",
                                                                 "from": "UTF-8", "text": "UTF-8"})), ("SPF", "pass")]
        boundary = "xYzZY"
        body = "".join(f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n' for k, v in fields)
        _deliver(c, "/inbound/sendgrid", "Sendlib/1.0 sendgrid.net", f"multipart/form-data; boundary={boundary}",
                 body + f"--{boundary}--\r\n")
    elif kind == 1:  # Mailgun route: a form
        fields = [("recipient", to), ("sender", sender.split("<")[1].rstrip(">")), ("from", sender), ("subject", subject),
                  ("body-plain", plain), ("stripped-text", plain.split("\n\n")[0]), ("body-html", body_html),
                  ("stripped-html", body_html), ("attachment-count", "0"), ("timestamp", str(ts(rng))),
                  ("token", hexid(rng, 25)), ("signature", hexid(rng, 32)),
                  ("message-headers", json.dumps([["Received", "from mail.example.net by mxa.mailgun.org with SMTP"],
                                                  ["From", _header(sender)], ["Subject", _header(subject)],
                                                  ["Content-Type", "multipart/alternative; boundary=\"0000\""]]))]
        _deliver(c, "/inbound/mailgun", "Mailgun/treq-16.12.0", "application/x-www-form-urlencoded", form(fields))
    else:  # Postmark inbound: JSON
        addr = sender.split("<")[1].rstrip(">")
        _deliver(c, "/inbound/postmark", "Postmark", "application/json", jsonb({
            "FromName": sender.split(" <")[0], "MessageStream": "inbound", "From": addr,
            "FromFull": {"Email": addr, "Name": sender.split(" <")[0], "MailboxHash": ""}, "To": to,
            "Subject": subject, "MessageID": uid(rng), "Date": "Thu, 28 Nov 2026 10:14:51 +0000",
            "TextBody": plain, "HtmlBody": body_html, "StrippedTextReply": plain.split("\n\n")[0],
            "Headers": [{"Name": "X-Spam-Status", "Value": "No"}, {"Name": "X-Spam-Score", "Value": "-0.1"},
                        {"Name": "Received-SPF", "Value": f"Pass (sender SPF authorized) identity=mailfrom; "
                                                          f"client-ip=198.51.100.7; envelope-from={addr}"}],
            "Attachments": []}))


# The languages whose programs a stack trace's frames quote.
PROGRAMS = [snippets.python, snippets.javascript, snippets.go, snippets.rust, snippets.php, snippets.java,
            snippets.csharp]


def _frames(rng):
    """Stack frames as Sentry's SDKs send them: each quotes its source lines around the failing one."""
    frames = []
    for _ in range(rng.randint(1, 4)):
        code = pick(rng, PROGRAMS)(rng)
        lines = [line for line in code.split("\n") if line.strip()] or ["pass"]
        at = rng.randrange(len(lines))
        path = pick(rng, snippets.PATHS) + "/" + pick(rng, ["app/services/orders.py", "src/routes/checkout.ts",
                                                              "lib/billing.rb", "internal/api/handler.go",
                                                              "vendor/laravel/framework/src/Database/Connection.php"])
        frames.append({"filename": path.rsplit("/", 1)[-1], "abs_path": path, "function": pick(rng, snippets.FUNCS),
                       "module": path.split("/")[-2], "lineno": rng.randint(1, 900), "in_app": rng.random() < 0.6,
                       "pre_context": lines[max(0, at - 3):at], "context_line": lines[at],
                       "post_context": lines[at + 1:at + 3],
                       "vars": {"self": f"<{pick(rng, ['OrderService', 'Checkout'])} object at 0x7f{hexid(rng, 5)}>",
                                "user": repr(text.name(rng)), "retries": rng.randint(0, 3)}})
    return frames


def _event(rng):
    error = pick(rng, ["TypeError: 'NoneType' object is not subscriptable", "KeyError: 'total'",
                       "ProgrammingError: relation \"orders\" does not exist",
                       "TypeError: Cannot read properties of undefined (reading 'map')",
                       "SyntaxError: Unexpected token '<', \"<!DOCTYPE \"... is not valid JSON",
                       "ActiveRecord::RecordNotFound: Couldn't find Order with 'id'=1234"])
    kind, _, value = error.partition(": ")
    return {"event_id": hexid(rng, 16), "timestamp": ts(rng), "platform": pick(rng, ["python", "javascript", "ruby"]),
            "level": "error", "release": f"shop@{rng.randint(2020, 2026)}.{rng.randint(1, 12)}.{rng.randint(1, 28)}",
            "environment": "production",
            "exception": {"values": [{"type": kind, "value": value, "stacktrace": {"frames": _frames(rng)}}]},
            "breadcrumbs": {"values": [{"category": "navigation", "data": {"from": "/cart", "to": "/checkout"}},
                                       {"category": "ui.click", "message": "button#pay-now.btn.btn-primary"},
                                       {"category": "console", "level": "warning", "message": text.sentence(rng)}]},
            "request": {"url": f"https://shop.example.org/checkout?step={rng.randint(1, 3)}", "method": "POST"},
            "user": {"id": str(rng.randint(1, 99999)), "ip_address": "{{auto}}"}}


def error_reports(rng, c):
    event = _event(rng)
    kind = rng.randrange(4)
    if kind == 0:  # the browser SDK's tunnel to the site's own endpoint: an envelope as text/plain
        # JSON.stringify's output: non-ASCII characters as they are.
        envelope = (json.dumps({"event_id": event["event_id"], "sent_at": "2026-11-28T10:15:02.123Z",
                                "dsn": f"https://{hexid(rng, 16)}@o{rng.randint(10000, 99999)}.ingest.sentry.io/{rng.randint(1000, 9999)}"})
                    + "\n" + json.dumps({"type": "event"}) + "\n" + json.dumps(event, ensure_ascii=False))
        c.add("POST", "/monitoring", [("Host", "shop.example.org"), ("User-Agent", "Mozilla/5.0 (Windows NT 10.0; Win64; "
              "x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"), ("Accept", "*/*"),
              ("Content-Type", "text/plain;charset=UTF-8"), ("Origin", "https://shop.example.org"),
              ("Referer", "https://shop.example.org/checkout"), ("Sec-Fetch-Mode", "cors")], envelope)
    elif kind == 1:  # Sentry's issue-alert webhook
        _deliver(c, "/webhooks/sentry", "Sentry", "application/json", jsonb({
            "action": "triggered", "installation": {"uuid": uid(rng)},
            "data": {"event": event, "triggered_rule": "Send a notification for new issues"},
            "actor": {"type": "application", "id": "sentry", "name": "Sentry"}}),
            [("Sentry-Hook-Resource", "event_alert"), ("Sentry-Hook-Signature", hexid(rng, 32))])
    elif kind == 2:  # Rollbar's item webhook
        frames = [{"filename": f["abs_path"], "lineno": f["lineno"], "method": f["function"], "code": f["context_line"],
                   "context": {"pre": f["pre_context"], "post": f["post_context"]}} for f in _frames(rng)]
        _deliver(c, "/webhooks/rollbar", "Rollbar", "application/json", jsonb({
            "event_name": "new_item", "data": {"item": {"id": rng.randint(10 ** 8, 10 ** 9), "title": event["exception"]["values"][0]["value"],
                                               "last_occurrence": {"body": {"trace": {"frames": frames, "exception": {
                                                   "class": event["exception"]["values"][0]["type"],
                                                   "message": event["exception"]["values"][0]["value"]}}}}}}}))
    else:  # Bugsnag's error webhook
        frames = [{"file": f["abs_path"], "lineNumber": f["lineno"], "method": f["function"],
                   "code": {str(f["lineno"] + i): line for i, line in enumerate(f["pre_context"] + [f["context_line"]])}}
                  for f in _frames(rng)]
        _deliver(c, "/webhooks/bugsnag", "Bugsnag", "application/json", jsonb({
            "account": {"name": "Acme"}, "project": {"name": "shop"}, "trigger": {"type": "firstException"},
            "error": {"exceptionClass": event["exception"]["values"][0]["type"],
                      "message": event["exception"]["values"][0]["value"], "stacktrace": frames}}))


def notifications(rng, c):
    lang = pick(rng, text.LANGUAGES)
    kind = rng.randrange(3)
    if kind == 0:  # Twilio's incoming SMS
        _deliver(c, "/webhooks/twilio/sms", "TwilioProxy/1.1", "application/x-www-form-urlencoded; charset=UTF-8", form([
            ("ToCountry", "GB"), ("SmsMessageSid", "SM" + hexid(rng, 16)), ("NumMedia", "0"), ("SmsStatus", "received"),
            ("Body", pick(rng, [text.sentence(rng, lang), text.search_query(rng, lang), "STOP", "YES"])),
            ("FromCountry", "GB"), ("To", "+447700900" + str(rng.randint(100, 999))), ("MessageSid", "SM" + hexid(rng, 16)),
            ("AccountSid", "AC" + hexid(rng, 16)), ("From", "+447700900" + str(rng.randint(100, 999))),
            ("ApiVersion", "2010-04-01")]), [("X-Twilio-Signature", alnum(rng, 27) + "=")])
    elif kind == 1:  # PayPal IPN
        first, *rest = text.name(rng, lang).split(" ")
        _deliver(c, "/paypal/ipn", "PayPal IPN ( https://www.paypal.com/ipn )", "application/x-www-form-urlencoded", form([
            ("mc_gross", f"{rng.randint(5, 300)}.{rng.randint(0, 99):02d}"), ("payment_status", "Completed"),
            ("first_name", first), ("last_name", " ".join(rest) or first), ("address_street", text.address(rng, lang)),
            ("address_city", text.city(rng, lang)), ("payer_email", email(rng)), ("txn_id", alnum(rng, 17).upper()),
            ("item_name", text.title(rng, lang)), ("custom", json.dumps({"order_id": rng.randint(1, 99999)})),
            ("memo", pick(rng, ["", text.sentence(rng, lang)])), ("charset", "UTF-8"), ("notify_version", "3.9"),
            ("verify_sign", alnum(rng, 56))]))
    else:  # Typeform's answers
        _deliver(c, "/webhooks/typeform", "Typeform Webhooks", "application/json", jsonb({
            "event_id": alnum(rng, 26).upper(), "event_type": "form_response",
            "form_response": {"form_id": alnum(rng, 6), "token": hexid(rng, 16), "submitted_at": "2026-11-28T10:14:00Z",
                              "definition": {"title": text.title(rng, lang)},
                              "answers": [{"type": "number", "number": rng.randint(1, 10)},
                                          {"type": "text", "text": text.prose(rng, lang, 2)},
                                          {"type": "email", "email": email(rng)}]}}),
            [("Typeform-Signature", "sha256=" + alnum(rng, 43) + "=")])


def build(n=1000, seed=0x3E800):
    rng = random.Random(seed)
    c = Corpus("webhooks")
    makers = [(4, inbound_mail), (3, error_reports), (3, notifications)]
    for _ in range(n):
        weighted(rng, makers)(rng, c)
    return c
