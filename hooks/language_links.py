"""MkDocs hook: keep the language switcher's links relative on the home pages.

mkdocs-static-i18n points the switcher (and <link rel="alternate" hreflang>) of every page
to the same page in the other language, as a site-relative URL, except on the home pages
(`/` and `/en/`), where it keeps the languages' configured links: the root-absolute "/"
and "/en/". Those break when site/ is served from a sub-path (https://host/sdpa/), so they
are turned into site-relative URLs here, which Material's `url` filter then makes relative
to the page.

Material also fetches `sitemap.xml` beside the href of every <link rel="alternate"
hreflang> in the head, expecting language roots there. i18n points those links at the same
page in the other language, so each page load made one 404 request per language (a
console error in the browser). Those <link> tags are dropped from the output: the language
switcher's own <a> links already lead to the same page in the other language, and hreflang
links without a site_url (relative URLs) are of no use to search engines anyway.
"""

from __future__ import annotations

import re

from mkdocs.plugins import event_priority

_HREFLANG_LINK = re.compile(r"<link\b(?=[^>]*\brel=\"alternate\")(?=[^>]*\bhreflang=)[^>]*>\s*", re.IGNORECASE)


@event_priority(-100)  # after mkdocs-static-i18n's on_page_context (priority 50)
def on_page_context(context, page, config, nav):
    # i18n sets `config.extra.alternate` as an attribute (a fresh copy for each page),
    # and the theme reads it the way Jinja does: attribute first, then item.
    alternates = getattr(config.extra, "alternate", None) or config.extra.get("alternate") or []
    for alternate in alternates:
        link = alternate.get("link", "")
        if link.startswith("/") and not link.startswith("//"):
            alternate["link"] = link.lstrip("/") or "."
    return context


def on_post_page(output, page, config):
    return _HREFLANG_LINK.sub("", output)
