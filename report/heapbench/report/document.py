"""document.py - the renderer-independent form of a report: sections of text, tables and figures.

Always holds: every cell of a Table row is already a string (formatting happens once, in
tables.py), rows have as many cells as the table has columns, and Figure.path is a file
name relative to the output directory. render_html.py and render_md.py read only this.
"""
from dataclasses import dataclass, field


@dataclass
class Table:
    """A titled table; flagged holds indices of rows to highlight (failures, flagged cells).

    folded: the HTML shows it folded (a click opens it) - for long detail tables only, never failures.
    """
    title: str
    columns: list
    rows: list
    note: str = ""
    flagged: set = field(default_factory=set)
    folded: bool = False


@dataclass
class Figure:
    """A PNG written beside the report, with the caption that says how to read it."""
    path: str
    caption: str


@dataclass
class Section:
    """A titled part of the report: paragraphs, then figures, then tables."""
    title: str
    text: list = field(default_factory=list)
    tables: list = field(default_factory=list)
    figures: list = field(default_factory=list)


@dataclass
class Document:
    """The whole report: notices (what is missing) come first, above every section."""
    title: str
    notices: list
    sections: list
