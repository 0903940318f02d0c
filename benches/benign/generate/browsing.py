"""browsing.py: what a browser sends while people use ordinary websites, beyond the page and its analytics beacons
(beacons.txt) and header sets (clients.txt): the requests of the platforms and widgets sites are built from. CMS
and shop endpoints (WordPress admin-ajax, load-styles.php and the REST API, WooCommerce's Store API batches naming
each call by its route, Shopify cart and predictive search,
Magento customer sections, Drupal AJAX forms, ASP.NET WebForms postbacks with `ctl00$` field names and
`__VIEWSTATE`, Salesforce Experience Cloud aura actions); query languages sent from the browser (OData `$filter`,
Strapi and JSON:API filters, Algolia and Elasticsearch query strings, Mongo-style `where` JSON); fonts, images and
framework routes (Google Fonts css2 axes, Next.js data and image routes, Cloudinary and imgix transformations);
advertising and social tags with their long query strings (Google Ad Manager, Twitter, Pinterest, Bing UET, New
Relic, Adobe Analytics); widgets (reCAPTCHA, hCaptcha motion data, Stripe.js, Intercom, HubSpot forms, YouTube
embeds, Google Maps `pb=` tiles and JSONP services, consent managers); and what people type into site search.

Where the shapes come from: the public JavaScript of those platforms as it runs in a browser (parameter names,
separators, encodings and content types as their scripts write them), the OData 4.01 URL conventions, Algolia's
search API parameters, Strapi's REST filter syntax, the JSON:API recommendations for filtering, WordPress core
(`wp-admin/load-styles.php`, heartbeat), Shopify's AJAX API, Drupal's AJAX framework, ASP.NET WebForms control
naming, Salesforce's Aura framework. Every value is generated here; nothing is copied from recorded traffic.
"""
import base64
import json
import random
from urllib.parse import quote

from . import text
from .common import (Corpus, alnum, browser, cookie_header, fetch, form, form_post, hexid, jsonb, navigation, pick,
                     qs, site, ts, uid, weighted)

SEARCHES = ["c++ tutorial", "c# vs java", "what is 1=1", "\"exact phrase\" -exclude", "size 10 OR size 11",
            "union jack t-shirt", "drop shipping", "select comfort mattress", "order by date", "cat & dog beds",
            "rock 'n' roll", "o'reilly books", "50% off", "<3 stickers", "tom & jerry dvd", "usb-c -> hdmi",
            "1/2\" drill bit", "100 m² apartment", "café crème", "what's new", "where is my order?", "ping pong table",
            "echo dot", "node js course", "bash script examples", "alert bracelet", "script font", "table & chairs",
            "insert coin", "delete account", "admin login", "root vegetables", "etc etc", "null pointer exception",
            "shadow box frame", "drop table (furniture)", "1 or 2 seater sofa", "select * from users", "sleep mask",
            "benchmark pc", "char broil grill", "concat strings python", "from paris with love", "if then else",
            "$(document).ready not firing", "$('#id').val() returns undefined", "<div> vs <span>",
            "how to center a <div>", "git reset --hard HEAD~1", "npm i -D typescript", "x += 1 vs x = x + 1"]


def subresource(rng, hst, referer, dest, accept, b=None):
    fam, ua, hints, _ = b or browser(rng)
    h = [("Host", hst), ("Connection", "keep-alive")]
    if fam == "chrome":
        h += hints
    page_host = referer.split("/")[2]
    h += [("User-Agent", ua), ("Accept", accept),
          ("Sec-Fetch-Site", "same-origin" if page_host == hst else "cross-site"),
          ("Sec-Fetch-Mode", "cors" if dest in ("font", "empty") else "no-cors"), ("Sec-Fetch-Dest", dest),
          ("Referer", referer), ("Accept-Encoding", "gzip, deflate, br, zstd"),
          ("Accept-Language", pick(rng, ["en-US,en;q=0.9", "de-DE,de;q=0.9,en;q=0.8", "ja-JP,ja;q=0.9"]))]
    return h


ACCEPT_IMG = "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8"
ACCEPT_CSS = "text/css,*/*;q=0.1"


def page(rng, s=None):
    s = s or site(rng)
    return f"https://www.{s}" + pick(rng, ["/", "/products/" + alnum(rng, 8).lower(), "/blog/spring-update",
                                           "/search?q=" + quote(pick(rng, SEARCHES)), "/account", "/cart"]), s


def wordpress(rng, c):
    ref, s = page(rng)
    hst = f"www.{s}"
    cookie = cookie_header(rng)
    kind = rng.randrange(7)
    if kind == 6:  # WooCommerce's block cart: a Store API batch naming each call by its route
        key = hexid(rng, 32)
        route, data = pick(rng, [("/wc/store/v1/cart/remove-item", {"key": key}),
                                 ("/wc/store/v1/cart/update-item", {"key": key, "quantity": rng.randint(1, 5)}),
                                 ("/wc/store/v1/cart/apply-coupon", {"code": pick(rng, ["WELCOME10", "BLACKFRIDAY", "été-15"])}),
                                 ("/wc/store/v1/cart/select-shipping-rate", {"package_id": 0, "rate_id": "flat_rate:1"})])
        body = jsonb({"requests": [{"method": "POST", "path": route, "headers": {"Nonce": hexid(rng, 10)},
                                    "body": data, "cache": "no-store"}]})
        c.add("POST", "/wp-json/wc/store/v1/batch?_locale=user",
              fetch(rng, hst, f"https://{hst}/cart/", content_type="application/json", cookie=cookie,
                    extra=[("Nonce", hexid(rng, 10))]), body)
    elif kind == 5:  # the block editor's autosave: blocks between comments
        blocks = [f'<!-- wp:heading --><h2 class="wp-block-heading">{text.title(rng)}</h2><!-- /wp:heading -->',
                  f'<!-- wp:paragraph --><p>{text.sentence(rng)}</p><!-- /wp:paragraph -->',
                  '<!-- wp:buttons --><div class="wp-block-buttons"><!-- wp:button --><div class="wp-block-button">'
                  f'<a class="wp-block-button__link wp-element-button" href="/shop">{pick(rng, ["Shop now", "Read more", "Jetzt kaufen"])}'
                  '</a></div><!-- /wp:button --></div><!-- /wp:buttons -->',
                  f'<!-- wp:image {{"id":{rng.randint(1, 999)},"sizeSlug":"large"}} --><figure class="wp-block-image size-large">'
                  f'<img src="/wp-content/uploads/2024/05/{alnum(rng, 8)}.jpg" alt="" class="wp-image-{rng.randint(1, 999)}"/>'
                  '</figure><!-- /wp:image -->']
        body = jsonb({"id": rng.randint(1, 999), "title": text.title(rng),
                      "content": "\n\n".join(rng.sample(blocks, rng.randint(1, 4))), "excerpt": ""})
        c.add("POST", f"/wp-json/wp/v2/posts/{rng.randint(1, 999)}/autosaves?_locale=user",
              fetch(rng, hst, f"https://{hst}/wp-admin/post.php?post=12&action=edit", content_type="application/json",
                    cookie=cookie, extra=[("X-WP-Nonce", hexid(rng, 10))]), body)
    elif kind == 0:
        handles = ["dashicons", "admin-bar", "common", "forms", "admin-menu", "dashboard", "list-tables", "edit",
                   "revisions", "media", "themes", "about", "nav-menus", "wp-pointer", "widgets", "site-icon",
                   "l10n", "buttons", "wp-auth-check", "media-views", "editor-buttons"]
        chunks = "&".join(f"load%5Bchunk_{i}%5D=" + ",".join(rng.sample(handles, rng.randint(3, 12)))
                          for i in range(rng.randint(1, 3)))
        script = pick(rng, ["load-styles.php", "load-scripts.php"])
        c.add("GET", f"/wp-admin/{script}?c=0&dir=ltr&{chunks}&ver=6.{rng.randint(3, 7)}.{rng.randint(0, 3)}",
              subresource(rng, hst, f"https://{hst}/wp-admin/", "style" if "styles" in script else "script",
                          ACCEPT_CSS if "styles" in script else "*/*"))
    elif kind == 1:
        body = form([("data[wp-refresh-post-lock][post_id]", str(rng.randint(1, 9999))),
                     ("data[wp-refresh-post-lock][lock]", f"{ts(rng) // 1000}:{rng.randint(1, 9)}"),
                     ("data[wp-check-locked-posts][]", f"post-{rng.randint(1, 999)}"),
                     ("interval", pick(rng, ["15", "60", "120"])), ("_nonce", hexid(rng, 10)),
                     ("action", "heartbeat"), ("screen_id", pick(rng, ["post", "edit-post", "dashboard"])),
                     ("has_focus", pick(rng, ["true", "false"]))])
        c.add("POST", "/wp-admin/admin-ajax.php",
              fetch(rng, hst, f"https://{hst}/wp-admin/post.php?post=12&action=edit",
                    content_type="application/x-www-form-urlencoded; charset=UTF-8",
                    accept="application/json, text/javascript, */*; q=0.01", cookie=cookie,
                    extra=[("X-Requested-With", "XMLHttpRequest")]), body)
    elif kind == 2:
        q = qs([("per_page", str(pick(rng, [10, 20, 100]))), ("_embed", "1"),
                ("categories", ",".join(str(rng.randint(1, 40)) for _ in range(rng.randint(1, 3)))),
                ("orderby", pick(rng, ["date", "title", "menu_order"])), ("order", pick(rng, ["desc", "asc"])),
                ("_fields", "id,title,link,excerpt,_links,_embedded"),
                ("search", pick(rng, SEARCHES))])
        c.add("GET", f"/wp-json/wp/v2/posts?{q}", fetch(rng, hst, ref, cookie=cookie,
                                                       extra=[("X-WP-Nonce", hexid(rng, 10))]))
    elif kind == 3:
        asset = pick(rng, ["/wp-includes/js/jquery/jquery.min.js?ver=3.7.1",
                           "/wp-content/plugins/elementor/assets/css/frontend.min.css?ver=3.21.5",
                           "/wp-content/plugins/woocommerce/assets/js/frontend/cart-fragments.min.js?ver=8.9.1",
                           "/wp-content/themes/astra/assets/css/minified/main.min.css?ver=4.6.14",
                           "/wp-includes/css/dist/block-library/style.min.css?ver=6.5.3",
                           "/?wc-ajax=get_refreshed_fragments", "/wp-content/uploads/2024/05/hero-1024x683.jpg",
                           "/wp-content/uploads/2024/05/hero.jpg?resize=300%2C200&ssl=1"])
        c.add("GET", asset, subresource(rng, hst, ref, "script" if ".js" in asset else "style" if ".css" in asset
                                        else "image", "*/*"))
    else:
        body = form([("_wpcf7", str(rng.randint(1, 999))), ("_wpcf7_version", "5.9.5"), ("_wpcf7_locale", "en_US"),
                     ("_wpcf7_unit_tag", f"wpcf7-f{rng.randint(1, 999)}-p{rng.randint(1, 999)}-o1"),
                     ("_wpcf7_container_post", str(rng.randint(1, 999))), ("your-name", text.name(rng)),
                     ("your-email", f"{alnum(rng, 6).lower()}@example.com"),
                     ("your-subject", text.title(rng)), ("your-message", text.prose(rng))])
        c.add("POST", f"/wp-json/contact-form-7/v1/contact-forms/{rng.randint(1, 999)}/feedback",
              fetch(rng, hst, ref, content_type="application/x-www-form-urlencoded; charset=UTF-8", cookie=cookie),
              body)


def shopify(rng, c):
    ref, s = page(rng)
    hst = f"www.{s}"
    cookie = cookie_header(rng)
    kind = rng.randrange(4)
    if kind == 0:
        body = form([("form_type", "product"), ("utf8", "✓"), ("id", str(rng.randint(10**13, 10**14))),
                     ("quantity", str(rng.randint(1, 4))), ("properties[_gift_wrap]", pick(rng, ["yes", "no"])),
                     ("properties[Engraving]", pick(rng, ["J & M 2024", "Love, Mom <3", "#1 Dad", ""])),
                     ("sections", "cart-notification-product,cart-notification-button,cart-icon-bubble"),
                     ("sections_url", "/products/" + alnum(rng, 8).lower())])
        c.add("POST", "/cart/add", fetch(rng, hst, ref, content_type="application/x-www-form-urlencoded",
                                         accept="application/javascript", cookie=cookie,
                                         extra=[("X-Requested-With", "XMLHttpRequest")]), body)
    elif kind == 1:
        q = qs([("q", pick(rng, SEARCHES)), ("resources[type]", "product,collection,query,page"),
                ("resources[limit]", "4"), ("resources[limit_scope]", "each"),
                ("resources[options][unavailable_products]", "last"), ("resources[options][fields]",
                                                                       "title,product_type,variants.title,vendor"),
                ("section_id", "predictive-search")])
        c.add("GET", f"/search/suggest?{q}", fetch(rng, hst, ref, accept="*/*", cookie=cookie))
    elif kind == 2:
        body = jsonb({"updates": {str(rng.randint(10**13, 10**14)): rng.randint(0, 3)},
                      "attributes": {"Gift note": text.sentence(rng)[:120], "How did you hear about us?": "Instagram"},
                      "note": pick(rng, ["Please leave at the door; ring twice!", "", "Don't fold the poster :)"])})
        c.add("POST", "/cart/update.js", fetch(rng, hst, ref, content_type="application/json", cookie=cookie), body)
    else:
        c.add("GET", f"/cdn/shop/files/{alnum(rng, 10)}.jpg?v={ts(rng) // 1000}&width={pick(rng, [165, 360, 533, 720])}",
              subresource(rng, hst, ref, "image", ACCEPT_IMG))


def cms_forms(rng, c):
    ref, s = page(rng)
    hst = f"www.{s}"
    kind = rng.randrange(4)
    if kind == 0:  # ASP.NET WebForms postback
        body = form([("__EVENTTARGET", pick(rng, ["ctl00$MainContent$btnSearch", "ctl00$ContentPlaceHolder1$gvOrders",
                                                   ""])),
                     ("__EVENTARGUMENT", pick(rng, ["", "Page$2", "Sort$OrderDate", "Select$3"])),
                     ("__VIEWSTATE", base64.b64encode(bytes(rng.randrange(256) for _ in range(rng.randint(60, 600)))
                                                      ).decode()),
                     ("__VIEWSTATEGENERATOR", hexid(rng, 8).upper()),
                     ("__EVENTVALIDATION", base64.b64encode(bytes(rng.randrange(256) for _ in range(80))).decode()),
                     ("ctl00$MainContent$txtName", text.name(rng)),
                     ("ctl00$MainContent$txtComments", text.prose(rng)),
                     ("ctl00$MainContent$ddlCountry", pick(rng, ["DE", "US", "FR", "JP"])),
                     ("ctl00$MainContent$chkTerms", "on")])
        c.add("POST", pick(rng, ["/Default.aspx", "/Account/Register.aspx", "/Orders/List.aspx?status=open"]),
              form_post(rng, hst, ref, "application/x-www-form-urlencoded", cookie=cookie_header(rng)), body)
    elif kind == 1:  # Drupal AJAX
        body = form([("form_build_id", "form-" + alnum(rng, 43)), ("form_id", "views_exposed_form"),
                     ("keys", pick(rng, SEARCHES)), ("_triggering_element_name", "op"),
                     ("_triggering_element_value", "Apply"), ("_drupal_ajax", "1"),
                     ("ajax_page_state[theme]", "olivero"), ("ajax_page_state[theme_token]", ""),
                     ("ajax_page_state[libraries]", "eJxdjEEOwjAMBD_k1k-" + alnum(rng, 40))])
        c.add("POST", "/views/ajax?_wrapper_format=drupal_ajax",
              fetch(rng, hst, ref, content_type="application/x-www-form-urlencoded; charset=UTF-8",
                    accept="application/json, text/javascript, */*; q=0.01",
                    extra=[("X-Requested-With", "XMLHttpRequest")]), body)
    elif kind == 2:  # Magento customer sections
        c.add("GET", f"/customer/section/load/?sections={quote('cart,messages,customer,compare-products', safe='')}"
                     f"&force_new_section_timestamp={pick(rng, ['true', 'false'])}&_={ts(rng)}",
              fetch(rng, hst, ref, accept="application/json, text/javascript, */*; q=0.01", cookie=cookie_header(rng),
                    extra=[("X-Requested-With", "XMLHttpRequest")]))
    else:  # Salesforce Experience Cloud (Aura)
        message = {"actions": [{"id": f"{rng.randint(100, 999)};a",
                                "descriptor": "aura://ApexActionController/ACTION$execute",
                                "callingDescriptor": "UNKNOWN",
                                "params": {"namespace": "", "classname": "CaseController", "method": "getCases",
                                           "params": {"status": "Open", "searchTerm": pick(rng, SEARCHES)},
                                           "cacheable": False, "isContinuation": False}}]}
        context = {"mode": "PROD", "fwuid": alnum(rng, 22), "app": "siteforce:communityApp",
                   "loaded": {"APPLICATION@markup://siteforce:communityApp": alnum(rng, 22)}, "dn": [], "globals": {},
                   "uad": False}
        body = form([("message", json.dumps(message, separators=(",", ":"), ensure_ascii=False)),
                     ("aura.context", json.dumps(context, separators=(",", ":"), ensure_ascii=False)),
                     ("aura.pageURI", "/s/cases?tab=open"), ("aura.token", "null")])
        c.add("POST", f"/s/sfsites/aura?r={rng.randint(1, 60)}&aura.ApexAction.execute=1",
              fetch(rng, hst, ref, content_type="application/x-www-form-urlencoded;charset=UTF-8", accept="*/*"), body)


def query_languages(rng, c):
    ref, s = page(rng)
    hst = pick(rng, [f"www.{s}", f"api.{s}"])
    kind = rng.randrange(6)
    term = pick(rng, SEARCHES).replace("'", "''")
    if kind == 0:  # OData
        filt = pick(rng, [f"Price gt {rng.randint(1, 99)} and Price le {rng.randint(100, 999)}",
                          f"contains(Name,'{term}') or startswith(Sku,'{alnum(rng, 3)}')",
                          f"Status eq 'Open' and CreatedOn ge {2024 + rng.randint(0, 2)}-0{rng.randint(1, 9)}-01T00:00:00Z",
                          f"substringof('{term}',Title) eq true", "Category/Name eq 'Garden & Outdoor'",
                          f"not (Discontinued eq true) and UnitsInStock lt {rng.randint(1, 20)}"])
        q = qs([("$filter", filt), ("$orderby", pick(rng, ["Name desc", "CreatedOn desc,Name", "Price"])),
                ("$top", str(pick(rng, [10, 20, 50]))), ("$skip", str(rng.randint(0, 5) * 20)),
                ("$select", "Id,Name,Price,Status"), ("$expand", "Category($select=Name)"), ("$count", "true")])
        c.add("GET", f"/odata/v4/{pick(rng, ['Products', 'Orders', 'Cases', 'Customers'])}?{q}",
              fetch(rng, hst, ref, accept="application/json;odata.metadata=minimal", cookie=cookie_header(rng)))
    elif kind == 1:  # Strapi
        q = qs([("filters[title][$containsi]", pick(rng, SEARCHES)), ("filters[price][$lte]", str(rng.randint(5, 500))),
                ("filters[$or][0][category][slug][$eq]", "shoes"), ("filters[$or][1][category][slug][$eq]", "boots"),
                ("populate", pick(rng, ["*", "deep,3", "cover,category,author.avatar"])),
                ("sort[0]", "publishedAt:desc"), ("pagination[page]", str(rng.randint(1, 9))),
                ("pagination[pageSize]", "25"), ("locale", pick(rng, ["en", "de", "fr-FR"]))])
        c.add("GET", f"/api/articles?{q}", fetch(rng, hst, ref))
    elif kind == 2:  # JSON:API
        q = qs([("filter[category]", "shoes,boots"), ("filter[price][gte]", str(rng.randint(1, 50))),
                ("filter[name][contains]", pick(rng, SEARCHES)), ("sort", "-created_at,name"),
                ("include", "images,variants.options"), ("fields[products]", "name,price,slug"),
                ("page[size]", "24"), ("page[number]", str(rng.randint(1, 20)))])
        c.add("GET", f"/api/v1/products?{q}", fetch(rng, hst, ref, accept="application/vnd.api+json"))
    elif kind == 3:  # Algolia
        params = qs([("query", pick(rng, SEARCHES)), ("hitsPerPage", "20"), ("page", str(rng.randint(0, 5))),
                     ("facets", json.dumps(["brand", "categories.lvl0", "price"])),
                     ("filters", pick(rng, [f"price >= {rng.randint(1, 50)} AND price <= {rng.randint(60, 900)}",
                                            "(category:Book OR category:Ebook) AND NOT author:\"Jane Doe\"",
                                            "inStock:true AND (brand:\"Levi's\" OR brand:\"O'Neill\")"])),
                     ("numericFilters", json.dumps([f"rating>={rng.randint(1, 4)}"])),
                     ("highlightPreTag", "__ais-highlight__"), ("highlightPostTag", "__/ais-highlight__"),
                     ("clickAnalytics", "true"), ("tagFilters", "")])
        body = jsonb({"requests": [{"indexName": "prod_products", "params": params}]})
        agent = ("Algolia for JavaScript (4.23.3); Browser (lite); instantsearch.js (4.68.0); react (18.3.1); "
                 "react-instantsearch (7.9.0); react-instantsearch-core (7.9.0); JS Helper (3.19.0)")
        q = qs([("x-algolia-agent", agent), ("x-algolia-api-key", hexid(rng, 32)),
                ("x-algolia-application-id", alnum(rng, 10).upper())])
        c.add("POST", f"/1/indexes/*/queries?{q}",
              fetch(rng, f"{alnum(rng, 10).upper()}-dsn.algolia.net", ref,
                    content_type="application/x-www-form-urlencoded", accept="*/*"), body)
    elif kind == 4:  # Elasticsearch / Lucene query strings behind a site search
        q = qs([("q", pick(rng, ["title:(quick OR brown) AND status:active", "tags:\"rock 'n' roll\" -draft",
                                 "price:[10 TO 100] AND brand:acme*", f"{pick(rng, SEARCHES)}~2",
                                 "author:o'brien OR author:\"d'angelo\""])),
                ("from", str(rng.randint(0, 5) * 10)), ("size", "10"), ("sort", "_score:desc,date:desc")])
        c.add("GET", f"/search/api?{q}", fetch(rng, hst, ref))
    else:  # Parse / Mongo-style where JSON
        where = pick(rng, [{"status": {"$in": ["active", "pending"]}, "price": {"$gte": rng.randint(1, 50)}},
                           {"$or": [{"title": {"$regex": "^" + alnum(rng, 4), "$options": "i"}},
                                    {"tags": "sale"}]}, {"owner": {"__type": "Pointer", "className": "_User",
                                                                    "objectId": alnum(rng, 10)}}])
        q = qs([("where", json.dumps(where, separators=(",", ":"), ensure_ascii=False)), ("limit", "20"), ("order", "-createdAt"),
                ("keys", "title,price,owner")])
        c.add("GET", f"/parse/classes/Item?{q}", fetch(rng, hst, ref, extra=[("X-Parse-Application-Id",
                                                                              alnum(rng, 20))]))


def assets(rng, c):
    ref, s = page(rng)
    kind = rng.randrange(5)
    if kind == 0:
        fam = pick(rng, ["Roboto:ital,wght@0,400;0,700;1,400", "Open+Sans:wght@300..800",
                         "Inter:opsz,wght@14..32,100..900", "Noto+Sans+JP:wght@400;700", "Material+Symbols+Outlined:"
                         "opsz,wght,FILL,GRAD@20..48,100..700,0..1,-50..200", "Playfair+Display:ital@0;1"])
        c.add("GET", f"/css2?family={fam}&family=Lato:wght@400;700&display=swap",
              subresource(rng, "fonts.googleapis.com", ref, "style", ACCEPT_CSS))
    elif kind == 1:
        build = alnum(rng, 21)
        slug = alnum(rng, 8).lower()
        c.add("GET", pick(rng, [f"/_next/data/{build}/en/products/{slug}.json?slug={slug}",
                                f"/_next/image?url=%2F_next%2Fstatic%2Fmedia%2Fhero.{hexid(rng, 8)}.jpg&w="
                                f"{pick(rng, [640, 1080, 1920, 3840])}&q=75",
                                f"/_next/image?url=https%3A%2F%2Fimages.ctfassets.net%2F{alnum(rng, 12)}%2F"
                                f"{alnum(rng, 22)}%2F{hexid(rng, 32)}%2Fphoto.png%3Ffm%3Dwebp&w=828&q=80",
                                f"/_next/static/chunks/pages/_app-{hexid(rng, 16)}.js"]),
              subresource(rng, f"www.{s}", ref, "empty" if "/data/" in ref else "image", "*/*"))
    elif kind == 2:
        t = pick(rng, ["c_fill,g_auto,w_400,h_300/f_auto,q_auto", "c_scale,w_auto,dpr_2.0/e_sharpen:80",
                       "t_product_thumb/f_auto", "w_1200,h_630,c_fill,l_text:Arial_60_bold:Summer%20Sale,co_white"])
        c.add("GET", f"/{alnum(rng, 8).lower()}/image/upload/{t}/v{ts(rng) // 1000}/products/{alnum(rng, 10)}.jpg",
              subresource(rng, "res.cloudinary.com", ref, "image", ACCEPT_IMG))
    elif kind == 3:
        c.add("GET", f"/{alnum(rng, 12)}.jpg?auto=format,compress&fit=crop&crop=faces,entropy&w={rng.randint(100, 900)}"
                     f"&h={rng.randint(100, 900)}&dpr={pick(rng, [1, 2, 3])}&ixlib=react-9.8.1",
              subresource(rng, f"{alnum(rng, 8).lower()}.imgix.net", ref, "image", ACCEPT_IMG))
    else:
        c.add("GET", pick(rng, ["/maps/vt?pb=!1m5!1m4!1i12!2i2183!3i1382!4i256!2m3!1e0!2sm!3i633415088!3m17!2sen!3sUS"
                                "!5e18!12m4!1e68!2m2!1sset!2sRoadmap!12m3!1e37!2m1!1ssmartmaps!12m4!1e26!2m2!1sstyles"
                                "!2zcy5lOmd8cC5jOiNmZmY1ZjVmNSxzLmU6bC5pfHAudjpvZmY!4e0!5m1!5f2",
                                f"/maps/api/js/AuthenticationService.Authenticate?1shttps%3A%2F%2Fwww.{s}%2Fcontact"
                                f"&4sAIza{alnum(rng, 35)}&8b0&callback=_xdc_._{alnum(rng, 6).lower()}&"
                                f"key=AIza{alnum(rng, 35)}&token={rng.randint(1000, 99999)}",
                                f"/maps/api/place/js/AutocompletionService.GetPredictionsJson?1s"
                                f"{quote(text.address(rng, 'en'))}&4sen-US&15e3&21m1&2e1&callback=_xdc_._"
                                f"{alnum(rng, 6).lower()}&key=AIza{alnum(rng, 35)}&token={rng.randint(1000, 99999)}"]),
              subresource(rng, "maps.googleapis.com", ref, "script", "*/*"))


def ads_and_tags(rng, c):
    ref, s = page(rng)
    enc = quote(ref, safe="")
    kind = rng.randrange(8)
    if kind == 0:
        uach = base64.urlsafe_b64encode(json.dumps(["Windows", "15.0.0", "x86", "", "131.0.6778.86", None, 0, None,
                                                    "64", [["Google Chrome", "131.0.6778.86"],
                                                           ["Chromium", "131.0.6778.86"],
                                                           ["Not_A Brand", "24.0.0.0"]], 0]).encode()).decode()
        q = (f"pvsid={rng.randint(10**14, 10**15)}&correlator={rng.randint(10**14, 10**15)}&eid=31080000%2C"
             f"{rng.randint(10**7, 10**8)}&output=ldjh&gdfp_req=1&vrg=202411210101&ptt=17&impl=fifs&iu_parts="
             f"{rng.randint(10**6, 10**7)}%2C{s.split('.')[0]}%2Chome&enc_prev_ius=%2F0%2F1%2F2&prev_iu_szs=300x250%7C"
             f"320x50%2C728x90&prev_scp=pos%3Dtop%26kw%3D{quote(pick(rng, SEARCHES))}%7Cpos%3Dside&cust_params="
             f"section%3Dnews%26tags%3Dsale%2Cnew&cookie_enabled=1&abxe=1&dt={ts(rng)}&lmt={ts(rng) // 1000}&dlt="
             f"{ts(rng)}&idt={rng.randint(100, 999)}&adxs=0&adys=0&biw=1905&bih=953&scr_x=0&scr_y=0&btvi=0&ucis=1"
             f"&oid=2&u_his=2&u_h=1080&u_w=1920&u_ah=1032&u_aw=1920&u_cd=24&u_sd=1&dmc=8&bc=31&nvt=1&uach={uach}"
             f"&uas=3&url={enc}&vis=1&psz=1200x600&msz=1200x-1&fws=4&ohw=1905&ga_vid={rng.randint(10**8, 10**9)}."
             f"{ts(rng) // 1000}&ga_sid={ts(rng) // 1000}&ga_hid={rng.randint(10**8, 10**9)}&ga_fc=true&topics=1"
             f"&tps=1&htps=10&a3p=EhcKDGdvb2dsZS5jb20aBQ&nt=1&td=1&psd=W251bGwsbnVsbCxudWxsLDNd&bz=1&pgls=CAEaBTYuNS4z")
        c.add("GET", f"/gampad/ads?{q}", subresource(rng, "securepubads.g.doubleclick.net", ref, "empty", "*/*"))
    elif kind == 1:
        dv = quote(f"UTC&en-US&Google Inc.&Win32&127&1920&1080&12&24&1920&1032&0&na", safe="")
        c.add("GET", f"/i/adsct?bci=4&dv={dv}&eci=3&event=%7B%7D&event_id={uid(rng)}&integration=advertiser"
                     f"&p_id=Twitter&p_user_id=0&pl_id={uid(rng)}&tw_document_href={enc}&tw_iframe_status=0"
                     f"&txn_id={alnum(rng, 5).lower()}&type=javascript&version=2.3.30",
              subresource(rng, "t.co", ref, "image", ACCEPT_IMG))
    elif kind == 2:
        ad = quote(json.dumps({"loc": ref, "ref": "https://www.google.com/", "if": False, "sh": 1080, "sw": 1920,
                               "mh": hexid(rng, 8), "is_eu": True, "ecm_enabled": True, "pdt": "Default"},
                              separators=(",", ":")), safe="")
        c.add("GET", f"/v3/?event=init&tid={rng.randint(10**12, 10**13)}&pd=%7B%22np%22%3A%22gtm%22%7D&ad={ad}"
                     f"&cb={ts(rng)}", subresource(rng, "ct.pinterest.com", ref, "image", ACCEPT_IMG))
    elif kind == 3:
        c.add("GET", f"/action/0?ti={rng.randint(10**7, 10**8)}&tm=gtm002&Ver=2&mid={uid(rng)}&bo=1&sid="
                     f"{hexid(rng, 8)}&vid={hexid(rng, 8)}&vids=0&msclkid=N&uach=pv%3D15.0.0&pi=918639831&lg=en-US"
                     f"&sw=1920&sh=1080&sc=24&tl={quote(text.title(rng, 'en'))}&p={enc}&r=&lt={rng.randint(300, 3000)}"
                     f"&evt=pageLoad&sv=1&cdb=AQAQ&rn={rng.randint(1, 999999)}",
              subresource(rng, "bat.bing.com", ref, "image", ACCEPT_IMG))
    elif kind == 4:
        perf = ('{"timing":{"of":' + str(ts(rng)) + ',"n":0,"f":6,"dn":6,"dne":6,"c":6,"ce":6,"rq":9,"rp":343,'
                '"rpe":351,"dl":348,"di":1203,"ds":1203,"de":1210,"dc":1390,"l":1390,"le":1392},"navigation":{}}')
        c.add("GET", f"/1/NRJS-{hexid(rng, 19)}?a={rng.randint(10**8, 10**9)}&sa=1&v=1.270.2&t=Unnamed%20"
                     f"Transaction&rst={rng.randint(1000, 9999)}&ck=0&s={hexid(rng, 16)}&ref={ref.split('?')[0]}"
                     f"&be=343&fe=1203&dc=743&af=err,xhr,stn,ins,spa&perf={quote(perf, safe=':,{}')}&fp=519&fcp=519"
                     f"&jsonp=NREUM.setToken", subresource(rng, "bam.nr-data.net", ref, "script", "*/*"))
    elif kind == 5:
        q = (f"AQB=1&ndh=1&pf=1&t={quote('28/10/2026 12:0:0 6 -60')}&fid={hexid(rng, 16).upper()}-"
             f"{hexid(rng, 16).upper()}&ce=UTF-8&pageName={quote('shop:product:' + alnum(rng, 6).lower())}&g={enc}"
             f"&r={quote('https://www.google.com/')}&cc=USD&ch=shop&events=prodView%2Cevent3&products=%3B"
             f"{alnum(rng, 6)}%3B1%3B49.99&c1=D%3DpageName&v1=D%3Dc1&h1=shop%7Cproduct&.c&cm.&ssf=1&.cm&c.&"
             f"s=1920x1080&c=24&j=1.6&v=N&k=Y&bw=1905&bh=953&AQE=1")
        c.add("GET", f"/b/ss/{s.split('.')[0]}prod/1/JS-2.22.4/s{rng.randint(10**13, 10**14)}?{q}",
              subresource(rng, f"smetrics.{s}", ref, "image", ACCEPT_IMG))
    elif kind == 6:
        # Floodlight: the parameters are `;name=value` pairs in the path, the client hints' values encoded twice.
        src = rng.randint(10**6, 10**7)
        brands = quote(pick(rng, ["Google%20Chrome;131.0.6778.86|Chromium;131.0.6778.86|Not_A%20Brand;24.0.0.0",
                                  "Not.A%2FBrand;8.0.0.0|Chromium;114.0.5735.199|Google%20Chrome;114.0.5735.199"]),
                       safe="")
        u1 = quote(quote(f'"{uid(rng)}"'), safe="")
        c.add("GET", f"/activityi;src={src};type={pick(rng, ['visit', 'sales', 'invmedia', 'conv0'])};cat="
                     f"{alnum(rng, 8).lower()};ord={rng.randint(10**12, 10**13)};npa=0;auiddc="
                     f"{rng.randint(10**8, 10**9)}.{ts(rng) // 1000};u1={u1};uaa=x86;"
                     f"uab=64;uafvl={brands};uamb=0;uam=;uap=Windows;uapv=15.0.0;uaw=0;pscdl=noapi;frm=0;"
                     f"gtm=45fe4b{rng.randint(10, 99)}v9;gcs=G111;gcd=13r3r3r3r5l1;dma=0;epver=2;~oref={enc}?",
              subresource(rng, f"{src}.fls.doubleclick.net", ref, "iframe",
                          "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"))
    else:
        # User sync: an ad exchange redirects the browser to a partner's URL, passed along with the macros the next
        # server fills in (its user id, IAB TCF's `${GDPR}` and `${GDPR_CONSENT_<vendor>}`).
        uid_macro = pick(rng, ["${UUID}", "${UID}", "${USER_ID}", "${TA_DEVICE_ID}", "${profile_id}", "${BASE64_UID_ENC}"])
        partner = pick(rng, [f"https://sync.{alnum(rng, 6).lower()}.example/ibs:dpid={rng.randint(100, 999)}&dpuuid={uid_macro}",
                             f"https://cm.{alnum(rng, 6).lower()}.example/pixel?nid=x{rng.randint(1, 9)}&hm={uid_macro}&cm",
                             f"https://pixel.{alnum(rng, 6).lower()}.example/tap.php?v={rng.randint(1000, 99999)}&nid="
                             f"{rng.randint(100, 9999)}&put={uid_macro}&expires=30&gdpr=${{GDPR}}&gdpr_consent="
                             f"${{GDPR_CONSENT_{rng.randint(1, 999)}}}"])
        path = pick(rng, [f"/idsync/ex/receive?partner_id={alnum(rng, 3).upper()}&partner_url={quote(partner, safe='')}",
                          f"/getuid?{quote(partner, safe='')}",
                          f"/usersync?gdpr=1&gdpr_consent={alnum(rng, 60)}&redir={quote(partner, safe='')}"])
        c.add("GET", path, subresource(rng, f"sync.{alnum(rng, 7).lower()}.example", ref, "image", ACCEPT_IMG))


def widgets(rng, c):
    ref, s = page(rng)
    kind = rng.randrange(6)
    if kind == 0:
        co = base64.b64encode(f"https://www.{s}:443".encode()).decode().rstrip("=") + "."
        c.add("GET", f"/recaptcha/api2/anchor?ar=1&k=6L{alnum(rng, 38)}&co={co}&hl=en&v={alnum(rng, 24)}"
                     f"&size=invisible&cb={alnum(rng, 12).lower()}",
              subresource(rng, "www.google.com", ref, "iframe", "text/html,application/xhtml+xml,*/*;q=0.8"))
    elif kind == 1:
        motion = {"st": ts(rng), "mm": [[rng.randint(0, 1900), rng.randint(0, 1000), ts(rng)] for _ in range(8)],
                  "mm-mp": 13.5, "md": [[412, 37, ts(rng)]], "mu": [[412, 37, ts(rng)]],
                  "v": 1, "topLevel": {"inv": False, "st": ts(rng), "sc": {"availWidth": 1920, "availHeight": 1032,
                                                                             "width": 1920, "height": 1080,
                                                                             "colorDepth": 24, "pixelDepth": 24},
                                       "nv": {"vendorSub": "", "productSub": "20030107", "vendor": "Google Inc.",
                                              "webdriver": False, "hardwareConcurrency": 8,
                                              "userAgent": browser(rng)[1], "plugins": ["internal-pdf-viewer"]},
                                       "dr": "", "exec": False, "wn": [[1905, 953, 1, ts(rng)]]},
                  "session": [], "widgetList": [alnum(rng, 12).lower()], "href": ref}
        body = form([("v", hexid(rng, 7)), ("sitekey", uid(rng)), ("host", f"www.{s}"), ("hl", "en"),
                     ("motionData", json.dumps(motion, separators=(",", ":"), ensure_ascii=False)), ("n", alnum(rng, 200)),
                     ("c", json.dumps({"type": "hsw", "req": alnum(rng, 120)}, separators=(",", ":"), ensure_ascii=False))])
        c.add("POST", f"/getcaptcha/{uid(rng)}", fetch(rng, "api.hcaptcha.com", ref,
                                                        content_type="application/x-www-form-urlencoded"), body)
    elif kind == 2:
        body = form([("type", "card"), ("billing_details[name]", text.name(rng)),
                     ("billing_details[address][postal_code]", str(rng.randint(10000, 99999))),
                     ("card[number]", "4242424242424242"), ("card[cvc]", str(rng.randint(100, 999))),
                     ("card[exp_month]", str(rng.randint(1, 12))), ("card[exp_year]", str(rng.randint(26, 32))),
                     ("guid", uid(rng) + hexid(rng, 6)), ("muid", uid(rng) + hexid(rng, 6)),
                     ("sid", uid(rng) + hexid(rng, 6)),
                     ("payment_user_agent", "stripe.js/78ef418; stripe-js-v3/78ef418; card-element"),
                     ("referrer", ref.split("?")[0]), ("time_on_page", str(rng.randint(2000, 90000))),
                     ("key", "pk_live_" + alnum(rng, 99))])
        c.add("POST", "/v1/payment_methods", fetch(rng, "api.stripe.com", ref,
                                                   content_type="application/x-www-form-urlencoded"), body)
    elif kind == 3:
        body = form([("app_id", alnum(rng, 8).lower()), ("v", "3"), ("g", hexid(rng, 40)), ("s", uid(rng)),
                     ("r", ""), ("platform", "web"), ("installation_type", "js-snippet"),
                     ("Idempotency-Key", hexid(rng, 16)), ("internal", "{}"), ("is_intersection_booted", "null"),
                     ("page_title", text.title(rng) + " — " + s.split(".")[0].title()),
                     ("user_active_company_id", "undefined"),
                     ("user_data", json.dumps({"email": f"{alnum(rng, 6).lower()}@example.com", "name": text.name(rng),
                                               "user_hash": hexid(rng, 64)}, separators=(",", ":"), ensure_ascii=False)),
                     ("source", "apiBoot"), ("sampling", "false"), ("referer", ref)])
        c.add("POST", "/messenger/web/ping", fetch(rng, "api-iam.intercom.io", ref,
                                                   content_type="application/x-www-form-urlencoded"), body)
    elif kind == 4:
        body = jsonb({"submittedAt": str(ts(rng)), "fields": [
            {"objectTypeId": "0-1", "name": "email", "value": f"{alnum(rng, 6).lower()}@example.com"},
            {"objectTypeId": "0-1", "name": "firstname", "value": text.name(rng)},
            {"objectTypeId": "0-1", "name": "message", "value": text.prose(rng)}],
            "context": {"hutk": hexid(rng, 32), "pageUri": ref, "pageName": text.title(rng)},
            "legalConsentOptions": {"consent": {"consentToProcess": True, "text": "I agree to allow Example to "
                                                "store and process my personal data."}}})
        c.add("POST", f"/submissions/v3/integration/submit/{rng.randint(10**6, 10**7)}/{uid(rng)}",
              fetch(rng, "api.hsforms.com", ref, content_type="application/json"), body)
    else:
        c.add("GET", f"/embed/{alnum(rng, 11)}?enablejsapi=1&origin={quote(f'https://www.{s}', safe='')}"
                     f"&widgetid={rng.randint(1, 5)}&rel=0&modestbranding=1&playsinline=1",
              subresource(rng, "www.youtube-nocookie.com", ref, "iframe", "text/html,*/*;q=0.8"))


def site_search(rng, c):
    s = site(rng)
    hst = f"www.{s}"
    q = pick(rng, SEARCHES) if rng.random() < 0.7 else text.search_query(rng)
    params = [("q", q)]
    if rng.random() < 0.5:
        params += [("sort", pick(rng, ["relevance", "price-asc", "newest"])), ("page", str(rng.randint(1, 9)))]
    if rng.random() < 0.3:
        params.append(("filter", pick(rng, ["brand:acme|globex", "color=red;blue", "price=10-50", "size:M,L"])))
    c.add("GET", f"/{pick(rng, ['search', 'catalogsearch/result/', 's', 'suche'])}?{qs(params)}",
          navigation(rng, hst, referer=f"https://{hst}/", cookie=cookie_header(rng), site="same-origin"))


def build(n=2500, seed=0xB0057):
    rng = random.Random(seed)
    c = Corpus("browsing")
    makers = [(3, wordpress), (2, shopify), (2, cms_forms), (3, query_languages), (3, assets), (3, ads_and_tags),
              (3, widgets), (3, site_search)]
    for _ in range(n):
        weighted(rng, makers)(rng, c)
    return c
