"""secret.py - the one masking of a history URL's secrets, for every message, log and file that names a history.

Always holds: mask(url) is the URL with the password of its user part, every password= and
passfile= value of its query string (any case; in a string that is no URL, libpq's key=value
form, its password= and passfile= words) replaced by ***, and nothing else changed; mask(url, text)
is text with the URL masked so and every secret of the URL (as written and percent-decoded),
and $PGPASSWORD's value for a PostgreSQL URL, replaced by *** wherever else it appears (a driver's error that echoes
a piece of the connection string); every place that prints or writes a history's location
calls this module, never its own variant. The secrets themselves are never changed: libpq reads
them (and PGPASSWORD, PGPASSFILE and ~/.pgpass when the URL has no password) as it always does.
"""
import os
import re
import urllib.parse

HIDDEN = "***"
SECRET_KEYS = ("password", "passfile")
_USERINFO = re.compile(r"^(?P<head>[A-Za-z][A-Za-z0-9+.-]*://[^@/?#]*?:)(?P<pw>[^@/]*)(?P<at>@)")


_KEY_VALUE = re.compile(r"(?:^|\s)(?:password|passfile)\s*=\s*('(?:[^'\\]|\\.)*'|\S+)", re.IGNORECASE)


def _query_secrets(url):
    """[(start, end)] of the values of SECRET_KEYS (any case) in url's query string, or, for a string
    that is no URL (libpq's key=value form given by mistake), of its password= and passfile= words."""
    if "://" not in url:
        return [m.span(1) for m in _KEY_VALUE.finditer(url)]
    question = url.find("?")
    if question < 0:
        return []
    spans, pos = [], question + 1
    for part in url[question + 1:].split("&"):
        key, eq, _ = part.partition("=")
        if eq and urllib.parse.unquote(key).strip().lower() in SECRET_KEYS:
            spans.append((pos + len(key) + 1, pos + len(part)))
        pos += len(part) + 1
    return spans


def _spans(url):
    """[(start, end)] of every secret in url, in order."""
    found = _USERINFO.match(url)
    spans = [(found.start("pw"), found.end("pw"))] if found and found.group("pw") else []
    return spans + _query_secrets(url)


def _secrets(url):
    """The secret strings of url, as written and percent-decoded, and $PGPASSWORD; longest first."""
    words = set()
    for start, end in _spans(url):
        raw = url[start:end]
        words.update({raw, urllib.parse.unquote(raw), urllib.parse.unquote_plus(raw)})
    if url.startswith(("postgresql://", "postgres://")):
        words.add(os.environ.get("PGPASSWORD", ""))
    return sorted((w for w in words if w), key=len, reverse=True)


def _masked_url(url):
    """url with each of its secrets replaced by HIDDEN."""
    out, last = [], 0
    for start, end in _spans(url):
        out += [url[last:start], HIDDEN]
        last = end
    return "".join(out) + url[last:]


def mask(url, text=None):
    """text (default: url itself) with url shown masked and every secret of url replaced by ***."""
    url = str(url or "")
    text = url if text is None else str(text)
    if url:
        text = text.replace(url, _masked_url(url))
    for word in _secrets(url):
        text = text.replace(word, HIDDEN)
    return text
