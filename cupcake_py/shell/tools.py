"""Handlers for tools with their own grammar: awk, dd, find, tar, patch (and the diff
source git apply shares), curl/wget, package managers.

In: a `semantics.Call`. Out: effects, facts and opacity on the shared result (see
handlers.py for the shell-level handlers). Raises only `Deadline`.
"""

from __future__ import annotations

import os
import re

from cupcake_py.shell import diffs, options
from cupcake_py.shell.handlers import ALL_KINDS, read_script, resolve_dir
from cupcake_py.shell.model import Field, absolute_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cupcake_py.shell.semantics import Call


def awk(call: Call) -> None:
    parsed = options.parse(call.args, {"val": "fvF", "lval": ("file", "assign", "field-separator", "include")})
    files = parsed.values("-f", "--file")
    operands = parsed.operands
    if not files and operands:  # the program (its commands, files and environment: shell/carriers.py)
        operands = operands[1:]
    for f in operands:
        if f.value is not None and re.match(r"^[A-Za-z_]\w*=", f.value):
            continue
        call.effect("reads", f)


def dd(call: Call) -> None:
    for f in call.args:
        if f.value is None:
            call.opaque("reads+writes", f.reason or "dd operand known only at run time")
            continue
        key, eq, value = f.value.partition("=")
        if eq and key in ("if", "of"):
            call.effect("reads" if key == "if" else "writes", Field(value, pattern=f.pattern))


def find(call: Call) -> None:
    args = call.args
    i = 0
    while i < len(args) and args[i].value in ("-H", "-L", "-P") or (i < len(args) and (args[i].value or "")
                                                                    .startswith("-O")):
        i += 1
    roots: list[Field] = []
    while i < len(args) and (args[i].value is None or not (args[i].value or "").startswith(("-", "(", "!", ")"))):
        roots.append(args[i])
        i += 1
    roots = roots or [Field(".")]
    paths = [call.effect("reads", r) for r in roots]
    for p in paths:
        if p is not None:
            call.result.recursive["reads"][p] = None
    where = ", ".join(r.value or "?" for r in roots)
    found = _find_matches(call, roots, args[i:])
    if found is not None and not found[1] and any(call.result.effects[k] for k in ("writes", "links", "deletes")):
        found = None  # nothing matches now, but this line changes files first: the whole tree
    if found is not None and not FIND_ACTIONS & {f.value for f in args[i:]} and \
            not any(any(c in m for c in " \t\n'\"\\") for m in found[1]):
        # it only prints: its output is the files it can select (a superset), one per line
        call.cmd.output = "".join(m + "\n" for m in found[1])
    while i < len(args):
        v = args[i].value
        if v == "-delete":
            if found is not None:
                for m in found[1]:
                    call.effect("deletes", Field(m, pattern=found[0]))
                call.result.patterns["deletes"][found[2]] = None
            else:
                for r in roots:
                    p = call.effect("deletes", r)
                    if p is not None:
                        call.result.recursive["deletes"][p] = None
        elif v in ("-exec", "-execdir", "-ok", "-okdir"):
            j = i + 1
            while j < len(args) and args[j].value not in (";", "+"):
                j += 1
            each = j < len(args) and args[j].value == ";"
            runs: list[list[Field]] = []
            template = args[i + 1:j]
            if found is not None and v in ("-exec", "-ok") and (not each or len(found[1]) <= 64):
                names = [Field(m, pattern=found[0]) for m in found[1]]
                groups = [[n] for n in names] if each else ([names] if names else [])
                for group in groups:
                    runs.append([x for f in template for x in (group if f.value == "{}" else [f])])
            else:
                runs.append([Field(None, reason=f"find supplies the file names (under {where})", split=True)
                             if (f.value is not None and "{}" in f.value) else f for f in template])
            for inner in runs:
                if not inner:
                    continue
                state = call.state.copy()
                if v in ("-execdir", "-okdir"):
                    state.cwd = None
                call.execute(inner, state, {}, None)
            i = j
        elif v in ("-fprint", "-fprint0", "-fls", "-fprintf") and i + 1 < len(args):
            call.effect("writes", args[i + 1])
            i += 1
        elif v == "-files0-from" and i + 1 < len(args):
            call.effect("reads", args[i + 1])
            i += 1
        elif v is None:
            call.opaque("command", args[i].reason or "find expression known only at run time")
        i += 1


FIND_BRANCHING = frozenset({"-o", "-or", "!", "-not", ",", "(", ")"})
# actions other than -print (find prints the selected names only without them)
FIND_ACTIONS = frozenset({"-exec", "-execdir", "-ok", "-okdir", "-delete", "-print0", "-printf", "-fprint", "-fprint0",
                          "-fprintf", "-fls", "-ls", "-quit"})


def _find_matches(call: Call, roots: list[Field], expr: list[Field]) -> tuple[str, list[str], str] | None:
    """For `find ROOT … -name NAME …` (one root, a plain conjunction: no -o, !, -not, groups):
    the files it can select, listed with bash's globstar (a superset: the other tests only
    narrow it), as (pattern relative to cwd, matches, absolute pattern). None: not narrowed."""
    from cupcake_py.shell import globbing

    values = [f.value for f in expr]
    if len(roots) != 1 or roots[0].value is None or None in values or FIND_BRANCHING & set(values):
        return None
    names = [values[k + 1] for k, v in enumerate(values[:-1]) if v == "-name"]
    root = roots[0].value
    if not names or not names[0] or "/" in (names[0] or "") or (call.cwd is None and not root.startswith("/")):
        return None
    escaped = "".join("\\" + c if c in "*?[]\\()|!@+" else c for c in root.rstrip("/") or "/")
    pattern = escaped.rstrip("/") + "/**/" + (names[0] or "")
    got = call.result.glob(pattern, call.cwd or "/", frozenset({"globstar", "dotglob"}))
    if got.truncated:
        return None
    matches = list(got.matches)
    base = os.path.basename(os.path.normpath(root))
    if re.match(globbing.translate(names[0] or "") + r"\Z", base, re.S) and os.path.lexists(
            absolute_path(root, call.cwd) or ""):
        matches.insert(0, root)  # find tests the starting point too
    absolute = absolute_path(pattern, call.cwd, pattern=True)
    return (pattern, matches, absolute) if absolute is not None else None


TAR_VAL = "fCTXbIKLgHVNM"
TAR_LVAL = ("file", "directory", "files-from", "exclude-from", "exclude", "use-compress-program", "to-command",
            "checkpoint-action", "owner", "group", "mode", "mtime", "transform", "xform", "format", "label",
            "newer", "after-date", "blocking-factor", "index-file", "info-script", "new-volume-script",
            "rmt-command", "rsh-command", "suffix", "strip-components", "newer-mtime", "exclude-tag",
            "listed-incremental", "record-size", "tape-length", "volno-file", "warning", "compress-program")


def tar(call: Call) -> None:
    args = list(call.args)
    if args and args[0].value is not None and not args[0].value.startswith("-"):
        letters = args[0].value
        args = [Field("-" + c) for c in letters] + args[1:]
        # old-style: value letters take the following operands in order
        fixed: list[Field] = []
        values = args[len(letters):]
        for flag in args[:len(letters)]:
            fixed.append(flag)
            if (flag.value or "")[1:] in TAR_VAL and values:
                fixed.append(values.pop(0))
        args = fixed + values
    parsed = options.parse(args, {"val": TAR_VAL, "lval": TAR_LVAL})
    create = parsed.has("-c", "--create", "-r", "--append", "-u", "--update", "-A", "--catenate",
                        "--concatenate", "--delete")
    extract = parsed.has("-x", "--extract", "--get")
    dirs = parsed.values("-C", "--directory")
    here = call.cwd
    if dirs:
        here = resolve_dir(dirs[-1], call.cwd)
    for f in parsed.values("-f", "--file"):
        if f.value != "-":
            call.effect("writes" if create else "reads", f)
    for f in parsed.values("-X", "--exclude-from"):
        call.effect("reads", f)
    for f in parsed.values("-T", "--files-from"):
        if create:  # the archive gets the files the list names (cupcake_py/shell/name_lists.py)
            from cupcake_py.shell.name_lists import listed_reads

            listed_reads(call, f, "tar -T", base=here, null=parsed.has("--null"), recursive=True)
        else:
            call.effect("reads", f)
    for f in parsed.values("-I", "--use-compress-program", "--compress-program"):
        call.effect("executes", Field((f.value or "").split()[0]) if f.value else f)
    for f in parsed.values("--to-command", "--checkpoint-action", "--info-script", "--new-volume-script",
                           "--rsh-command", "--rmt-command"):
        if f.value is not None and (not f.value.startswith(("dot", "bell", "echo", "ttyout", "sleep", "totals"))
                                    or f.value.startswith("exec")):
            call.opaque("command", "tar runs a command given in its options")
            call.opaque(ALL_KINDS, "tar runs a command given in its options")
    saved, call.cwd = call.cwd, here
    try:
        for f in parsed.operands:
            if create:
                p = call.effect("reads", f)
                if p is not None:
                    call.result.recursive["reads"][p] = None
            elif extract:
                call.effect("writes", f)
        if extract and not parsed.has("-O", "--to-stdout") and not parsed.operands:
            strip_n = next((int(f.value or "0") for f in parsed.values("--strip-components") if (f.value or "").isdigit()), 0)
            archive = parsed.values("-f", "--file")  # relative to where tar starts, not -C
            where = absolute_path(archive[-1].value, saved) if archive and archive[-1].value not in (None, "-") \
                else None
            extracted(call, Field(where) if where else None, "tar", here, strip_n)
        if parsed.has("--remove-files"):
            for f in parsed.operands:
                call.effect("deletes", f)
    finally:
        call.cwd = saved


def extracted(call: Call, archive: Field | None, kind: str, here: str | None, strip_n: int = 0) -> None:
    """Writes of every member an extraction creates (listed from the archive when it is a
    readable file within budget); opaque otherwise."""
    from cupcake_py.shell import archives

    path = None
    if archive is not None and archive.value not in (None, "-"):
        path = absolute_path(archive.value or "", call.cwd)
    if path is None:
        call.opaque("writes", "the archive's members (the files written) are known only at run time")
        return
    names, why = archives.members(path, kind, call.result.budget.max_bytes - call.result.bytes_read)
    if names is None:
        call.opaque("writes", why)
        return
    call.result.bytes_read += os.path.getsize(path)
    saved, call.cwd = call.cwd, here
    try:
        for name in names:
            rel = archives.strip(name, strip_n)
            if rel is not None:
                call.effect("writes", Field(rel.lstrip("/")))
    finally:
        call.cwd = saved


def unzip(call: Call) -> None:
    parsed = options.parse(call.args, {"val": "dxP"})
    dirs = parsed.values("-d")
    for f in dirs:
        call.effect("writes", f)
    if not parsed.operands:
        return
    call.effect("reads", parsed.operands[0])
    if parsed.has("-l", "-t", "-v", "-p", "-Z", "-c", "-z"):
        return
    here = resolve_dir(dirs[-1], call.cwd) if dirs else call.cwd
    if len(parsed.operands) > 1:  # named members only
        saved, call.cwd = call.cwd, here
        for f in parsed.operands[1:]:
            call.effect("writes", f)
        call.cwd = saved
        return
    extracted(call, parsed.operands[0], "zip", here)


def patch(call: Call) -> None:
    parsed = options.parse(call.args, {"val": "pidoBrzDVYgF", "lval": ("strip", "input", "directory", "output",
                                                                     "prefix", "reject-file", "suffix", "fuzz")})
    strip = next((int(f.value or "0") for f in parsed.values("-p", "--strip") if (f.value or "").isdigit()), None)
    dry = parsed.has("--dry-run", "-C", "--check")
    dirs = parsed.values("-d", "--directory")
    base = resolve_dir(dirs[-1], call.cwd) if dirs else call.cwd
    for f in parsed.values("-o", "--output", "-r", "--reject-file"):
        call.effect("writes", f)
    inputs = parsed.values("-i", "--input")
    operands = parsed.operands
    if len(operands) >= 2:
        inputs = inputs or [operands[1]]
    content = diff_source(call, inputs[0] if inputs else None)
    if operands:
        saved, call.cwd = call.cwd, base
        call.effect("reads" if dry else "reads+writes", operands[0])
        call.cwd = saved
        return
    apply_diff(call, content, strip, base, dry, "patch")


def diff_source(call: Call, field: Field | None) -> str | None:
    """The text of a patch given as a file (or stdin), read within the byte budget."""
    if field is not None:
        path = call.effect("reads", field)
        if path is None or not os.path.isfile(path):
            return None
        return read_script(call, path, "patch")
    if call.stdin is None:
        return None
    kind, value = call.stdin
    if kind == "file" and isinstance(value, str):
        return read_script(call, value, "patch") if os.path.isfile(value) else None
    if kind == "text" and isinstance(value, str):
        return value
    return None


def apply_diff(call: Call, content: str | None, strip: int | None, base: str | None, dry: bool, what: str) -> None:
    if content is None:
        if not dry:
            call.opaque("writes+deletes", f"{what} targets come from a diff that is not known statically")
        return
    saved, call.cwd = call.cwd, base
    try:
        for kind, path in diffs.targets(content, strip):
            call.effect("reads" if dry else kind, Field(path))
    finally:
        call.cwd = saved


CURL_VAL = "oDdFTKHXAeubcEmrwxzyYCUQ"
CURL_LVAL = ("output", "dump-header", "data", "data-binary", "data-raw", "data-ascii", "data-urlencode", "form",
             "form-string", "upload-file", "config", "header", "request", "user-agent", "referer", "user", "cookie",
             "cookie-jar", "cert", "key", "cacert", "capath", "max-time", "range", "write-out", "proxy",
             "trace", "trace-ascii", "stderr", "output-dir", "json", "url", "connect-timeout", "retry",
             "netrc-file", "resolve", "limit-rate", "time-cond", "quote", "continue-at")
WGET_VAL = "OoaPiendtTUwQlAR"
WGET_LVAL = ("output-document", "output-file", "append-output", "directory-prefix", "input-file", "post-file",
             "body-file", "execute", "load-cookies", "save-cookies", "user-agent", "header", "tries", "timeout",
             "user", "password", "level", "accept", "reject", "post-data", "method", "body-data", "wait")


def net(call: Call) -> None:
    call.result.fact("network")
    if call.name == "curl":
        parsed = options.parse(call.args, {"val": CURL_VAL, "lval": CURL_LVAL})
        for opt, value in parsed.opts:
            if value is None:
                continue
            if opt in ("-o", "--output", "-D", "--dump-header", "-c", "--cookie-jar", "--trace", "--trace-ascii",
                       "--stderr") and value.value != "-":
                call.effect("writes", value)
            elif opt in ("-T", "--upload-file", "-K", "--config", "-E", "--cert", "--key", "--cacert",
                         "--netrc-file"):
                call.effect("reads", value)
            elif opt in ("-d", "--data", "--data-binary", "--data-urlencode", "--json", "--data-ascii") and \
                    value.value is not None and "@" in value.value[:1] + value.value.partition("=")[2][:1]:
                call.effect("reads", Field(value.value.split("@", 1)[1]))
            elif opt in ("-F", "--form") and value.value is not None and re.search(r"=[@<]", value.value):
                call.effect("reads", Field(re.split(r"=[@<]", value.value, maxsplit=1)[1].split(";")[0]))
            elif value.value is None and opt in ("-d", "--data", "-F", "--form", "--data-binary"):
                call.opaque("reads", "data sent over the network is not static")
        if parsed.has("-O", "--remote-name", "--remote-name-all"):
            _url_names(call, parsed.operands, parsed.values("--output-dir"))
        return
    parsed = options.parse(call.args, {"val": WGET_VAL, "lval": WGET_LVAL})
    outputs = parsed.values("-O", "--output-document")
    for f in outputs + parsed.values("-o", "--output-file", "-a", "--append-output", "--save-cookies"):
        if f.value != "-":
            call.effect("writes", f)
    for f in parsed.values("-i", "--input-file", "--post-file", "--body-file", "--load-cookies"):
        call.effect("reads", f)
    for f in parsed.values("-e", "--execute"):
        call.opaque("writes", f"wget command {f.value!r} is not analysed")
    if parsed.has("-r", "--recursive", "-m", "--mirror"):
        call.opaque("writes", "wget --recursive writes files named by the server")
    elif not outputs:
        _url_names(call, parsed.operands, parsed.values("-P", "--directory-prefix"))


def _url_names(call: Call, urls: list[Field], dirs: list[Field]) -> None:
    base = resolve_dir(dirs[-1], call.cwd) if dirs else call.cwd
    for url in urls:
        if url.value is None:
            call.opaque("writes", "the downloaded file's name comes from a URL known only at run time")
            continue
        path = url.value.split("?", 1)[0].split("#", 1)[0]
        name = path.rstrip("/").rsplit("/", 1)[-1] if "://" in path and path.count("/") > 2 else ""
        saved, call.cwd = call.cwd, base
        call.effect("writes", Field(name or "index.html"))
        call.cwd = saved


INSTALL_VERBS = frozenset({"install", "i", "add", "update", "upgrade", "up", "ci", "sync", "get", "uninstall",
                           "remove", "rm", "un", "purge", "reinstall", "dist-upgrade", "full-upgrade", "lock",
                           "build-dep", "link", "tap", "global", "dlx", "create", "init"})
RUN_VERBS = {"uv": ("run", "tool"), "poetry": ("run",), "pipenv": ("run",), "bundle": ("exec",),
             "npm": ("exec",), "pnpm": ("exec", "dlx"), "yarn": ("exec", "dlx"), "bun": ("x", "run"),
             "conda": ("run",), "mamba": ("run",), "pipx": ("run",), "cargo": ("run",)}


def pkg(call: Call) -> None:
    operands = [f for f in call.args if f.value is None or not f.value.startswith("-")]
    verb = operands[0].value if operands else None
    if verb in INSTALL_VERBS or (call.name == "dpkg" and any(f.value in ("-i", "--install") for f in call.args)):
        call.result.fact("package_install")
        call.result.fact("network")
    if verb in RUN_VERBS.get(call.name, ()) and len(operands) > 1:
        start = call.args.index(operands[0]) + 1
        rest = call.args[start:]
        while rest and rest[0].value is not None and rest[0].value.startswith("-"):
            rest = rest[1:]
        if rest:
            call.execute(rest, call.state, call.env, call.stdin)
