"""markdown.py - the one escaping of text for Markdown (GitHub-flavoured: summary.md, report.md, $GITHUB_STEP_SUMMARY) and for one-line text output.

Always holds: text(s) is read back as s itself by a GitHub-flavoured Markdown renderer, in a
paragraph, a heading, a list item or a table cell: no character of s opens emphasis, code, a
link or image, an HTML tag or entity, a table column, a heading, a list or a new line (each
control character is shown as its escape, \\n, \\t, \\x1b, as one_line shows it); one_line(s) is
s on one line, every control character (line and paragraph separators included) and backslash
shown as an escape, so that one line of output stays one record. Every Markdown writer of
heapbench escapes its user strings (labels, cells, params, env, host names, reasons) here.
"""
import html
import re

# Punctuation that opens Markdown inline or a heading (backslash-escaped); & < > become HTML entities
# (so no tag, entity or block quote).
_INLINE = re.compile(r"([\\`*_\[\]|~#])")
# What opens a block at the start of a line besides those (a list, a thematic break, a setext underline).
_BLOCK_START = re.compile(r"^([+\-](?=\s|$)|-{2,}|=+|\d{1,9}[.)](?=\s|$))")
_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _shown(ch):
    """ch itself, or its escape when it ends or bends a line (C0, DEL, C1, U+2028, U+2029)."""
    code = ord(ch)
    if code < 0x20 or 0x7f <= code < 0xa0 or code in (0x2028, 0x2029):
        return _ESCAPES.get(ch) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
    return ch


def one_line(s):
    """s on one line: backslash and every control character shown as an escape."""
    return "".join("\\\\" if ch == "\\" else _shown(ch) for ch in str(s))


def _block_escaped(match):
    """A line-start marker made literal by a backslash ('\\- x', '\\===', '1\\. x')."""
    mark = match.group(1)
    return f"{mark[:-1]}\\{mark[-1]}" if mark[0].isdigit() else f"\\{mark}"


def text(s):
    """s as Markdown text that renders as s (one line; see the module's Always holds)."""
    line = html.escape("".join(_shown(ch) for ch in str(s)).lstrip(" "), quote=False)  # 4 spaces: a code block
    return _BLOCK_START.sub(_block_escaped, _INLINE.sub(r"\\\1", line))
