"""snippets.py - the ready-to-paste lines of an advice: shell, systemd drop-in, Dockerfile, Kubernetes env, glibc alternatives.

Always holds: every snippet sets exactly the variables that were measured (the allocator's
LD_PRELOAD library as the registry resolved it, and the candidate's environment as tune's
knobs_env spells it), nothing more; the Dockerfile installs the registry's Debian package of
the allocator; the glibc alternatives are given only for a glibc setting. Each value is quoted
for its format, so any library path or value reads back as itself: shell words by shlex.quote;
systemd's Environment="K=V" with \\, \" and control characters C-escaped and % doubled (a
specifier otherwise); the Dockerfile's ENV K="V" with \\, \" and \$ escaped (a value with a
control character, which no ENV line can hold, is a comment saying so); Kubernetes' value a
YAML double-quoted scalar (JSON's escapes) with $ doubled (Kubernetes expands $(VAR) and reads $$ as $).
"""
import json
import re
import shlex

# glibc tunable -> the mallopt() parameter that sets the same thing (malloc.h); the tcache ones have none.
MALLOPT = {"arena_max": "M_ARENA_MAX", "arena_test": "M_ARENA_TEST", "mmap_threshold": "M_MMAP_THRESHOLD",
           "trim_threshold": "M_TRIM_THRESHOLD", "top_pad": "M_TOP_PAD"}


def _control(text):
    """True when text holds a character below space or DEL (a new line, a tab, an escape)."""
    return any(ord(ch) < 0x20 or ord(ch) == 0x7f for ch in text)


def quote_systemd(text):
    """text inside systemd's double quotes (Environment=): backslash, quote and control characters
    C-escaped, % doubled ($ is literal there)."""
    out = []
    for ch in text:
        if ch in '\\"':
            out.append("\\" + ch)
        elif ch == "%":
            out.append("%%")
        elif ord(ch) < 0x20 or ord(ch) == 0x7f:
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    return "".join(out)


def quote_docker(text):
    """text inside a Dockerfile's double quotes (ENV): backslash, quote and $ escaped."""
    return "".join("\\" + ch if ch in '\\"$' else ch for ch in text)


def docker_env(name, value):
    """The ENV line of one variable, or a comment when the value cannot be written on one (a control character)."""
    if _control(name + value):
        return f"# {json.dumps(name)}: its value holds a control character, which an ENV line cannot hold; set it in the entrypoint"
    return f'ENV {name}="{quote_docker(value)}"'


def quote_kubernetes(text):
    """text as a YAML double-quoted scalar for a Kubernetes env value: $ doubled ($(VAR) is expanded,
    $$ reads as $), then JSON's string escapes (valid YAML)."""
    return json.dumps(text.replace("$", "$$"))


def _yaml_name(name):
    """A variable's name in YAML: as it is when it is a plain identifier, else double-quoted."""
    return name if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) else json.dumps(name)


def snippets_env(entry, env):
    """[(NAME, VALUE)] the deployment sets: LD_PRELOAD (not for the system glibc), then env in order."""
    pairs = [("LD_PRELOAD", entry.library)] if entry.library else []
    return pairs + list(env.items())


def snippets(entry, env, point, command):
    """{shell, systemd, dockerfile, kubernetes, glibc} texts for the allocator entry (registry.Allocator),
    env ({NAME: VALUE}), point (tune knob point, for the glibc alternatives) and command (argv list)."""
    pairs = snippets_env(entry, env)
    cmd = " ".join(shlex.quote(a) for a in command) if command else "CMD"
    out = {"shell": " ".join([f"{k}={shlex.quote(v)}" for k, v in pairs] + [cmd])}
    out["systemd"] = "\n".join(["# /etc/systemd/system/SERVICE.service.d/allocator.conf", "[Service]"]
                               + [f'Environment="{quote_systemd(f"{k}={v}")}"' for k, v in pairs]) if pairs else \
        "# nothing to set: keep the service as it is"
    install = []
    if entry.library and entry.package and entry.package != "-":
        install = [f"RUN apt-get update && apt-get install -y --no-install-recommends {entry.package} "
                   "&& rm -rf /var/lib/apt/lists/*"]
    elif entry.library:
        install = [f"# {entry.name} is built from this tree: COPY its library to {json.dumps(entry.library)} first"]
    out["dockerfile"] = "\n".join(install + [docker_env(k, v) for k, v in pairs]) or "# nothing to set"
    out["kubernetes"] = "\n".join(["env:"] + [f"- name: {_yaml_name(k)}\n  value: {quote_kubernetes(v)}"
                                              for k, v in pairs]) if pairs else "env: []"
    glibc = snippets_glibc(entry, point)
    if glibc:
        out["glibc"] = glibc
    return out


def snippets_glibc(entry, point):
    """The other ways to set a glibc setting: GLIBC_TUNABLES, MALLOC_ARENA_MAX, mallopt(); '' otherwise."""
    if entry.name != "glibc" or not point:
        return ""
    tunables = ":".join(f"glibc.malloc.{k.name}={v}" for k, v in point if not k.env)
    lines = [f"GLIBC_TUNABLES={tunables}"] if tunables else []
    calls = []
    for knob, value in point:
        name = "arena_max" if knob.name == "MALLOC_ARENA_MAX" else knob.name
        if name == "arena_max":
            lines.append(f"MALLOC_ARENA_MAX={value}    (the older variable; GLIBC_TUNABLES wins when both are set)")
        if name in MALLOPT:
            calls.append(f"mallopt({MALLOPT[name]}, {value});")
        else:
            calls.append(f"/* {name}: no mallopt() parameter; only GLIBC_TUNABLES sets it */")
    return "\n".join(lines + ["/* in the program, before its threads start: */"] + calls)
