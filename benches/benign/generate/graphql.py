"""graphql.txt: GraphQL over HTTP as Apollo Client, Relay, urql, graphql-request and mobile clients (Apollo
Kotlin/iOS) send it: POST application/json with query, operationName and variables; queries with fragments,
aliases, directives (@include, @skip), pagination arguments; mutations with input objects; batched arrays;
GET with query and variables in the URL; automatic persisted queries (extensions.persistedQuery with a SHA-256);
the GraphQL multipart request spec for file uploads. Accept headers follow the GraphQL-over-HTTP draft
(application/graphql-response+json). Schemas modelled on public ones (Shopify Storefront, GitHub, Contentful).
"""
import hashlib
import random

from . import text
from .common import (Corpus, api_ref, app_client, bearer, cookie_header, email, fetch, hexid, iso, jsonb, pick, qs,
                     sdk_client, uid, weighted, alnum)

FRAGMENTS = {
    "ProductCard": "fragment ProductCard on Product {\n  id\n  handle\n  title\n  featuredImage { url altText width height }\n"
                   "  priceRange { minVariantPrice { amount currencyCode } }\n  availableForSale\n}",
    "UserFields": "fragment UserFields on User {\n  id\n  login\n  name\n  avatarUrl(size: 64)\n  bio\n}",
    "CommentFields": "fragment CommentFields on Comment {\n  id\n  body\n  createdAt\n  author { ...UserFields }\n  reactions { content count }\n}",
    "AddressFields": "fragment AddressFields on MailingAddress {\n  address1\n  address2\n  city\n  zip\n  countryCodeV2\n}",
}

QUERIES = [
    ("SearchProducts", "query SearchProducts($query: String!, $first: Int = 24, $after: String, $sortKey: ProductSortKeys) {\n"
     "  search(query: $query, first: $first, after: $after, sortKey: $sortKey, types: [PRODUCT]) {\n"
     "    totalCount\n    pageInfo { hasNextPage endCursor }\n    edges { node { ...ProductCard } }\n  }\n}", ["ProductCard"],
     lambda rng, lang: {"query": text.search_query(rng, lang), "first": pick(rng, [12, 24, 48]), "after": pick(rng, [None, alnum(rng, 40)]),
                        "sortKey": pick(rng, ["RELEVANCE", "PRICE", None])}),
    ("Product", "query Product($handle: String!, $withReviews: Boolean = false) {\n  product(handle: $handle) {\n    ...ProductCard\n"
     "    descriptionHtml\n    variants(first: 50) { nodes { id title sku price { amount } selectedOptions { name value } } }\n"
     "    reviews: metafield(namespace: \"reviews\", key: \"list\") @include(if: $withReviews) { value }\n  }\n}", ["ProductCard"],
     lambda rng, lang: {"handle": f"{alnum(rng, 6).lower()}-{rng.randint(1, 999)}", "withReviews": rng.random() < 0.5}),
    ("IssueComments", "query IssueComments($owner: String!, $name: String!, $number: Int!, $cursor: String) {\n"
     "  repository(owner: $owner, name: $name) {\n    issue(number: $number) {\n      title\n      comments(first: 50, after: $cursor) {\n"
     "        nodes { ...CommentFields }\n        pageInfo { endCursor hasNextPage }\n      }\n    }\n  }\n}", ["CommentFields", "UserFields"],
     lambda rng, lang: {"owner": alnum(rng, 7).lower(), "name": pick(rng, ["api", "website", "docs", "sdk-js"]), "number": rng.randint(1, 9000),
                        "cursor": pick(rng, [None, "Y3Vyc29yOnYyOpHOAA" + alnum(rng, 8)])}),
    ("Viewer", "query Viewer {\n  viewer {\n    ...UserFields\n    email\n    notifications(unread: true) { totalCount }\n"
     "    orgs: organizations(first: 10) { nodes { login } }\n  }\n}", ["UserFields"], lambda rng, lang: {}),
    ("Orders", "query Orders($first: Int!, $status: [OrderStatus!], $since: DateTime) {\n  customer {\n    orders(first: $first, "
     "filter: { status: $status, createdAfter: $since }) {\n      edges {\n        node {\n          id\n          name\n"
     "          processedAt\n          totalPrice { amount currencyCode }\n          shippingAddress { ...AddressFields }\n"
     "          lineItems(first: 5) { nodes { title quantity } }\n        }\n      }\n    }\n  }\n}", ["AddressFields"],
     lambda rng, lang: {"first": 10, "status": pick(rng, [["PAID"], ["PAID", "FULFILLED"], None]), "since": iso(rng)}),
    ("Entries", "query Entries($locale: String, $preview: Boolean, $limit: Int, $where: BlogPostFilter) {\n"
     "  blogPostCollection(locale: $locale, preview: $preview, limit: $limit, where: $where, order: [publishDate_DESC]) {\n"
     "    items { title slug excerpt publishDate heroImage { url(transform: { width: 800, format: WEBP }) } }\n  }\n}", [],
     lambda rng, lang: {"locale": lang, "preview": False, "limit": pick(rng, [6, 10, 20]),
                        "where": {"tags_contains_some": [pick(rng, ["news", "guides"])], "title_contains": pick(rng, [None, text.title(rng, lang)[:20]])}}),
]

MUTATIONS = [
    ("AddToCart", "mutation AddToCart($cartId: ID!, $lines: [CartLineInput!]!) {\n  cartLinesAdd(cartId: $cartId, lines: $lines) {\n"
     "    cart { id totalQuantity cost { totalAmount { amount currencyCode } } }\n    userErrors { field message code }\n  }\n}",
     lambda rng, lang: {"cartId": f"gid://shopify/Cart/{alnum(rng, 26)}?key={hexid(rng, 32)}",
                        "lines": [{"merchandiseId": f"gid://shopify/ProductVariant/{rng.randint(10 ** 12, 10 ** 13)}", "quantity": rng.randint(1, 3),
                                   "attributes": [{"key": "Gift note", "value": text.sentence(rng, lang)}] if rng.random() < 0.3 else []}
                                  for _ in range(rng.randint(1, 3))]}),
    ("AddComment", "mutation AddComment($input: AddCommentInput!) {\n  addComment(input: $input) {\n    commentEdge { node { id body url } }\n  }\n}",
     lambda rng, lang: {"input": {"subjectId": "I_kwDO" + alnum(rng, 16), "body": text.prose(rng, lang), "clientMutationId": uid(rng)}}),
    ("UpdateAddress", "mutation UpdateAddress($id: ID!, $address: MailingAddressInput!, $token: String!) {\n"
     "  customerAddressUpdate(id: $id, address: $address, customerAccessToken: $token) {\n    customerAddress { ...AddressFields }\n"
     "    customerUserErrors { code field message }\n  }\n}",
     lambda rng, lang: {"id": f"gid://shopify/MailingAddress/{rng.randint(10 ** 9, 10 ** 10)}", "token": hexid(rng, 32),
                        "address": {"firstName": text.name(rng, lang).split(" ")[0], "lastName": text.name(rng, lang).split(" ")[-1],
                                    "address1": text.address(rng, lang), "city": text.city(rng, lang), "zip": str(rng.randint(1000, 99999)),
                                    "country": pick(rng, ["DE", "FR", "JP", "BR"]), "phone": f"+{rng.randint(1, 99)}{rng.randint(10 ** 8, 10 ** 9)}"}}),
    ("SignUp", "mutation SignUp($input: CustomerCreateInput!) {\n  customerCreate(input: $input) {\n    customer { id email }\n"
     "    customerUserErrors { code message }\n  }\n}",
     lambda rng, lang: {"input": {"email": email(rng), "password": alnum(rng, 10) + pick(rng, ["!", "#", "$", "&", "(", "'"]) + str(rng.randint(10, 99)),
                                  "firstName": text.name(rng, lang).split(" ")[0], "acceptsMarketing": rng.random() < 0.4}}),
    ("CreateTicket", "mutation CreateTicket($input: TicketInput!) {\n  createTicket(input: $input) {\n    ticket { id number status }\n"
     "    errors { path message }\n  }\n}",
     lambda rng, lang: {"input": {"subject": text.title(rng, lang), "description": text.prose(rng, lang, 4),
                                  "priority": pick(rng, ["LOW", "NORMAL", "HIGH"]), "tags": rng.sample(["billing", "shipping", "bug", "account"], 2),
                                  "customFields": [{"id": str(rng.randint(1, 99)), "value": text.sentence(rng, lang)}]}}),
    ("SaveDraft", "mutation SaveDraft($id: ID!, $doc: JSON!, $autosave: Boolean = true) {\n  updateDocument(id: $id, content: $doc, autosave: $autosave) {\n"
     "    id\n    updatedAt\n    version\n  }\n}",
     lambda rng, lang: {"id": uid(rng), "doc": {"type": "doc", "content": [{"type": "paragraph", "content": [{"type": "text", "text": text.sentence(rng, lang)}]}
                                                                            for _ in range(rng.randint(1, 6))]}}),
]


def document(rng, src, frags):
    parts = [src]
    seen = set()
    for f in frags:
        if f not in seen:
            parts.append(FRAGMENTS[f])
            seen.add(f)
    if "UserFields" in src and "UserFields" not in seen:
        parts.append(FRAGMENTS["UserFields"])
    return "\n\n".join(parts)


def operation(rng, lang):
    if rng.random() < 0.6:
        name, src, frags, make = pick(rng, QUERIES)
        doc = document(rng, src, frags)
        if "CommentFields" in frags and "UserFields" not in frags:
            doc += "\n\n" + FRAGMENTS["UserFields"]
    else:
        name, src, make = pick(rng, MUTATIONS)
        doc = document(rng, src, ["AddressFields"] if "AddressFields" in src else [])
    if rng.random() < 0.3:  # minified, as persisted/compiled clients send it
        doc = " ".join(doc.split())
    return {"operationName": name, "variables": make(rng, lang), "query": doc}


def build(n=1500, seed=0x6A4F):
    rng = random.Random(seed)
    c = Corpus("graphql")
    for _ in range(n):
        lang = pick(rng, text.LANGUAGES)
        hst, ref = api_ref(rng, api=pick(rng, ["api", "graphql", "www", "shop"]))
        path = pick(rng, ["/graphql", "/api/graphql", "/api/2025-01/graphql.json", "/gql", "/v1/graphql", "/query"])
        accept = pick(rng, ["application/graphql-response+json, application/json", "application/json",
                            "*/*", "application/graphql-response+json;charset=utf-8, application/json;charset=utf-8"])
        client = weighted(rng, [(6, "browser"), (3, "app"), (2, "sdk")])
        kind = weighted(rng, [(10, "post"), (2, "get"), (1, "apq"), (1, "batch"), (1, "upload")])
        if client == "browser":
            extra = [("apollographql-client-name", "web"), ("apollographql-client-version", f"{rng.randint(1, 9)}.{rng.randint(0, 40)}.0")] if rng.random() < 0.3 else []
            if rng.random() < 0.3:
                extra.append(("X-Shopify-Storefront-Access-Token", hexid(rng, 32)))
            h = fetch(rng, hst, ref, content_type="application/json" if kind not in ("get", "upload") else None, accept=accept,
                      auth=bearer(rng) if rng.random() < 0.5 else None, extra=extra, lang=text.accept_language(rng, lang),
                      cookie=cookie_header(rng) if rng.random() < 0.4 else None)
        elif client == "app":
            h = [("Host", hst)] + app_client(rng) + [("Accept", "multipart/mixed; deferSpec=20220824, application/json"),
                                                     ("X-APOLLO-OPERATION-TYPE", "query"), ("Authorization", bearer(rng))]
            if kind not in ("get", "upload"):
                h.append(("Content-Type", "application/json"))
        else:
            h = [("Host", hst)] + sdk_client(rng) + [("Authorization", bearer(rng))]
            if kind not in ("get", "upload"):
                h.append(("Content-Type", "application/json"))
        op = operation(rng, lang)
        if kind == "post":
            c.add("POST", path, h, jsonb(op))
        elif kind == "get":
            q = [("query", op["query"]), ("operationName", op["operationName"]), ("variables", jsonb(op["variables"]).decode())]
            c.add("GET", path + "?" + qs(q), h)
        elif kind == "apq":
            ext = {"persistedQuery": {"version": 1, "sha256Hash": hashlib.sha256(op["query"].encode()).hexdigest()}}
            if rng.random() < 0.6:
                q = [("operationName", op["operationName"]), ("variables", jsonb(op["variables"]).decode()), ("extensions", jsonb(ext).decode())]
                c.add("GET", path + "?" + qs(q), h)
            else:
                body = {"operationName": op["operationName"], "variables": op["variables"], "extensions": ext}
                if rng.random() < 0.5:
                    body["query"] = op["query"]
                c.add("POST", path, h, jsonb(body))
        elif kind == "batch":
            c.add("POST", path, h, jsonb([operation(rng, lang) for _ in range(rng.randint(2, 5))]))
        else:  # graphql-multipart-request-spec
            boundary = "----WebKitFormBoundary" + alnum(rng, 16)
            ops = {"operationName": "UploadAvatar", "query": "mutation UploadAvatar($file: Upload!) {\n  uploadAvatar(file: $file) { url }\n}",
                   "variables": {"file": None}}
            data = rng.randbytes(rng.randint(200, 3000))
            parts = [("operations", None, None, jsonb(ops)), ("map", None, None, b'{"0":["variables.file"]}'),
                     ("0", pick(rng, ["avatar.png", "me (2).jpg", "profil-foto.jpeg"]), pick(rng, ["image/png", "image/jpeg"]), data)]
            body = b""
            for name, fn, ct, d in parts:
                body += f"--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"".encode()
                if fn:
                    body += f"; filename=\"{fn}\"\r\nContent-Type: {ct}".encode()
                body += b"\r\n\r\n" + d + b"\r\n"
            body += f"--{boundary}--\r\n".encode()
            h.append(("Content-Type", f"multipart/form-data; boundary={boundary}"))
            h.append(("apollo-require-preflight", "true"))
            c.add("POST", path, h, body)
    return c
