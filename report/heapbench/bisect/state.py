"""state.py - a bisect's state in OUT/bisect.json: what it was asked, what each measured commit did, written after every step; and the one atomic JSON writer of bisect's files (bisect.json, answer.json).

Always holds: every file is replaced whole (written beside it, flushed, then renamed), so a
Ctrl-C, a kill or a full disk leaves the previous file or the new one, never half of one, and no
temporary file is left behind when the writing fails; `--resume OUT` reads the state back and
goes on from the first step it does not hold.
"""
import json
import os

VERSION = 1


def path(out_dir):
    """OUT/bisect.json."""
    return os.path.join(out_dir, "bisect.json")


def write_json(file, value):
    """Writes value (JSON-able) to file atomically: a temporary file beside it, then a rename."""
    tmp = f"{file}.tmp{os.getpid()}"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(value, f, indent=1, sort_keys=True)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, file)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def save(out_dir, state):
    """Writes state (a JSON-able dict) atomically."""
    write_json(path(out_dir), state)


def load(out_dir):
    """The state of OUT, or raises ValueError saying why it cannot be resumed."""
    try:
        with open(path(out_dir), encoding="utf-8") as f:
            state = json.load(f)
    except FileNotFoundError as err:
        raise ValueError(f"{out_dir} holds no bisect.json: it is not a bisect's directory") from err
    except (OSError, json.JSONDecodeError) as err:
        raise ValueError(f"{path(out_dir)} cannot be read ({err})") from err
    if not isinstance(state, dict) or state.get("version") != VERSION:
        raise ValueError(f"{path(out_dir)} is not a bisect state of this heapbench (version {VERSION})")
    return state
