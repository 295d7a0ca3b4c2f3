"""snippets.py - the ready-to-paste lines of an advice: shell, systemd drop-in, Dockerfile, Kubernetes env, glibc alternatives.

Always holds: every snippet sets exactly the variables that were measured (the allocator's
LD_PRELOAD library as the registry resolved it, and the candidate's environment as tune's
knobs_env spells it), nothing more; the Dockerfile installs the registry's Debian package of
the allocator; the glibc alternatives are given only for a glibc setting.
"""
import shlex

# glibc tunable -> the mallopt() parameter that sets the same thing (malloc.h); the tcache ones have none.
MALLOPT = {"arena_max": "M_ARENA_MAX", "arena_test": "M_ARENA_TEST", "mmap_threshold": "M_MMAP_THRESHOLD",
           "trim_threshold": "M_TRIM_THRESHOLD", "top_pad": "M_TOP_PAD"}


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
                               + [f'Environment="{k}={v}"' for k, v in pairs]) if pairs else \
        "# nothing to set: keep the service as it is"
    install = []
    if entry.library and entry.package and entry.package != "-":
        install = [f"RUN apt-get update && apt-get install -y --no-install-recommends {entry.package} "
                   "&& rm -rf /var/lib/apt/lists/*"]
    elif entry.library:
        install = [f"# {entry.name} is built from this tree: COPY its library to {entry.library} first"]
    out["dockerfile"] = "\n".join(install + [f'ENV {k}="{v}"' for k, v in pairs]) or "# nothing to set"
    out["kubernetes"] = "\n".join(["env:"] + [f'- name: {k}\n  value: "{v}"' for k, v in pairs]) if pairs else "env: []"
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
