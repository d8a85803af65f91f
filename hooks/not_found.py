"""MkDocs hook: a 404 page that works from any sub-path, in the reader's language.

A server sends site/404.html for every address it has no file for, at whatever depth:
/sdpa/en/no-such-page/ as much as /sdpa/x. MkDocs makes that page's links root-absolute
("/assets/...", "/en/"), which break as soon as the site is not at the server's root, and
mkdocs-static-i18n writes it once per language, the last language's build winning.

Here (overrides/404.html holds the text):

- each language's 404 page is rendered with its links relative to the site's root ("./",
  "./en/", "./assets/..."), with the language switcher pointing at the two home pages;
- the two are written as one site/404.html: the default language's page, with the other
  language's <body> kept in a <template>;
- its stylesheets, icon and scripts do not load by themselves (data-href, data-src): a
  small script first finds the site's root from the address in the browser, sets
  <base href> to it, and then loads them. The root is where the first path segment that
  names something at the top of the site (a page, "en", "assets", ...) begins; if no
  segment does, it asks each parent folder for 404.html, nearest the server's root first,
  until one answers with this page;
- the reader's language is the one the address is in (/en/... is English, a Norwegian
  page's name Norwegian), else the first of the browser's languages that the site has,
  else the default language. For another language than the default, the <body> is
  swapped before Material's script starts, and its search looks in that language's folder. Without JavaScript the default language's
  page shows, unstyled.
"""

from __future__ import annotations

import html
import json
import re

from mkdocs.exceptions import PluginError

TEMPLATE = "404.html"
MARKER = '<meta name="sdpa-not-found" content="1">'

_pages: dict[str, str] = {}  # language -> its build's 404 page, as rendered
_names: dict[str, set[str]] = {}  # language -> first path segments of its build's files
_saved_alternate: list = []  # config.extra.alternate (an attribute i18n sets) while the 404 renders
_ABSENT = object()

_HREFLANG_LINK = re.compile(r"<link\b(?=[^>]*\brel=\"alternate\")(?=[^>]*\bhreflang=)[^>]*>\s*", re.IGNORECASE)
_LOADS = re.compile(r"<(link|script)\b([^>]*?)\s(href|src)=\"(?!data:)([^\"]+)\"", re.IGNORECASE)
_BODY = re.compile(r"<body\b[^>]*>(.*)</body>", re.IGNORECASE | re.DOTALL)
_HEAD_SCOPE = '<script>__md_scope=new URL(".",location)'
_TITLE = re.compile(r"<title>(.*?)</title>", re.DOTALL)
_DESCRIPTION = re.compile(r'<meta name="description" content="([^"]*)">')


def _languages(config) -> list:
    plugin = config.plugins.get("i18n")
    if plugin is None:
        raise PluginError("hooks/not_found.py expects the i18n plugin (mkdocs-static-i18n)")
    return [lang for lang in plugin.config.languages if lang.build]


def _default_language(config) -> str:
    return next(lang.locale for lang in _languages(config) if lang.default)


def _current_language(config) -> str:
    return config.theme["language"]


def on_env(env, config, files):
    # after mkdocs-static-i18n has placed this language's files (on_files)
    _names[_current_language(config)] = {f.dest_uri.split("/", 1)[0] for f in files} - {""}
    return env


def on_template_context(context, template_name, config):
    if template_name != TEMPLATE:
        return context
    context["base_url"] = "."  # links relative to the site's root; <base href> makes that work
    # the language switcher: the home page of each language (i18n leaves the last page's)
    _saved_alternate[:] = [config.extra.__dict__.get("alternate", _ABSENT)]
    config.extra.alternate = [
        {"name": lang.name, "link": "." if lang.default else f"{lang.locale}/", "lang": lang.locale}
        for lang in _languages(config)
    ]
    return context


def on_post_template(output, template_name, config):
    if template_name != TEMPLATE:
        return output
    if _saved_alternate:
        saved = _saved_alternate.pop()
        if saved is _ABSENT:
            del config.extra.alternate
        else:
            config.extra.alternate = saved
    if re.search(r"""(?:href|src)="/(?!/)""", output):
        raise PluginError(f"{TEMPLATE}: a root-absolute link is left; hooks/not_found.py expected none")
    _pages[_current_language(config)] = output
    languages = [lang.locale for lang in _languages(config)]
    if any(lang not in _pages for lang in languages):
        return output  # the other language's build comes later and writes the page again
    return combine(_pages, _default_language(config), sorted(set().union(*_names.values())))


def _defer_loads(page: str) -> str:
    """<link href> and <script src> to data-href / data-src: nothing loads before the root is known."""

    def defer(m: re.Match) -> str:
        tag, before, attr, url = m.groups()
        if re.search(r'\brel="icon"', before):
            # an empty icon meanwhile: with none, the browser asks the server's root for favicon.ico
            return f'<{tag}{before} href="data:," data-{attr}="{url}"'
        return f'<{tag}{before} data-{attr}="{url}"'

    return _LOADS.sub(defer, page)


def combine(pages: dict[str, str], default: str, top_names: list[str]) -> str:
    page = _defer_loads(_HREFLANG_LINK.sub("", pages[default]))
    if _HEAD_SCOPE not in page:
        raise PluginError(f"{TEMPLATE}: Material's __md_scope script changed; hooks/not_found.py cannot place its own")
    others = {}
    for lang, other in pages.items():
        if lang == default:
            continue
        body = _BODY.search(_defer_loads(other))
        title, description = _TITLE.search(other), _DESCRIPTION.search(other)
        if not body or not title:
            raise PluginError(f"{TEMPLATE} ({lang}): no <body> or <title> found")
        others[lang] = {
            "title": html.unescape(title.group(1).strip()),
            "description": html.unescape(description.group(1)) if description else "",
        }
        page = page.replace("</body>", f'<template id="sdpa-not-found-{lang}">{body.group(1)}</template>\n</body>', 1)
    settings = {
        "names": top_names,
        "languages": sorted(pages),
        "default": default,
        "others": others,
    }
    settings_js = json.dumps(settings, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
    script = _SCRIPT.replace("SETTINGS", settings_js)
    # before Material's own head script, whose __md_scope (where it keeps the reader's
    # colour scheme) must come from the site's root, not from the address of the 404
    page = page.replace(_HEAD_SCOPE, f"{MARKER}\n    <script>{script}</script>\n    {_HEAD_SCOPE.replace('location', 'document.baseURI')}", 1)
    return page


_SCRIPT = r"""
(function () {
  "use strict";
  var S = SETTINGS;
  var html = document.documentElement;
  html.style.visibility = "hidden";
  setTimeout(show, 3000); // whatever happens, never leave the reader a blank page

  function show() {
    html.style.visibility = "";
  }

  var parts = location.pathname.split("/");
  var folders = [];
  for (var i = 1; i < parts.length; i++) folders.push(parts.slice(0, i).join("/") + "/");

  function guess() {
    for (var i = 1; i < parts.length; i++) {
      var name = decodeURIComponent(parts[i]);
      if (S.names.indexOf(name) >= 0) return parts.slice(0, i).join("/") + "/";
    }
    return null;
  }

  function probe(k) {
    if (k >= folders.length) return Promise.resolve(null);
    return fetch(folders[k] + "404.html", { cache: "force-cache" })
      .then(function (r) { return r.ok ? r.text() : ""; })
      .catch(function () { return ""; })
      .then(function (text) {
        return text.indexOf('<meta name="sdpa-not-found"') >= 0 ? folders[k] : probe(k + 1);
      });
  }

  function language(root) {
    var first = decodeURIComponent(location.pathname.slice(root.length).split("/")[0]);
    if (first && S.languages.indexOf(first) >= 0) return first;
    if (first && S.names.indexOf(first) >= 0) return S.default;
    var wanted = navigator.languages || [navigator.language || ""];
    for (var i = 0; i < wanted.length; i++) {
      var code = String(wanted[i]).toLowerCase().split("-")[0];
      if (code === "no" || code === "nn") code = "nb";
      if (S.languages.indexOf(code) >= 0) return code;
    }
    return S.default;
  }

  function setRoot(root) {
    var base = document.createElement("base");
    base.href = root;
    document.head.insertBefore(base, document.head.firstChild);
    window.__md_scope = new URL(root, location);
    document.querySelectorAll("link[data-href]").forEach(function (link) {
      if (/\bstylesheet\b/.test(link.rel)) {
        link.addEventListener("load", maybeShow);
        link.addEventListener("error", maybeShow);
      }
      link.href = link.getAttribute("data-href");
    });
  }

  function maybeShow() {
    var pending = Array.prototype.some.call(document.querySelectorAll('link[rel~="stylesheet"]'), function (l) {
      return !l.sheet;
    });
    if (!pending) show();
  }

  function start(root) {
    var lang = language(root);
    var other = S.others[lang];
    if (other) {
      var template = document.getElementById("sdpa-not-found-" + lang);
      document.body.replaceChildren(document.importNode(template.content, true));
      html.lang = lang;
      document.title = other.title;
      var description = document.querySelector('meta[name="description"]');
      if (description) description.content = other.description;
    }
    var config = document.getElementById("__config");
    if (config) {
      var settings = JSON.parse(config.textContent);
      // each language's search index is in its own folder (hooks/search_index.py)
      settings.base = new URL(other ? lang + "/" : ".", new URL(root, location)).href;
      if (settings.search) settings.search = new URL(settings.search, document.baseURI).href;
      config.textContent = JSON.stringify(settings);
    }
    document.querySelectorAll("script[data-src]").forEach(function (placeholder) {
      var script = document.createElement("script");
      script.src = placeholder.getAttribute("data-src");
      script.async = false; // in document order, as parsed scripts run
      placeholder.replaceWith(script);
    });
  }

  var known = guess();
  var root = known ? Promise.resolve(known) : probe(0).then(function (found) { return found || "/"; });
  if (known) setRoot(known);
  else root.then(setRoot);
  var parsed = new Promise(function (resolve) {
    if (document.readyState !== "loading") resolve();
    else document.addEventListener("DOMContentLoaded", resolve);
  });
  Promise.all([root, parsed]).then(function (values) { start(values[0]); });
})();
"""
