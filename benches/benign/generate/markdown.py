"""markdown.txt: Markdown as people write it in issue trackers, pull-request descriptions, wiki and README edits,
chat apps and note-taking apps (GitHub/GitLab/Gitea issue and comment APIs, Discourse, Notion-like and Obsidian-like
sync, Slack/Mattermost mrkdwn): headings, emphasis, links and images with titles, reference links, autolinks,
inline code and fenced code blocks, GFM tables with alignment, task lists, block quotes, footnotes, HTML comments
from issue templates (<!-- ... -->), <details>/<summary>, <kbd>, <br>, @mentions, #123 references, emoji
shortcodes, front matter (YAML) for static-site generators (Jekyll/Hugo/Docusaurus); a blog's articles (DEV's
`body_markdown`) showing markup in their code blocks and spans (`<script is:inline>`, `onclick`).
"""
import random

from . import snippets, text
from .common import (Corpus, alnum, api_ref, bearer, cookie_header, fetch, form, form_post, host, jsonb, pick,
                     uid, weighted)


def md_link(rng, lang):
    url = pick(rng, [f"https://{host(rng)}/docs/{alnum(rng, 6).lower()}#{pick(rng, ['install', 'faq', 'troubleshooting'])}",
                     f"https://github.com/{alnum(rng, 7).lower()}/{pick(rng, ['api', 'ui', 'cli'])}/issues/{rng.randint(1, 9000)}",
                     f"https://en.wikipedia.org/wiki/{pick(rng, ['Unicode', 'HTTP_cookie', 'Base64', 'ISO_8601'])}",
                     f"../{pick(rng, ['CONTRIBUTING.md', 'docs/setup.md', 'CHANGELOG.md'])}"])
    title = f' "{text.title(rng, lang)[:30]}"' if rng.random() < 0.2 else ""
    return f"[{text.title(rng, lang)[:40]}]({url}{title})"


def md_table(rng, lang):
    cols = rng.randint(2, 5)
    head = "| " + " | ".join(pick(rng, ["Option", "Default", "Description", "Version", "Status", "Browser", "Result", "Notes"]) for _ in range(cols)) + " |"
    align = "|" + "|".join(pick(rng, ["---", ":---", ":---:", "---:"]) for _ in range(cols)) + "|"
    rows = ["| " + " | ".join(pick(rng, [f"`{alnum(rng, 6).lower()}`", "✅", "❌", "n/a", str(rng.randint(0, 999)), text.product(rng, lang),
                                          f"{rng.randint(1, 9)}.{rng.randint(0, 20)}", "yes \\| no", "**required**"]) for _ in range(cols)) + " |"
            for _ in range(rng.randint(1, 6))]
    return "\n".join([head, align] + rows)


def md_block(rng, lang):
    kind = weighted(rng, [(6, "para"), (2, "heading"), (2, "list"), (1, "tasks"), (2, "code"), (1, "table"), (1, "quote"),
                          (1, "image"), (1, "details"), (1, "footnote")])
    if kind == "para":
        s = text.prose(rng, lang, rng.randint(1, 3)).replace("\n", " ")
        words = s.split(" ")
        if len(words) > 4 and rng.random() < 0.6:
            i = rng.randrange(len(words))
            words[i] = pick(rng, ["**{}**", "_{}_", "`{}`", "~~{}~~", "*{}*"]).format(words[i])
        if rng.random() < 0.3:
            words.insert(rng.randrange(len(words) + 1), md_link(rng, lang))
        if rng.random() < 0.2:
            words.append(pick(rng, [f"@{alnum(rng, 7).lower()}", f"#{rng.randint(1, 9999)}", ":tada:", ":+1:", ":warning:", "<kbd>Ctrl</kbd>+<kbd>C</kbd>"]))
        return " ".join(words)
    if kind == "heading":
        return "#" * rng.randint(1, 4) + " " + text.title(rng, lang)
    if kind == "list":
        mark = pick(rng, ["-", "*", "1."])
        return "\n".join(f"{mark} {text.sentence(rng, lang)}" + ("\n  - " + text.sentence(rng, lang) if rng.random() < 0.2 else "")
                         for _ in range(rng.randint(2, 6)))
    if kind == "tasks":
        return "\n".join(f"- [{pick(rng, [' ', 'x'])}] {text.sentence(rng, lang)}" for _ in range(rng.randint(2, 6)))
    if kind == "code":
        code, fence = snippets.snippet(rng)
        return f"```{fence}\n{code}\n```" if rng.random() < 0.8 else f"~~~{fence}\n{code}\n~~~"
    if kind == "table":
        return md_table(rng, lang)
    if kind == "quote":
        return "\n".join("> " + text.sentence(rng, lang) for _ in range(rng.randint(1, 3)))
    if kind == "image":
        return f"![{text.title(rng, lang)[:30]}](https://user-images.githubusercontent.com/{rng.randint(10 ** 5, 10 ** 8)}/{uid(rng)}.png)" \
            if rng.random() < 0.5 else f'<img width="{rng.randint(300, 900)}" alt="screenshot" src="https://github.com/user-attachments/assets/{uid(rng)}">'
    if kind == "details":
        code, fence = snippets.snippet(rng)
        return f"<details>\n<summary>{pick(rng, ['Full log', 'Stack trace', 'Config', 'Environment'])}</summary>\n\n```{fence}\n{code}\n```\n\n</details>"
    return f"{text.sentence(rng, lang)}[^{rng.randint(1, 3)}]\n\n[^{rng.randint(1, 3)}]: {md_link(rng, lang)}"


def issue_template(rng, lang):
    return ("<!-- Thanks for filing an issue! Please fill in the sections below. -->\n\n### Describe the bug\n\n"
            f"{text.prose(rng, lang, 2)}\n\n### Steps to reproduce\n\n1. Go to `{pick(rng, ['/settings', '/checkout', '/admin/users'])}`\n"
            f"2. Click on '{text.title(rng, lang)[:25]}'\n3. Scroll down to '...'\n4. See error\n\n### Expected behavior\n\n{text.sentence(rng, lang)}\n\n"
            f"### Environment\n\n- OS: {pick(rng, ['macOS 15.1', 'Windows 11 23H2', 'Ubuntu 24.04'])}\n- Browser: {pick(rng, ['Chrome 131', 'Firefox 133', 'Safari 18.1'])}\n"
            f"- Version: v{rng.randint(1, 5)}.{rng.randint(0, 30)}.{rng.randint(0, 9)}\n\n" + md_block(rng, lang))


# Markup a tutorial shows in its code blocks.
HTML_EXAMPLES = [
    "<script is:inline>\n  const t = localStorage.getItem('theme') ?? 'light';\n  document.documentElement.dataset.theme = t;\n</script>",
    '<link rel="preload" href="/fonts/inter.woff2" as="font" type="font/woff2" crossorigin>\n<script defer src="/js/app.js"></script>',
    '<button onclick="toggleMenu()" aria-expanded="false">Menu</button>',
    "<style>\n  :root { color-scheme: light dark; }\n</style>",
]


def document(rng, lang):
    if rng.random() < 0.2:
        return issue_template(rng, lang)
    blocks = [md_block(rng, lang) for _ in range(rng.randint(1, 9))]
    if rng.random() < 0.1:
        blocks.insert(0, f"---\ntitle: \"{text.title(rng, lang)}\"\ndate: 2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}\n"
                         f"tags: [{', '.join(rng.sample(['release', 'howto', 'news', 'i18n'], 2))}]\ndraft: false\n---")
    return "\n\n".join(blocks)


def build(n=1500, seed=0x3D0C):
    rng = random.Random(seed)
    c = Corpus("markdown")
    for _ in range(n):
        lang = pick(rng, text.LANGUAGES)
        al = text.accept_language(rng, lang)
        doc = document(rng, lang)
        kind = weighted(rng, [(4, "issue"), (3, "comment"), (2, "wiki"), (2, "note"), (1, "chat"), (1, "form"), (1, "article")])
        owner, repo = alnum(rng, 7).lower(), pick(rng, ["api", "web", "docs", "mobile", "infra"])
        if kind == "form":
            hst = host(rng, pick(rng, ["forum", "git", "wiki"]))
            fields = [("title", text.title(rng, lang)), ("body", doc), ("authenticity_token", alnum(rng, 86) + "=="), ("commit", "Submit new issue")]
            c.add("POST", f"/{owner}/{repo}/issues", form_post(rng, hst, f"https://{hst}/{owner}/{repo}/issues/new", "application/x-www-form-urlencoded",
                                                              cookie=cookie_header(rng), lang=al), form(fields))
            continue
        hst, ref = api_ref(rng, pick(rng, ["api", "git", "app"]), pick(rng, ["git", "app", "wiki"]))
        if kind == "issue":
            method, path = "POST", f"/repos/{owner}/{repo}/issues"
            body = {"title": text.title(rng, lang), "body": doc, "labels": rng.sample(["bug", "enhancement", "docs", "i18n", "good first issue"], rng.randint(0, 2)),
                    "assignees": [alnum(rng, 6).lower()] if rng.random() < 0.3 else []}
        elif kind == "comment":
            method, path = pick(rng, [("POST", f"/repos/{owner}/{repo}/issues/{rng.randint(1, 9000)}/comments"),
                                      ("PATCH", f"/repos/{owner}/{repo}/issues/comments/{rng.randint(10 ** 8, 10 ** 10)}"),
                                      ("POST", f"/api/v4/projects/{rng.randint(1, 99999)}/merge_requests/{rng.randint(1, 999)}/notes")])
            body = {"body": doc}
        elif kind == "wiki":
            method, path = pick(rng, [("PUT", f"/api/v4/projects/{rng.randint(1, 99999)}/wikis/{alnum(rng, 8).lower()}"), ("POST", "/api/wiki/pages")])
            body = {"title": text.title(rng, lang), "content": doc, "format": "markdown", "message": pick(rng, ["", "typo", "Update setup steps"])}
        elif kind == "article":
            # A blog's article (DEV's API: `body_markdown`) showing markup in its code: a fenced example and a span.
            example = pick(rng, HTML_EXAMPLES)
            doc = f"{doc}\n\nPut it in `<head>`, before anything else loads:\n\n```html\n{example}\n```\n"
            method, path = pick(rng, [("PUT", f"/api/articles/{rng.randint(10 ** 6, 10 ** 7)}"), ("POST", "/api/articles")])
            body = {"article": {"title": text.title(rng, lang), "body_markdown": doc, "published": rng.random() < 0.6,
                                "tags": rng.sample(["webdev", "javascript", "css", "tutorial", "astro"], 2)}}
        elif kind == "note":
            method, path = pick(rng, [("PUT", f"/api/notes/{uid(rng)}"), ("POST", "/v1/sync/push")])
            body = {"id": uid(rng), "title": text.title(rng, lang), "markdown": doc, "updatedAt": rng.randint(1700000000000, 1760000000000),
                    "folder": pick(rng, ["Inbox", "Work/Projects", "Recettes 🍰", "日記"])}
        else:
            method, path = "POST", "/api/v4/posts"
            body = {"channel_id": alnum(rng, 26).lower(), "message": doc, "root_id": pick(rng, ["", alnum(rng, 26).lower()]),
                    "props": {}, "pending_post_id": f"{alnum(rng, 26).lower()}:{rng.randint(1700000000000, 1760000000000)}"}
        c.add(method, path, fetch(rng, hst, ref, content_type="application/json", accept=pick(rng, ["application/json", "application/vnd.github+json"]),
                                  auth=bearer(rng) if rng.random() < 0.7 else None, cookie=cookie_header(rng) if rng.random() < 0.4 else None, lang=al),
              jsonb(body))
    return c
