"""The languages the pages are written in and the names the pages give what was measured."""

LANGS = ("nb", "en")  # Norwegian Bokmål first (the site's default), then English
BACKEND_NAMES = {"math": "math", "flash": "flash", "efficient": "efficient", "cudnn": "cuDNN"}
