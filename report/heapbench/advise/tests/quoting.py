"""quoting.py - advise's snippets hold hostile values (quotes, $, %, backslashes, $(VAR), a newline) as themselves in every format.

Always holds: each snippet is read back the way its consumer reads it: the shell one by sh
(printenv), the systemd drop-in by systemd-analyze verify (no complaint) and systemd's documented
unquoting (specifiers, then C escapes), the Kubernetes one by a YAML parser and Kubernetes' $$ rule,
the Dockerfile by a strict check of its ENV lines and Docker's unquoting; every value read back
equals the value measured. Prints one `PASS name`, `FAIL name: why` or `SKIP name: why` line per check.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

from heapbench.advise import snippets
from heapbench.registry import Allocator

LIBRARY = "/opt/my \"libs\" $HOME %h 'q' \\x/libjemalloc.so.2"
ENV = {"MALLOC_CONF": 'narenas:1,"a"$(HOME)%n\\ $$x', "OTHER": "a%%b c\"d"}
CONTROL = {"MALLOC_CONF": "a\nb\tc"}


def check(name, condition, why=""):
    """Prints the PASS/FAIL line of one check."""
    print(f"PASS {name}" if condition else f"FAIL {name}: {why}", flush=True)


def entry():
    """A jemalloc entry whose library path is hostile."""
    return Allocator(name="jemalloc", libraries=LIBRARY, package="libjemalloc2", version="dpkg:libjemalloc2",
                     tunables="jemalloc", matrix="default", library=LIBRARY)


def expected(env):
    """The (name, value) pairs every snippet must set."""
    return [("LD_PRELOAD", LIBRARY)] + list(env.items())


def systemd_values(text):
    """The NAME=VALUE of each Environment= line as systemd reads it: specifiers (%% -> %), then the
    double quotes with C escapes (\\\\, \\", \\xNN)."""
    out = []
    for line in text.splitlines():
        if not line.startswith("Environment="):
            continue
        raw = line[len("Environment="):].replace("%%", "\0")
        assert "%" not in raw, f"an unescaped specifier in {line!r}"
        raw = raw.replace("\0", "%")
        assert raw.startswith('"') and raw.endswith('"'), line
        body, value, i = raw[1:-1], [], 0
        while i < len(body):
            if body[i] == "\\":
                if body[i + 1] == "x":
                    value.append(chr(int(body[i + 2:i + 4], 16)))
                    i += 4
                    continue
                value.append(body[i + 1])
                i += 2
                continue
            assert body[i] != '"', f"an unescaped quote in {line!r}"
            value.append(body[i])
            i += 1
        out.append(tuple("".join(value).split("=", 1)))
    return out


def kubernetes_value(value):
    """An env value as Kubernetes reads it: $$ is $, and $(NAME) would be expanded (an error here)."""
    out, i = [], 0
    while i < len(value):
        if value.startswith("$$", i):
            out.append("$")
            i += 2
            continue
        assert not value.startswith("$(", i), f"Kubernetes would expand {value[i:i + 12]!r}..."
        out.append(value[i])
        i += 1
    return "".join(out)


def docker_values(text):
    """The (NAME, VALUE) of each ENV line as Docker reads a double-quoted word (a backslash takes the
    next character literally); any other line than a comment, RUN or ENV NAME="..." fails."""
    out = []
    for line in text.splitlines():
        if line.startswith("#") or line.startswith("RUN "):
            continue
        match = re.fullmatch(r'ENV ([A-Za-z_][A-Za-z0-9_]*)="((?:[^"\\$]|\\.)*)"', line)
        assert match, f"not a strict ENV line: {line!r}"
        out.append((match.group(1), re.sub(r"\\(.)", r"\1", match.group(2))))
    return out


def test_shell(out, env):
    """sh sets each variable to its value."""
    cmd = out["shell"].rsplit(" ", 1)[0] + " printenv " + " ".join(k for k, _ in expected(env))
    done = subprocess.run(["sh", "-c", cmd], capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"})
    check("quoting-shell", done.stdout == "".join(v + "\n" for _, v in expected(env)), (cmd, done.stdout, done.stderr))


def test_systemd(out, env, tmp):
    """systemd-analyze verify finds nothing wrong in a unit holding the drop-in's lines; they read back."""
    try:
        check("quoting-systemd-read", systemd_values(out["systemd"]) == expected(env), out["systemd"])
    except (AssertionError, IndexError, ValueError) as err:
        check("quoting-systemd-read", False, f"{err}: {out['systemd']}")
    tool = shutil.which("systemd-analyze")
    if not tool:
        print("SKIP quoting-systemd-verify: systemd-analyze is not installed")
        return
    unit = os.path.join(tmp, "hb-quoting.service")
    with open(unit, "w") as fh:
        fh.write("[Unit]\nDescription=quoting\n" + out["systemd"].split("[Service]", 1)[1].join(
            ["[Service]\nExecStart=/bin/true", ""]) + "\n")
    done = subprocess.run([tool, "verify", unit], capture_output=True, text=True, timeout=120)
    complaints = [line for line in (done.stdout + done.stderr).splitlines() if "hb-quoting.service:" in line]
    check("quoting-systemd-verify", done.returncode == 0 and not complaints, done.stdout + done.stderr)


def test_kubernetes(out, env):
    """The YAML parses to the names and values, $ doubled as Kubernetes reads it back ($$ -> $)."""
    try:
        got = [(e["name"], kubernetes_value(e["value"])) for e in yaml.safe_load(out["kubernetes"])["env"]]
    except (yaml.YAMLError, AssertionError, KeyError, TypeError) as err:
        check("quoting-kubernetes", False, f"{err}: {out['kubernetes']}")
        return
    check("quoting-kubernetes", got == expected(env), (got, out["kubernetes"]))


def test_dockerfile(out, env):
    """Strict ENV lines that read back as the values; a value with a new line is a comment, not an ENV line."""
    try:
        got = docker_values(out["dockerfile"])
    except AssertionError as err:
        check("quoting-dockerfile", False, err)
        return
    want = [(k, v) for k, v in expected(env) if "\n" not in v and "\t" not in v]
    check("quoting-dockerfile", got == want, (got, out["dockerfile"]))


def main():
    tmp = tempfile.mkdtemp(prefix="hb-advise-quoting-")
    try:
        for env in (ENV, CONTROL):
            out = snippets.snippets(entry(), env, (), ["./prog"])
            test_shell(out, env)
            test_systemd(out, env, tmp)
            test_kubernetes(out, env)
            test_dockerfile(out, env)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
    sys.exit(0)
