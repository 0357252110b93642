"""git invocations: global options, config overrides (-c, --config-env, GIT_CONFIG_* env),
alias expansion, hook bypass and the work-tree effects of subcommands.

In: a `semantics.Call` for `git`. Out: one entry in `shell.git` ({command, subcommand,
args, hooks_disabled, reasons, config, git_dir, work_tree}) and effects: checkout/restore/
reset --hard/stash/merge/pull write the work tree (or the pathspecs), clean/rm delete,
`show REV:path`/`cat-file` read that path, apply/am write the diff's targets (opaque when
the patch is not a readable file), `config` writes the config file. Config values that git
runs as commands (core.pager, core.sshCommand, `!` aliases, …) and `rebase --exec`,
`submodule foreach`, `bisect run` are analysed as shell code. Unknown subcommands (maybe
aliases from config files) are opaque. `analyze.finish_git` marks every entry
hooks_disabled when the line changes hook files or git config files. Raises only `Deadline`.
"""

from __future__ import annotations

import os
import re

from cupcake_py.shell import diffs, handlers, options, tools
from cupcake_py.shell.model import Field, absolute_path, decimal

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from cupcake_py.shell.model import Result
    from cupcake_py.shell.semantics import Call

GLOBAL_VAL = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--exec-path",
                        "--super-prefix", "--list-cmds", "--attr-source"})
NO_VERIFY = ("commit", "merge", "push", "am", "rebase", "pull", "cherry-pick", "revert", "notes")
KNOWN = frozenset((
    "add am annotate apply archive bisect blame branch bundle cat-file check-attr check-ignore check-mailmap "
    "check-ref-format checkout checkout-index cherry cherry-pick citool clean clone column commit commit-graph "
    "commit-tree config count-objects credential describe diff diff-files diff-index diff-tree difftool "
    "fast-export fast-import fetch fetch-pack filter-branch fmt-merge-msg for-each-ref for-each-repo "
    "format-patch fsck gc get-tar-commit-id grep gui hash-object help hook http-backend index-pack init "
    "instaweb interpret-trailers log ls-files ls-remote ls-tree mailinfo mailsplit maintenance merge "
    "merge-base merge-file merge-index merge-tree mergetool mktag mktree multi-pack-index mv name-rev notes "
    "pack-objects pack-redundant pack-refs patch-id prune prune-packed pull push range-diff read-tree rebase "
    "reflog remote repack replace request-pull rerere reset restore rev-list rev-parse revert rm "
    "send-email shortlog show show-branch show-index show-ref sparse-checkout stage stash status stripspace "
    "submodule switch symbolic-ref tag unpack-file unpack-objects update-index update-ref "
    "update-server-info var verify-commit verify-pack verify-tag version whatchanged worktree write-tree lfs"
).split())
WRITES_TREE = frozenset({"checkout", "switch", "restore", "merge", "pull", "rebase", "cherry-pick", "revert",
                         "stash", "read-tree", "checkout-index", "reset", "am", "bisect", "sparse-checkout"})
EXEC_CONFIG = (r"^(?:core\.(?:pager|editor|sshcommand|fsmonitor|askpass)|diff\.external|"
                         r"diff\..+\.(?:textconv|command)|filter\..+\.(?:clean|smudge|process)|credential\.helper|"
                         r"credential\..+\.helper|gpg\.program|gpg\..+\.program|sequence\.editor|"
                         r"merge\..+\.driver|pager\..+|interactive\.difffilter|uploadpack\.packobjectshook|"
                         r"remote\..+\.(?:receivepack|uploadpack|vcs)|sendemail\..*cmd|difftool\..+\.cmd|"
                         r"mergetool\..+\.cmd|core\.gitproxy|ssh\.variant)$")
CONFIG_FILES_ENV = ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG", "HOME", "XDG_CONFIG_HOME", "GIT_DIR",
                    "GIT_EXEC_PATH", "GIT_TEMPLATE_DIR")
SETTERS = frozenset({"--add", "--replace-all", "--unset", "--unset-all", "--rename-section", "--remove-section",
                     "--edit", "-e"})
READ_ONLY_CONFIG = frozenset({"--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l",
                              "--get-color", "--get-colorbool"})
MAX_ALIASES = 8
# environment variables git runs as commands
EXEC_ENV = ("GIT_SSH_COMMAND", "GIT_SSH", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_PAGER", "GIT_ASKPASS",
            "GIT_EXTERNAL_DIFF", "GIT_PROXY_COMMAND", "EDITOR", "VISUAL", "PAGER", "SSH_ASKPASS")
# hook managers' switches that skip hooks (pre-commit, husky, lefthook, overcommit): name -> values that skip
HOOK_SKIP_ENV = {"SKIP": None, "HUSKY": ("0",), "HUSKY_SKIP_HOOKS": None, "LEFTHOOK": ("0", "false"),
                 "LEFTHOOK_EXCLUDE": None, "OVERCOMMIT_DISABLE": None, "PRE_COMMIT_ALLOW_NO_CONFIG": None}


def _env(call: Call, name: str) -> tuple[bool, str | None]:
    if name in call.env:
        value = call.env[name]
        return True, value
    known, value = call.state.lookup(name)
    if known and value is not None and (name in call.state.exported or name in call.state.env):
        return True, value
    if known and value is None:
        return True, None
    return False, None


def _repo(cwd: str | None) -> tuple[str | None, str | None]:
    """(git dir, work tree) found from cwd upwards."""
    if cwd is None:
        return None, None
    d = os.path.realpath(cwd)
    for _ in range(64):
        candidate = os.path.join(d, ".git")
        if os.path.exists(candidate):
            return candidate, d
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    return None, None


MAX_CONFIG_BYTES = 1 << 16


def _config_files(git_dir: str | None, call: Call) -> list[str]:
    files = []
    known, home = call.state.lookup("HOME")
    if known and home:
        files.append(os.path.join(home, ".gitconfig"))
        files.append(os.path.join(home, ".config", "git", "config"))
    if git_dir is not None:
        real = git_dir
        if os.path.isfile(git_dir):  # a worktree or submodule: "gitdir: PATH"
            try:
                with open(git_dir, encoding="utf-8", errors="replace") as fh:
                    line = fh.read(4096).strip()
            except OSError:
                line = ""
            if line.startswith("gitdir:"):
                real = absolute_path(line[7:].strip(), os.path.dirname(git_dir)) or git_dir
        files.append(os.path.join(real, "config"))
        files.append(os.path.join(real, "config.worktree"))
    return files


def config_aliases(git_dir: str | None, call: Call) -> dict[str, str]:
    """[alias] entries of the config files git reads (global, XDG, repository), last wins.
    A file that cannot be read or is too large contributes nothing; an alias that is not
    found stays an unknown subcommand (opaque)."""
    out: dict[str, str] = {}
    for path in _config_files(git_dir, call):
        if not os.path.isfile(path):
            continue  # missing (git reads nothing) or not a regular file (never opened: it could block)
        try:
            with open(path, "rb") as fh:
                data = fh.read(MAX_CONFIG_BYTES + 1)
        except OSError:
            continue  # no such config: git reads nothing from it either
        if len(data) > MAX_CONFIG_BYTES:
            continue
        section = ""
        for raw in data.decode("utf-8", "replace").splitlines():
            line = raw.strip()
            if line.startswith("["):
                section = line[1:line.find("]")].strip().lower() if "]" in line else ""
                continue
            if section != "alias" or "=" not in line or line.startswith(("#", ";")):
                continue
            key, _, value = line.partition("=")
            value = value.strip()
            if value.startswith('"') and value.endswith('"') and len(value) > 1:
                value = value[1:-1].replace('\\"', '"').replace("\\\\", "\\")
            out[key.strip().lower()] = value
    return out


def _parse_params(text: str) -> dict[str, str | None]:
    """GIT_CONFIG_PARAMETERS: 'key'='value' pairs (shell single-quoted)."""
    out: dict[str, str | None] = {}
    for m in re.finditer(r"'((?:[^']|'\\'')*)'(?:='((?:[^']|'\\'')*)')?", text):
        out[m.group(1).replace("'\\''", "'").lower()] = None if m.group(2) is None else \
            m.group(2).replace("'\\''", "'")
    return out


def analyze_git(call: Call) -> None:
    result = call.result
    entry: dict[str, Any] = {"command": call.cmd.index, "subcommand": None, "args": [], "hooks_disabled": False,
                             "reasons": [], "config": {}, "git_dir": None, "work_tree": None, "history": False,
                             "history_paths": []}
    result.git.append(entry)
    reasons: list[str] = entry["reasons"]
    config: dict[str, str | None] = entry["config"]
    config.update(result.git_config)
    cwd = call.cwd
    git_dir: str | None = None
    work_tree: str | None = None
    # environment
    known, count = _env(call, "GIT_CONFIG_COUNT")
    if known and count is not None:
        n = decimal(count)
        n = -1 if n is None else n
        for i in range(max(n, 0)):
            kk, key = _env(call, f"GIT_CONFIG_KEY_{i}")
            vk, value = _env(call, f"GIT_CONFIG_VALUE_{i}")
            if not kk or key is None:
                # the rest is unknown as well: stop here (the count is the agent's to choose; a
                # key git lacks makes it stop with an error)
                reasons.append(f"GIT_CONFIG_KEY_{i} is not static")
                config["?"] = None
                break
            config[key.lower()] = value if vk else None
        if n < 0:
            reasons.append("GIT_CONFIG_COUNT is not a number")
            config["?"] = None
    elif "GIT_CONFIG_COUNT" in call.env:
        reasons.append("GIT_CONFIG_COUNT is not static")
        config["?"] = None
    known, params = _env(call, "GIT_CONFIG_PARAMETERS")
    if known and params is not None:
        config.update(_parse_params(params))
    elif "GIT_CONFIG_PARAMETERS" in call.env:
        reasons.append("GIT_CONFIG_PARAMETERS is not static")
        config["?"] = None
    for name in CONFIG_FILES_ENV:
        if name in call.env:
            reasons.append(f"{name} is set for git")
            if name == "GIT_DIR" and call.env[name] is not None:
                git_dir = absolute_path(call.env[name] or "", cwd)
            elif name != "GIT_DIR":
                config["?"] = None
    for name in EXEC_ENV:
        if name in call.env:
            value = call.env[name]
            if value is None:
                call.opaque("command", f"{name} (run by git) is not static")
                call.opaque(handlers.ALL_KINDS, f"{name} (run by git) is not static")
            else:
                handlers.run_code(call, Field(value), "bash -c")
    for name, skipping in HOOK_SKIP_ENV.items():
        known, value = _env(call, name)
        if (known and value and (skipping is None or value.lower() in skipping)) or \
                (name in call.env and call.env[name] is None):
            entry["hooks_disabled"] = True
            reasons.append(f"{name} is set: the hook manager skips hooks")
    known, wt = _env(call, "GIT_WORK_TREE")
    if known and wt:
        work_tree = absolute_path(wt, cwd)
    # global options
    args = list(call.args)
    i = 0
    while i < len(args):
        f = args[i]
        v = f.value
        if v is None:
            reasons.append("a git option or subcommand is not static")
            config["?"] = None
            i += 1
            continue
        if not v.startswith("-"):
            break
        name, eq, inline = v.partition("=")
        opt: Field | None
        if name in GLOBAL_VAL and not eq and name != "--exec-path":
            opt = args[i + 1] if i + 1 < len(args) else Field(None, reason="missing value")
            i += 2
        else:
            opt = Field(inline) if eq else None
            i += 1
        if name == "-C" and opt is not None:
            cwd = handlers.resolve_dir(opt, cwd)
        elif name == "-c" and opt is not None:
            if opt.value is None:
                reasons.append("a -c config override is not static")
                config["?"] = None
                call.opaque("command", "a git -c config override is not static (config can run commands)")
            else:
                key, has, val = opt.value.partition("=")
                config[key.lower()] = val if has else "true"
        elif name == "--config-env" and opt is not None:
            key, _, var = (opt.value or "").partition("=")
            vk, env_value = _env(call, var)
            config[key.lower()] = env_value if vk else None
            reasons.append(f"--config-env sets {key}")
        elif name == "--git-dir" and opt is not None:
            git_dir = absolute_path(opt.value, cwd) if opt.value is not None else None
            reasons.append("--git-dir overrides the repository")
        elif name == "--work-tree" and opt is not None:
            work_tree = absolute_path(opt.value, cwd) if opt.value is not None else None
        elif name == "--exec-path" and eq:
            reasons.append("--exec-path replaces git's programs")
            config["?"] = None
    found_dir, found_tree = _repo(cwd)
    if git_dir is not None and found_dir is not None and os.path.realpath(git_dir) != os.path.realpath(found_dir):
        reasons.append("--git-dir/GIT_DIR points to another repository (its hooks run instead)")
        config["?"] = None
    git_dir = git_dir or found_dir
    work_tree = work_tree or found_tree
    entry["git_dir"] = git_dir
    entry["work_tree"] = work_tree
    call.cwd = cwd
    call.cmd.cwd = cwd
    rest = args[i:]
    # aliases: -c overrides first, then the config files git would read
    file_aliases: dict[str, str] | None = None
    for _ in range(MAX_ALIASES):
        if not rest or rest[0].value is None:
            break
        alias = config.get("alias." + rest[0].value.lower())
        if alias is None and rest[0].value not in KNOWN:
            if file_aliases is None:
                file_aliases = config_aliases(git_dir, call)
            alias = file_aliases.get(rest[0].value.lower())
        if alias is None:
            break
        reasons.append(f"alias {rest[0].value} = {alias}")
        if alias.startswith("!"):
            positional = [f.value or "" for f in rest[1:]] if all(f.value is not None for f in rest[1:]) else None
            code = alias[1:] + (' "$@"' if rest[1:] else "")
            entry["subcommand"] = "!"
            entry["args"] = [f.value for f in rest[1:]]
            saved = call.cwd
            call.cwd = work_tree or cwd
            handlers.run_code(call, Field(code), "bash -c", args=positional)
            call.cwd = saved
            _hooks(entry, config)
            return
        rest = handlers.split_words(Field(alias)) + rest[1:]
    for key, value in list(config.items()):
        if re.match(EXEC_CONFIG, key):
            if value is None:
                call.opaque("command", f"git config {key} runs a command that is not static")
                call.opaque(handlers.ALL_KINDS, f"git config {key} runs a command that is not static")
            else:
                handlers.run_code(call, Field(value.lstrip("!")), "bash -c")
    if not rest:
        _hooks(entry, config)
        return
    sub = rest[0].value
    entry["subcommand"] = sub
    entry["args"] = [f.value for f in rest[1:]]
    if sub is None:
        call.opaque("command", "the git subcommand is not static")
        call.opaque("writes+deletes", "the git subcommand is not static")
        config["?"] = None
    elif sub not in KNOWN:
        reasons.append(f"git {sub} is not a git command (maybe an alias from a config file)")
        call.opaque("command", f"git {sub} may be an alias defined in a git config file")
        config["?"] = None
    else:
        _subcommand(call, entry, sub, rest[1:], git_dir, work_tree)
    _hooks(entry, config)


def _hooks(entry: dict[str, Any], config: dict[str, str | None]) -> None:
    reasons = entry["reasons"]
    if "core.hookspath" in config:
        entry["hooks_disabled"] = True
        reasons.append("core.hooksPath is overridden")
    if any(k.startswith(("include.", "includeif.")) for k in config):
        entry["hooks_disabled"] = True
        reasons.append("a config include may set core.hooksPath")
    if "?" in config:
        config.pop("?")
        entry["hooks_disabled"] = True
        reasons.append("git configuration not known statically")


def _no_verify(opts: list[tuple[str, Field | None]], sub: str) -> bool:
    for name, _ in opts:
        if len(name) >= 9 and "--no-verify".startswith(name):
            return True
        if name == "-n" and sub == "commit":
            return True
    return False


SUB_SPECS: dict[str, dict[str, Any]] = {
    "commit": {"val": "mFcCt", "oval": "uS", "lval": ("message", "file", "reuse-message", "reedit-message",
                                                     "fixup", "squash", "author", "date", "template", "cleanup",
                                                     "trailer", "pathspec-from-file")},
    "push": {"val": "o", "lval": ("repo", "receive-pack", "exec", "push-option", "force-with-lease")},
    "merge": {"val": "msSX", "lval": ("message", "strategy", "strategy-option", "file", "into-name")},
    "rebase": {"val": "sXx", "lval": ("onto", "strategy", "strategy-option", "exec", "whitespace", "empty")},
    "am": {"val": "pC", "lval": ("whitespace", "directory", "exclude", "include", "patch-format", "resolvemsg")},
    "apply": {"val": "pC", "lval": ("whitespace", "directory", "exclude", "include", "build-fake-ancestor")},
    "clean": {"val": "e", "lval": ("exclude",)},
    "checkout": {"val": "bB", "lval": ("conflict", "pathspec-from-file")},
    "config": {"val": "f", "lval": ("file", "blob", "type", "default", "comment", "value")},
    "archive": {"val": "o", "lval": ("output", "format", "prefix", "remote", "exec")},
    "clone": {"val": "obcju", "lval": ("origin", "branch", "config", "depth", "reference", "separate-git-dir",
                                        "template", "upload-pack", "jobs", "filter", "shallow-since")},
    "log": {"val": "nLGS", "lval": ("max-count", "format", "pretty", "author", "since", "until", "grep", "output")},
    "show": {"lval": ("format", "pretty", "output")},
    "diff": {"lval": ("output", "src-prefix", "dst-prefix", "relative")},
    "format-patch": {"val": "ov", "lval": ("output-directory", "subject-prefix", "in-reply-to", "to", "cc", "from",
                                           "suffix", "signature", "signature-file", "base", "reroll-count")},
    "grep": {"val": "efABCm", "lval": ("max-depth", "after-context", "before-context", "context", "max-count",
                                      "threads", "open-files-in-pager")},
    "update-index": {"lval": ("chmod", "index-version", "cacheinfo")},
    "checkout-index": {"lval": ("prefix", "stage")},
    "bundle": {},
}

# History: subcommands that print file content from commits (not only the work tree); the flag
# `history` on their entry makes the policy input list the secret-looking paths the repository
# ever tracked (cupcake_py/enrich/git_history.py). Options that keep a command to names/stats:
SUMMARY_ONLY = frozenset({"-s", "--no-patch", "--stat", "--shortstat", "--numstat", "--name-only", "--name-status",
                          "--summary", "--dirstat", "--raw", "--compact-summary", "--quiet"})
PATCH_FLAGS = frozenset({"-p", "-u", "--patch", "--patch-with-stat", "--patch-with-raw", "--cc", "-c", "--full-diff",
                         "--word-diff", "--color-words", "--textconv", "--ext-diff", "-L", "-m", "--diff-merges",
                         "--unified", "-U", "--function-context", "-W", "--binary"})
ALWAYS_HISTORY = frozenset({"format-patch", "archive", "fast-export", "cat-file", "blame", "annotate", "range-diff",
                            "get-tar-commit-id", "unpack-file", "show-index"})
# Plumbing that creates commits or moves refs without running any hook (the effect of --no-verify).
NO_HOOKS = {"commit-tree": "creates a commit", "fast-import": "creates commits and moves refs",
            "update-ref": "moves a ref", "filter-branch": "rewrites commits", "replace": "replaces objects",
            "mktag": "creates a tag object"}
# Subcommands whose hooks are the hooks of the repository they run in.
HOOKED = frozenset({*NO_VERIFY, "checkout", "switch", "worktree"})


def _subcommand(call: Call, entry: dict[str, Any], sub: str, args: list[Field], git_dir: str | None,
                work_tree: str | None) -> None:
    parsed = options.parse(args, SUB_SPECS.get(sub, {}))
    if sub in NO_VERIFY and _no_verify(parsed.opts, sub):
        entry["hooks_disabled"] = True
        entry["reasons"].append(f"git {sub} skips hooks (--no-verify)")
    _hookless(call, entry, sub, parsed, git_dir)
    entry["history"] = _prints_history(call, sub, parsed, args)
    entry["history_paths"] = _history_paths(call, sub, parsed, args, work_tree) if entry["history"] else []
    for f in parsed.values("--output", "-o") if sub in ("log", "show", "diff", "diff-tree", "diff-index",
                                                        "whatchanged") else []:
        call.effect("writes", f)
    tree = Field(work_tree) if work_tree else Field(".")
    values = [f.value for f in args]
    paths = args[values.index("--") + 1:] if "--" in values else \
        [f for f in parsed.operands if f.value is not None and os.path.lexists(absolute_path(f.value, call.cwd)
                                                                                or "")]
    result = call.result
    if sub == "config":
        _config(call, entry, parsed, git_dir)
    elif sub in ("rm",):
        if not parsed.has("--cached"):
            for f in parsed.operands:
                p = call.effect("deletes", f)
                if p is not None and parsed.has("-r"):
                    result.recursive["deletes"][p] = None
    elif sub == "mv" and len(parsed.operands) >= 2:
        for f in parsed.operands[:-1]:
            call.effect("deletes", f)
        call.effect("writes", parsed.operands[-1])
        handlers.into_dir(call, parsed.operands[-1], parsed.operands[:-1], "writes")
    elif sub == "clean":
        if not parsed.has("-n", "--dry-run") and (parsed.has("-f", "--force") or parsed.has("-i")):
            for f in (paths or parsed.operands or [tree]):
                p = call.effect("deletes", f)
                if p is not None:
                    result.recursive["deletes"][p] = None
    elif sub in ("show", "cat-file"):
        for f in parsed.operands:
            if f.value is not None and ":" in f.value:
                rel = f.value.split(":", 1)[1]
                base = call.cwd if rel.startswith(("./", "../")) else work_tree
                if base is not None or rel.startswith("/"):
                    call.result.path("reads", Field(rel), base, call.cmd)
                else:
                    call.opaque("reads", "git object path outside a known work tree")
            elif f.value is None:
                call.opaque("reads", f.reason or "git object not static")
    elif sub in ("apply", "am"):
        _apply(call, sub, parsed, work_tree)
    elif sub in ("log", "diff", "blame", "annotate", "whatchanged", "difftool"):
        for f in paths:  # their history or content is printed
            call.effect("reads", f)
    elif sub == "archive":
        for f in parsed.values("-o", "--output"):
            call.effect("writes", f)
        p = call.effect("reads", tree)
        if p is not None:
            result.recursive["reads"][p] = None
    elif sub == "grep":
        p = call.effect("reads", Field(".") if not paths else paths[0])
        if p is not None:
            result.recursive["reads"][p] = None
    elif sub == "reset":
        if parsed.has("--hard", "--merge", "--keep"):
            _tree_write(call, paths, tree)
    elif sub == "stash":
        if not parsed.operands or parsed.operands[0].value in ("push", "save", "pop", "apply", "drop", "clear", "-u"):
            _tree_write(call, [], tree)
    elif sub in WRITES_TREE:
        _tree_write(call, paths, tree)
    elif sub in ("clone", "init", "worktree"):
        targets = parsed.operands[1:] if sub == "clone" else parsed.operands[-1:]
        if sub == "clone" and len(parsed.operands) == 1 and parsed.operands[0].value:
            name = parsed.operands[0].value.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1]
            targets = [Field(name[:-4] if name.endswith(".git") else name)]
        for f in targets:
            call.effect("writes", f)
    if sub == "rebase":
        for f in parsed.values("-x", "--exec"):
            handlers.run_code(call, f, "bash -c")
    elif sub == "submodule" and parsed.operands and parsed.operands[0].value == "foreach":
        handlers.run_code(call, handlers.join_code(parsed.operands[1:]), "bash -c")
    elif sub == "bisect" and parsed.operands and parsed.operands[0].value == "run" and len(parsed.operands) > 1:
        call.execute(args[args.index(parsed.operands[0]) + 1:], call.state, call.env, None)


def _prints_history(call: Call, sub: str, parsed: options.Parsed, args: list[Field]) -> bool:
    """Whether `git SUB ARGS` prints file content from commits (history), not only the work tree."""
    flags = {name for name, _ in parsed.opts}
    values = [f.value for f in args]
    if sub in ALWAYS_HISTORY:
        return not (sub == "cat-file" and flags <= {"-t", "-s", "-e", "--batch-check", "--batch-all-objects"}
                    and not flags & {"-p"} and not any(v in ("blob", "tree", "commit", "tag") for v in values))
    if sub == "bundle":
        return bool(parsed.operands) and parsed.operands[0].value == "create"
    if sub == "show":
        return not flags & SUMMARY_ONLY or bool(flags & PATCH_FLAGS)
    if sub in ("log", "whatchanged", "reflog"):
        return bool(flags & PATCH_FLAGS) or any(v is not None and v.startswith(("-U", "--unified", "-L"))
                                                for v in values)
    if sub in ("diff", "diff-tree", "diff-index"):
        if (sub == "diff-tree" or flags & SUMMARY_ONLY) and not flags & PATCH_FLAGS:
            return False
        before = args[:values.index("--")] if "--" in values else args
        operands = [f for f in parsed.operands if f in before]
        return any(f.value is None or not os.path.lexists(absolute_path(f.value, call.cwd) or "") for f in operands)
    if sub == "grep":
        operands = list(parsed.operands)
        if not parsed.has("-e", "-f"):
            operands = operands[1:]  # the pattern
        before = args[:values.index("--")] if "--" in values else args
        return parsed.has("--cached") or any(
            f in before and (f.value is None or not os.path.lexists(absolute_path(f.value, call.cwd) or ""))
            for f in operands)
    return False


def _history_paths(call: Call, sub: str, parsed: options.Parsed, args: list[Field],
                   work_tree: str | None) -> list[str]:
    """The paths a history-printing command is limited to (pathspecs after `--`, existing paths,
    `REV:path`), absolute; [] when it prints whole commits or the limit is not known statically."""
    values = [f.value for f in args]
    after = args[values.index("--") + 1:] if "--" in values else []
    operands = [f for f in parsed.operands if f not in after]
    if sub == "grep" and not parsed.has("-e", "-f"):
        operands = operands[1:]  # the pattern
    out: list[str] = []
    whole = False
    for f in operands:
        v = f.value
        if v is None:
            return []
        rev, colon, rel = v.partition(":")
        if colon and rev and "/" not in rev:  # REV:path (a path relative to the work tree, or ./ to cwd)
            base = call.cwd if rel.startswith(("./", "../")) else work_tree
            p = absolute_path(rel, base) if rel else None
            if p is None:
                return []
            out.append(p)
            continue
        p = absolute_path(v, call.cwd)
        if p is not None and os.path.lexists(p) and sub not in ("cat-file", "bundle"):
            out.append(p)
        elif sub in ("show", "cat-file", "bundle", "fast-export", "archive") or not after and sub != "blame":
            whole = whole or sub in ("show", "cat-file", "bundle", "fast-export")
    for f in after:
        p = absolute_path(f.value, call.cwd) if f.value is not None else None
        if p is None or any(c in (f.value or "") for c in "*?[:"):
            return []  # a glob or magic pathspec: not narrowed here
        out.append(p)
    return [] if whole else list(dict.fromkeys(out))


def _project_repo(result: Result) -> str | None:
    found, _ = _repo(result.cwd)
    return os.path.realpath(found) if found is not None else None


def _hookless(call: Call, entry: dict[str, Any], sub: str, parsed: options.Parsed, git_dir: str | None) -> None:
    """Commits made or refs moved without the project's hooks, whatever the spelling: plumbing
    that runs no hook, a soft reset to a commit given by value, a ref written by a fetch in
    another repository (a push done as a fetch), a hooked command run in a repository that is
    not the project's (a fresh clone has none of its hooks)."""
    reasons = entry["reasons"]
    values = [f.value for f in parsed.operands]
    found = None
    if sub in NO_HOOKS:
        found = f"git {sub} {NO_HOOKS[sub]} without running the hooks"
    elif sub == "stash" and values[:1] == ["store"]:
        found = "git stash store records a commit as a stash without running the hooks"
    elif sub == "reset" and parsed.has("--soft") and any(v is None or re.fullmatch(r"[0-9a-fA-F]{7,64}", v)
                                                         for v in values):
        found = "git reset --soft moves the branch to a commit given by value (made by plumbing?) without hooks"
    here = os.path.realpath(git_dir) if git_dir is not None else None
    project = _project_repo(call.result)
    elsewhere = project is not None and here != project
    if sub == "fetch" and elsewhere and any(v is None or (":" in v and v.rsplit(":", 1)[1] not in ("",))
                                            for v in values[1:]):
        found = "git fetch writes refs of another repository (a push without the pre-push hook)"
    elif sub in HOOKED and elsewhere and found is None:
        where = call.cwd or "an unknown directory"
        found = f"git {sub} runs in {where}, a repository other than the project's: the project's hooks do not run"
    if found is not None:
        entry["hooks_disabled"] = True
        reasons.append(found)
    if sub == "update-index":
        for f in parsed.values("--cacheinfo"):
            if f.value is None:
                call.opaque("writes", "git update-index --cacheinfo is not static")
                continue
            path = f.value.split(",")[-1]
            if path == f.value:  # --cacheinfo MODE SHA PATH (the old three-word form)
                rest = parsed.operands[1:2]
                path = rest[0].value if rest and rest[0].value is not None else ""
            if path:
                call.effect("writes", Field(path))  # the index entry a checkout-index/read-tree writes out
        if parsed.has("--index-info", "--stdin"):
            call.opaque("writes", "git update-index reads index entries from its input")
    if sub == "checkout-index":
        for f in parsed.values("--prefix"):  # files are written below the prefix (`out/` or `out/name-`)
            v = f.value
            p = call.effect("writes", Field(v if v is None or v.endswith("/") else os.path.dirname(v) or ".")
                            if v is not None else f)
            if p is not None:
                call.result.recursive["writes"][p] = None
        if parsed.has("--stdin"):
            call.opaque("writes", "git checkout-index reads paths from its input")
    if sub == "format-patch":
        for f in parsed.values("-o", "--output-directory") or ([] if parsed.has("--stdout") else [Field(".")]):
            p = call.effect("writes", f)
            if p is not None:
                call.result.recursive["writes"][p] = None
    if sub == "bundle" and values[:1] == ["create"] and len(parsed.operands) > 1:
        call.effect("writes", parsed.operands[1])


def _tree_write(call: Call, paths: list[Field], tree: Field) -> None:
    for f in paths or [tree]:
        p = call.effect("writes", f)
        if p is not None:
            call.result.recursive["writes"][p] = None


def _config(call: Call, entry: dict[str, Any], parsed: options.Parsed, git_dir: str | None) -> None:
    ops = [f.value for f in parsed.operands]
    verb = ops[0] if ops and ops[0] in ("set", "unset", "get", "list", "edit", "rename-section",
                                        "remove-section") else None
    if verb is not None:
        ops = ops[1:]
    setting = (verb in ("set", "unset", "edit", "rename-section", "remove-section")) or \
        parsed.has(*SETTERS) or (verb is None and len(ops) >= 2 and not parsed.has(*READ_ONLY_CONFIG))
    if not setting:
        for f in parsed.values("-f", "--file"):  # `git config -f .env -l` prints that file
            call.effect("reads", f)
        return
    key = (ops[0] or "?") if ops else "?"
    value = ops[1] if len(ops) > 1 else None
    call.result.git_config[key.lower()] = value
    entry["config"][key.lower()] = value
    files = parsed.values("-f", "--file")
    if files:
        call.effect("writes", files[0])
    elif parsed.has("--global"):
        known, home = call.state.lookup("HOME")
        if known and home:
            call.effect("writes", Field(os.path.join(home, ".gitconfig")))
        else:
            call.opaque("writes", "the global git config file is not known")
    elif not parsed.has("--system") and git_dir is not None:
        name = "config.worktree" if parsed.has("--worktree") else "config"
        call.effect("writes", Field(os.path.join(git_dir, name)))
    if key.lower() == "core.hookspath" or key == "?" or key.lower().startswith(("include", "alias.")):
        call.result.git_hooks_line.append(f"git config {key} changes hook or alias configuration for the line")


def _apply(call: Call, sub: str, parsed: options.Parsed, work_tree: str | None) -> None:
    if parsed.has("--check", "--stat", "--numstat", "--summary") and not parsed.has("--apply"):
        for f in parsed.operands:
            call.effect("reads", f)
        return
    strip = next((n for f in parsed.values("-p") if (n := decimal(f.value)) is not None), None)
    if sub == "am":
        for f in parsed.operands:
            call.effect("reads", f)
        call.opaque("writes+deletes", "git am targets come from mailbox patches (not parsed)")
        return
    sources: list[Field | None] = list(parsed.operands) or [None]
    base = work_tree or call.cwd
    for d in parsed.values("--directory"):  # the diff's paths are taken below DIR
        base = absolute_path(d.value, base) if d.value is not None and base is not None else None
        if d.value is None:
            call.opaque("writes+deletes", "git apply --directory is not static")
    for src in sources:
        content = tools.diff_source(call, src)
        if content is None:
            call.opaque("writes+deletes", "git apply targets come from a diff that is not known statically")
            continue
        saved, call.cwd = call.cwd, base
        try:
            for kind, path in diffs.targets(content, strip if strip is not None else 1, git_style=True):
                call.effect(kind, Field(path))
        finally:
            call.cwd = saved


def finish(result: Result) -> None:
    """Line-wide hook bypass: hook files or git config changed anywhere in the line, or
    `git config core.hooksPath` / alias settings made by the line."""
    touched = []
    for kind in ("writes", "deletes", "links"):
        for path in result.effects[kind]:
            if "/.git/hooks" in path or path.endswith(("/.git/config", "/config.worktree")) or \
                    "/.git/hooks/" in path + "/":
                touched.append(f"{kind} {path}")
    for pattern_kind in ("writes", "deletes", "links"):
        for pattern in result.patterns[pattern_kind]:
            if "/.git/" in pattern:
                touched.append(f"{pattern_kind} {pattern}")
    line = list(result.git_hooks_line) + [f"the line {t} (hooks or git config)" for t in touched]
    if not line:
        return
    result.fact("git_hooks_changed")
    for entry in result.git:
        entry["hooks_disabled"] = True
        for reason in line:
            if reason not in entry["reasons"]:
                entry["reasons"].append(reason)
