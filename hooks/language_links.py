"""MkDocs hook: keep the language switcher's links relative on the home pages.

mkdocs-static-i18n points the switcher (and <link rel="alternate" hreflang>) of every page
to the same page in the other language, as a site-relative URL, except on the home pages
(`/` and `/en/`), where it keeps the languages' configured links: the root-absolute "/"
and "/en/". Those break when site/ is served from a sub-path (https://host/sdpa/), so they
are turned into site-relative URLs here, which Material's `url` filter then makes relative
to the page.
"""

from __future__ import annotations

from mkdocs.plugins import event_priority


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
