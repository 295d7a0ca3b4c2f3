"""jsontext.py - the JSON text of heapbench's outputs (export, history --json, merge's meta.json,
the history's stored reps).

Always holds: the text is valid JSON (RFC 8259): a NaN or an infinity is never written as the
bare NaN / Infinity that Python's json module would print; dumps() raises NotFinite naming
where the value was instead, and each caller turns that into its one-line refusal.
"""
import json
import math


class NotFinite(ValueError):
    """A value that JSON cannot hold (NaN, an infinity); the message says where it was."""


def _first_nonfinite(value, where):
    """The path (where[key][i]...) of the first NaN or infinity in value, or None."""
    if isinstance(value, float) and not math.isfinite(value):
        return where
    if isinstance(value, dict):
        items = value.items()
    elif isinstance(value, (list, tuple)):
        items = enumerate(value)
    else:
        return None
    for key, item in items:
        found = _first_nonfinite(item, f"{where}[{key!r}]")
        if found is not None:
            return found
    return None


def dumps(value, what, **kwargs):
    """json.dumps(value, **kwargs) that refuses a NaN or an infinity: NotFinite saying which of
    what (a description: "the export of testbed t") holds it."""
    try:
        return json.dumps(value, allow_nan=False, **kwargs)
    except ValueError:
        where = _first_nonfinite(value, "") or "a value"
        raise NotFinite(f"{what} holds a value that is not a finite number ({where}); JSON cannot hold it, "
                        "so nothing was written") from None
