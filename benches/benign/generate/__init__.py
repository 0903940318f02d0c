"""The generated part of the benign corpus: one module per class of traffic, each writing one file of
benches/benign/ from its own seeded random.Random (Python 3 standard library only, no network). Run through
make_corpus.py from the repository root:

    python3 benches/benign/make_corpus.py

Each module's docstring says what it holds and which real clients, specifications and libraries its shapes come
from. Nothing in the content is chosen to avoid or to hit any WAF rule.
"""
from . import (api_bodies, back_office, beacons, binary_uploads, browsing, clients, code_snippets, everyday_words, forms_i18n, frameworks, graphql, json_api,
               large_sites, markdown, reported, rich_text, tokens_urls, webhooks, work_tools)

# (module, requests): the order is the order of the README table.
CLASSES = [
    (beacons, 2500),
    (api_bodies, 2500),
    (json_api, 2500),
    (graphql, 1500),
    (forms_i18n, 3000),
    (code_snippets, 2000),
    (rich_text, 1500),
    (markdown, 1500),
    (tokens_urls, 2500),
    (binary_uploads, 900),
    (clients, 3000),
    (browsing, 2500),
    (frameworks, 1500),
    (reported, 2000),
    (everyday_words, 2000),
    (webhooks, 1000),
    (large_sites, 1000),
    (work_tools, 1000),
    (back_office, 1000),
]


def build_all():
    """Builds and writes every generated file; yields (path, requests)."""
    for module, n in CLASSES:
        yield module.build(n).write()
