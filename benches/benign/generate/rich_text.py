"""rich-text.txt: HTML written by rich-text editors, saved through forms and JSON APIs: TinyMCE and CKEditor 5
(WordPress classic editor, Drupal, CMS back offices: <p>, <strong>, <em>, <a href target rel>, <img src alt width
height>, <table> with <thead>/<tbody>, inline style="..." for colours, alignment and font sizes, <figure>,
<blockquote>, lists, <br>, &nbsp; entities), Quill (class="ql-align-center", ql-indent, and its Delta JSON),
ProseMirror/Tiptap (HTML and the document JSON), Gutenberg block comments (<!-- wp:paragraph -->), and e-mail
signatures and newsletters from web mail composers. Fields: post bodies, product descriptions, e-mail templates,
knowledge-base articles, forum signatures.
"""
import html
import random

from . import text
from .common import (Corpus, alnum, api_ref, bearer, cookie_header, fetch, form, form_post, hexid, host, jsonb, pick,
                     uid, weighted)

CODE_SAMPLES = ["npm install --save my-lib", '{"enabled": true, "retries": 3}', '<div class="card"></div>',
                "SELECT * FROM products WHERE price < 20;", "git checkout -b fix/typo && git push -u origin HEAD"]
COLORS = ["#e03e2d", "#236fa1", "#169179", "rgb(230, 126, 35)", "#7e8c8d", "hsl(210, 60%, 40%)", "#000000", "#f1c40f"]


def esc(s):
    return html.escape(s, quote=False)


def link(rng, lang):
    url = pick(rng, [f"https://{host(rng)}/{pick(rng, ['blog', 'p', 'docs', 'de/hilfe'])}/{alnum(rng, 8).lower()}",
                     f"https://www.youtube.com/watch?v={alnum(rng, 11)}", f"mailto:{pick(rng, ['info', 'support', 'hallo'])}@example.com",
                     f"tel:+{rng.randint(1, 99)}{rng.randint(10 ** 8, 10 ** 9)}", f"/products/{rng.randint(1, 9999)}?utm_source=newsletter&utm_medium=email"])
    attrs = f' href="{html.escape(url)}"'
    if url.startswith("http") and rng.random() < 0.5:
        attrs += ' target="_blank" rel="noopener noreferrer"'
    return f"<a{attrs}>{esc(text.title(rng, lang)[:40])}</a>"


def img(rng, lang):
    src = pick(rng, [f"https://cdn.{host(rng).split('.', 1)[1]}/uploads/2025/{rng.randint(1, 12):02d}/{pick(rng, ['IMG_', 'photo-', 'Screenshot 2025-01-'])}{rng.randint(1000, 9999)}.jpg",
                     f"/wp-content/uploads/2024/11/{alnum(rng, 8).lower()}-1024x683.webp",
                     f"https://images.example.net/{hexid(rng, 16)}?w=800&h=600&fit=crop&auto=format"])
    w, h = pick(rng, [(800, 600), (1024, 683), (300, 300), (1200, 630)])
    style = f' style="float: {pick(rng, ["left", "right"])}; margin: 0 1em 1em 0;"' if rng.random() < 0.3 else ""
    return f'<img src="{html.escape(src)}" alt="{html.escape(text.title(rng, lang)[:50])}" width="{w}" height="{h}"{style}>'


def table(rng, lang):
    cols = rng.randint(2, 4)
    head = "".join(f"<th>{esc(pick(rng, ['Size', 'Größe', 'Taille', 'Price', 'Preis', 'Stock', 'サイズ', 'Color']))}</th>" for _ in range(cols))
    rows = "".join("<tr>" + "".join(f"<td>{esc(pick(rng, [str(rng.randint(1, 99)), text.product(rng, lang), f'{rng.randint(5, 300)},00 €', '✓', '—', 'S / M / L']))}</td>"
                                     for _ in range(cols)) + "</tr>" for _ in range(rng.randint(1, 6)))
    style = ' style="border-collapse: collapse; width: 100%;" border="1"' if rng.random() < 0.6 else ' class="table table-striped"'
    return f"<table{style}><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"


def inline(rng, lang):
    s = esc(text.sentence(rng, lang))
    words = s.split(" ")
    if len(words) > 3:
        i = rng.randrange(len(words) - 1)
        tag = pick(rng, ["strong", "em", "u", "s", "code", "mark", "sup", "b", "i"])
        if tag in ("span",):
            pass
        words[i] = f"<{tag}>{words[i]}</{tag}>"
        if rng.random() < 0.3:
            j = rng.randrange(len(words))
            words[j] = f'<span style="color: {pick(rng, COLORS)};">{words[j]}</span>'
        if rng.random() < 0.2:
            words.insert(rng.randrange(len(words)), link(rng, lang))
    return " ".join(words).replace("  ", " &nbsp;")


def tinymce(rng, lang):
    out = []
    for _ in range(rng.randint(2, 9)):
        kind = weighted(rng, [(6, "p"), (1, "h"), (1, "img"), (1, "table"), (1, "ul"), (1, "quote"), (1, "pre"), (1, "hr")])
        if kind == "p":
            align = f' style="text-align: {pick(rng, ["center", "right", "justify"])};"' if rng.random() < 0.2 else ""
            out.append(f"<p{align}>{inline(rng, lang)}{'<br>' + inline(rng, lang) if rng.random() < 0.2 else ''}</p>")
        elif kind == "h":
            level = rng.randint(2, 4)
            out.append(f"<h{level}>{esc(text.title(rng, lang))}</h{level}>")
        elif kind == "img":
            out.append(f"<p>{img(rng, lang)}</p>" if rng.random() < 0.5 else
                       f'<figure class="image">{img(rng, lang)}<figcaption>{esc(text.title(rng, lang))}</figcaption></figure>')
        elif kind == "table":
            out.append(table(rng, lang))
        elif kind == "ul":
            t = pick(rng, ["ul", "ol"])
            out.append(f"<{t}>" + "".join(f"<li>{inline(rng, lang)}</li>" for _ in range(rng.randint(2, 5))) + f"</{t}>")
        elif kind == "quote":
            out.append(f"<blockquote><p>{esc(text.sentence(rng, lang))}</p></blockquote>")
        elif kind == "pre":
            code = esc(pick(rng, CODE_SAMPLES))
            out.append(f'<pre class="language-{pick(rng, ["bash", "json", "markup"])}"><code>{code}</code></pre>')
        else:
            out.append("<hr>")
    sep = pick(rng, ["", "\n", "\r\n"])
    return sep.join(out)


def quill(rng, lang):
    out = []
    for _ in range(rng.randint(1, 7)):
        cls = pick(rng, ["", ' class="ql-align-center"', ' class="ql-indent-1"', ' class="ql-align-right"', ""])
        out.append(f"<p{cls}>{inline(rng, lang)}</p>")
        if rng.random() < 0.2:
            out.append("<p><br></p>")
    if rng.random() < 0.3:
        out.append('<ol><li data-list="bullet"><span class="ql-ui" contenteditable="false"></span>' + esc(text.sentence(rng, lang)) + "</li></ol>")
    return "".join(out)


def quill_delta(rng, lang):
    ops = []
    for _ in range(rng.randint(1, 8)):
        attrs = pick(rng, [None, {"bold": True}, {"italic": True}, {"link": f"https://{host(rng)}/"}, {"color": pick(rng, COLORS)}, {"header": 2}])
        op = {"insert": text.sentence(rng, lang) + pick(rng, [" ", "\n"])}
        if attrs:
            op["attributes"] = attrs
        ops.append(op)
    if rng.random() < 0.3:
        ops.append({"insert": {"image": f"https://cdn.example.net/{hexid(rng, 12)}.png"}})
    ops.append({"insert": "\n"})
    return {"ops": ops}


def prosemirror_html(rng, lang):
    return "".join(pick(rng, [f"<p>{inline(rng, lang)}</p>", f"<h2>{esc(text.title(rng, lang))}</h2>",
                               f'<ul><li><p>{esc(text.sentence(rng, lang))}</p></li><li><p>{esc(text.sentence(rng, lang))}</p></li></ul>',
                               f'<ul data-type="taskList"><li data-checked="{pick(rng, ["true", "false"])}" data-type="taskItem"><label><input type="checkbox"><span></span></label><div><p>{esc(text.sentence(rng, lang))}</p></div></li></ul>',
                               f'<pre><code class="language-{pick(rng, ["js", "python"])}">{esc(pick(rng, ["const x = a && b;", "if x < 10 and y > 2: pass"]))}</code></pre>'])
                   for _ in range(rng.randint(1, 7)))


def prosemirror_json(rng, lang):
    content = []
    for _ in range(rng.randint(1, 7)):
        kind = pick(rng, ["paragraph", "heading", "bulletList", "image"])
        if kind == "paragraph":
            t = [{"type": "text", "text": text.sentence(rng, lang)}]
            if rng.random() < 0.4:
                t.append({"type": "text", "marks": [{"type": pick(rng, ["bold", "italic", "code"])}], "text": text.product(rng, lang)})
            if rng.random() < 0.2:
                t.append({"type": "text", "marks": [{"type": "link", "attrs": {"href": f"https://{host(rng)}/", "target": "_blank"}}], "text": "link"})
            content.append({"type": "paragraph", "content": t})
        elif kind == "heading":
            content.append({"type": "heading", "attrs": {"level": rng.randint(1, 3)}, "content": [{"type": "text", "text": text.title(rng, lang)}]})
        elif kind == "bulletList":
            content.append({"type": "bulletList", "content": [{"type": "listItem", "content": [{"type": "paragraph", "content": [{"type": "text", "text": text.sentence(rng, lang)}]}]}
                                                              for _ in range(rng.randint(1, 4))]})
        else:
            content.append({"type": "image", "attrs": {"src": f"https://cdn.example.net/{hexid(rng, 12)}.png", "alt": text.title(rng, lang), "title": None}})
    return {"type": "doc", "content": content}


def gutenberg(rng, lang):
    blocks = []
    for _ in range(rng.randint(1, 6)):
        kind = pick(rng, ["paragraph", "heading", "image", "list", "quote"])
        if kind == "paragraph":
            blocks.append(f"<!-- wp:paragraph -->\n<p>{inline(rng, lang)}</p>\n<!-- /wp:paragraph -->")
        elif kind == "heading":
            blocks.append(f"<!-- wp:heading -->\n<h2 class=\"wp-block-heading\">{esc(text.title(rng, lang))}</h2>\n<!-- /wp:heading -->")
        elif kind == "image":
            iid = rng.randint(10, 9999)
            blocks.append(f'<!-- wp:image {{"id":{iid},"sizeSlug":"large","linkDestination":"none"}} -->\n<figure class="wp-block-image size-large">'
                          + img(rng, lang).replace("<img ", f'<img class="wp-image-{iid}" ') + "</figure>\n<!-- /wp:image -->")
        elif kind == "list":
            blocks.append("<!-- wp:list -->\n<ul class=\"wp-block-list\">" + "".join(f"<!-- wp:list-item -->\n<li>{esc(text.sentence(rng, lang))}</li>\n<!-- /wp:list-item -->"
                                                                                 for _ in range(rng.randint(2, 4))) + "</ul>\n<!-- /wp:list -->")
        else:
            blocks.append(f"<!-- wp:quote -->\n<blockquote class=\"wp-block-quote\"><!-- wp:paragraph -->\n<p>{esc(text.sentence(rng, lang))}</p>\n<!-- /wp:paragraph --><cite>{esc(text.name(rng, lang))}</cite></blockquote>\n<!-- /wp:quote -->")
    return "\n\n".join(blocks)


def email_html(rng, lang):
    name_ = text.name(rng, lang)
    return (f'<div dir="{"rtl" if lang in ("ar", "he") else "ltr"}" style="font-family: Arial, Helvetica, sans-serif; font-size: 14px;">'
            f"<div>{esc(pick(rng, text.L[lang]['openers']) or 'Hi,')}</div><div><br></div><div>{inline(rng, lang)}</div><div><br></div>"
            f'<div>{esc(text.sentence(rng, lang))}</div><br><div class="gmail_signature" data-smartmail="gmail_signature">--<br>'
            f'<b>{esc(name_)}</b> | {esc(pick(rng, ["Head of Sales", "Kundenservice", "Responsable e-commerce", "CTO"]))}<br>'
            f'<a href="https://{host(rng)}" target="_blank">{host(rng)}</a> &middot; +{rng.randint(1, 99)} {rng.randint(100, 999)} {rng.randint(1000, 9999)}</div></div>')


EDITORS = [(4, "tinymce", tinymce), (2, "quill", quill), (2, "prosemirror", prosemirror_html), (2, "gutenberg", gutenberg),
           (1, "email", email_html)]


def build(n=1500, seed=0x47E7):
    rng = random.Random(seed)
    c = Corpus("rich-text")
    for _ in range(n):
        lang = pick(rng, text.LANGUAGES)
        al = text.accept_language(rng, lang)
        _, ed, gen = weighted(rng, [(w, (w, e, g)) for w, e, g in EDITORS])
        mode = weighted(rng, [(4, "form"), (4, "json"), (1, "delta"), (1, "pm-json")])
        if mode == "form":
            hst = host(rng, pick(rng, ["www", "admin", "forum", "shop"]))
            path, fields = pick(rng, [
                ("/wp-admin/post.php", [("_wpnonce", hexid(rng, 10)), ("_wp_http_referer", "/wp-admin/post.php?post=%d&action=edit" % rng.randint(1, 9999)),
                                        ("user_ID", str(rng.randint(1, 50))), ("action", "editpost"), ("post_ID", str(rng.randint(1, 9999))),
                                        ("post_title", text.title(rng, lang)), ("content", gen(rng, lang)), ("excerpt", ""), ("post_status", pick(rng, ["draft", "publish"]))]),
                ("/admin/products/save", [("_token", alnum(rng, 40)), ("name", text.product(rng, lang)), ("description", gen(rng, lang)),
                                          ("price", f"{rng.randint(1, 900)}.{rng.randint(0, 99):02d}"), ("status", "active")]),
                ("/node/%d/edit" % rng.randint(1, 9999), [("title[0][value]", text.title(rng, lang)), ("body[0][value]", gen(rng, lang)),
                                                          ("body[0][format]", pick(rng, ["basic_html", "full_html"])), ("form_build_id", "form-" + alnum(rng, 43)),
                                                          ("form_token", alnum(rng, 43)), ("form_id", "node_article_edit_form"), ("op", "Save")]),
                ("/ucp.php?i=ucp_profile&mode=signature", [("signature", gen(rng, lang)), ("creation_time", str(rng.randint(1700000000, 1760000000))),
                                                             ("form_token", hexid(rng, 40)), ("submit", "Submit")])])
            c.add("POST", path, form_post(rng, hst, f"https://{hst}{path}", "application/x-www-form-urlencoded", cookie=cookie_header(rng), lang=al), form(fields))
        else:
            hst, ref = api_ref(rng, pick(rng, ["api", "cms", "app"]), pick(rng, ["admin", "app", "editor"]))
            if mode == "json":
                body = pick(rng, [{"title": text.title(rng, lang), "content": gen(rng, lang), "status": "draft", "format": "html"},
                                  {"article": {"title": text.title(rng, lang), "body_html": gen(rng, lang), "tags": "news, " + lang,
                                               "published": rng.random() < 0.5}},
                                  {"template": {"name": text.title(rng, lang), "subject": text.title(rng, lang), "html": email_html(rng, lang)}},
                                  {"post": {"raw_html": gen(rng, lang), "editor": ed, "autosave": True}, "id": uid(rng)}])
            elif mode == "delta":
                body = {"content": quill_delta(rng, lang), "html": quill(rng, lang), "noteId": uid(rng)}
            else:
                body = {"doc": prosemirror_json(rng, lang), "version": rng.randint(1, 900), "clientID": rng.randint(10 ** 8, 10 ** 9)}
            c.add(pick(rng, ["POST", "PUT", "PATCH"]), pick(rng, ["/wp-json/wp/v2/posts/%d" % rng.randint(1, 9999), "/admin/api/2025-01/articles.json",
                                                                   "/api/documents/" + uid(rng), "/api/templates", "/api/notes/" + uid(rng)]),
                  fetch(rng, hst, ref, content_type="application/json", auth=bearer(rng) if rng.random() < 0.5 else None,
                        extra=[("X-WP-Nonce", hexid(rng, 10))] if rng.random() < 0.3 else [], cookie=cookie_header(rng), lang=al), jsonb(body))
    return c
