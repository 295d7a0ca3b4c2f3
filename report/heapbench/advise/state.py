"""state.py - advise's output directory as a resumable record: what each stage found, written as it ends.

Always holds: DIR/state.json is replaced atomically (write, fsync, rename) after every stage,
so a Ctrl-C or a crash leaves the last finished stage's state whole; a stage is either in
`done` with its result or not started; `--resume DIR` continues after the last stage done with
the options the run started with (state.json `opts`).
"""
import json
import os

STATE = "state.json"
VERSION = 1


class StateError(Exception):
    """The directory holds no advise state this version can resume; the message says what to do."""


def state_new(opts, command):
    """A fresh state: the options (a dict), the command (argv list), nothing done."""
    return {"version": VERSION, "opts": opts, "command": command, "done": {}, "dropped": [], "spent": 0.0}


def state_save(directory, state):
    """Writes DIR/state.json atomically."""
    path = os.path.join(directory, STATE)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(state, f, indent=1, default=str)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def state_load(directory):
    """The state of DIR; raises StateError when it has none or another version."""
    path = os.path.join(directory, STATE)
    try:
        with open(path, encoding="utf-8") as f:
            state = json.load(f)
    except FileNotFoundError as err:
        raise StateError(f"--resume {directory}: no {STATE} there; give the directory an interrupted "
                         "heapbench advise wrote (-o DIR)") from err
    except (OSError, ValueError) as err:
        raise StateError(f"--resume {directory}: {STATE} is unreadable ({err}); start again with -o NEWDIR") from err
    if not isinstance(state, dict) or state.get("version") != VERSION or "opts" not in state:
        raise StateError(f"--resume {directory}: {STATE} was not written by this heapbench advise; "
                         "start again with -o NEWDIR")
    return state
