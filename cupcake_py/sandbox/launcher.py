"""The command line a harness runs instead of the agent's shell command: bubblewrap reading the
compiled profile, the command inside, the removal of absent protected paths afterwards.

In: the agent's command (a string, unchanged), the bwrap executable, the arguments file (the
profile compiled to bubblewrap options, sandbox/bwrap.py), the `absent` paths and `links` of the
profile and its writable roots.
Out: `command_line(...)` → one POSIX shell text (bash, zsh and dash run it alike); the same as
`line_in(frame(...), command)`, where `frame` is what surrounds any command (computed once per
profile and remembered with it, sandbox/profile_memo.py):

    if command -v PROG >/dev/null 2>&1; then BWRAP --args 3 -- [MOUNTER 4] PROG ARG... 3< FILE [4< LIST]
    else BWRAP --args 3 -- [MOUNTER 4] /bin/bash -c 'COMMAND' 3< FILE [4< LIST]; fi

(MOUNTER 4 ... 4< LIST: cupcake's mounter and the profile's mount list on fd 4, where the mounter
runs here: sandbox/mounter; bubblewrap then makes only the namespaces, /dev and /proc.)

The first branch exists only for a *plain* command (`direct_argv`): words of ordinary characters
and single-quoted strings, no expansion, redirection, operator or assignment, and a first word
that is not a bash builtin or keyword. bash would only split such a command into words and exec
its program, so the sandbox execs it itself (bubblewrap looks it up on the same PATH) and saves a
bash start-up per command. `command -v` (a builtin of every shell: no process) checks that the
program is found before; when it is not, bash runs the command and says so as usual
("command not found", 126/127). Any other command runs as `/bin/bash -c 'COMMAND'` (it was
analysed as bash).
With absent paths or links the line goes on: once the sandbox, and every process in it, has
ended, it removes whatever of the absent paths the command created (reported on stderr; a
directory made unwritable is given its owner's rights back first) and puts back a link the
command replaced, never through a directory that became a symbolic link (a directory between the
writable root and the path that is a link now was made by the command: that link is removed
instead, so the removal cannot reach outside the writable roots), then returns the command's
exit status (when N is not 0
through a shell function's `return N`: no subshell, no process). The removal also runs when the
shell is stopped by SIGHUP, SIGINT or SIGTERM (traps, reset after; twice, `RECHECK_S` apart: the
sandbox's processes die after bubblewrap; the shell then exits 128+N);
a SIGKILL of the agent's shell skips it (docs/security.md).
Nothing here fails: every command has the bash form.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

SHELL = "/bin/bash"  # the commands are analysed as bash (tree-sitter-bash), so they run as bash
# `compgen -b -k` of bash 5.2: a first word bash runs itself, never a PATH lookup.
BASH_OWN = frozenset(
    ". : [ alias bg bind break builtin caller cd command compgen complete compopt continue declare dirs disown echo "
    "enable eval exec exit export false fc fg getopts hash help history jobs kill let local logout mapfile popd "
    "printf pushd pwd read readarray readonly return set shift shopt source suspend test times trap true type typeset "
    "ulimit umask unalias unset wait if then else elif fi case esac for select while until do done in function time "
    "{ } ! [[ ]] coproc".split())
# Characters bash gives no meaning to outside quotes (no expansion, glob, brace, tilde, comment,
# history, operator or quoting): a word of these is its own value.
PLAIN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-")
PROGRAM = PLAIN - frozenset("@%=:,")
# Signals a harness stops a command with (timeout, the user's interrupt): the removal of absent
# agent configuration still runs (after the sandbox has ended: bubblewrap dies with the shell).
RECHECK_S = "0.1"  # after a signal, the clean-up runs again this much later (docs/security.md)
TRAPPED = (("HUP", 1), ("INT", 2), ("TERM", 15))  # the first word: no assignment (`A=b cmd`), nothing unusual


def quote(word: str) -> str:
    """`shlex.quote(word)`, without importing shlex on every sandboxed evaluation (0.3 ms: it compiles
    its pattern at import): a word of `PLAIN` characters as it is, anything else single-quoted."""
    if word and all(ch in PLAIN for ch in word):
        return word
    return "'" + word.replace("'", "'\"'\"'") + "'"


def _word(text: str, i: int) -> tuple[str, int] | None:
    """The word starting at text[i] and the index after it, or None when it is not plain."""
    out: list[str] = []
    n = len(text)
    while i < n and text[i] not in " \t":
        c = text[i]
        if c == "'":
            end = text.find("'", i + 1)
            if end < 0:
                return None
            out.append(text[i + 1:end])
            i = end + 1
        elif c in PLAIN:
            out.append(c)
            i += 1
        else:
            return None
    return "".join(out), i


def direct_argv(command: str) -> list[str] | None:
    """The argv bash would exec for a plain command, else None (module docstring)."""
    if "\0" in command:
        return None
    words: list[str] = []
    i, n = 0, len(command)
    while True:
        while i < n and command[i] in " \t":
            i += 1
        if i >= n:
            break
        got = _word(command, i)
        if got is None:
            return None
        word, i = got
        words.append(word)
    if not words:
        return None
    first = command.lstrip(" \t").split(" ", 1)[0].split("\t", 1)[0]
    if first != words[0] or not set(first) <= PROGRAM or first.startswith("-") or first in BASH_OWN:
        return None  # quoted, unusual or bash's own first word: bash runs it
    return words


def _above(path: str, roots: Sequence[str]) -> list[str]:
    """The directories between the deepest root holding `path` and `path` (every ancestor when
    none holds it), outermost first: the clean-up checks none of them became a symbolic link."""
    root = max((r for r in roots if path.startswith(r.rstrip("/") + "/")), key=len, default="/")
    out = []
    d = os.path.dirname(path)
    while d != root and d.startswith(root.rstrip("/") + "/"):
        out.append(d)
        d = os.path.dirname(d)
    return out[::-1]


# The clean-up, defined once per line (shell functions: no process); each path is tested inline
# first (a function call costs more than the test, and almost every path is still missing).
# `__cupcake_safe DIR...` removes the first of DIRs that is a symbolic link now (they were real
# directories when the profile was computed, so the command made it: through it a removal would
# reach a file outside the writable roots, e.g. `ln -s ~/.local/bin node_modules/.bin` to delete
# the real `cupcake`) and fails. `__cupcake_gone P` removes P; `__cupcake_link P TEXT` puts the
# symbolic link P (TEXT) back.
_CLEAN_FUNCTIONS = (
    '__cupcake_safe() { for __cupcake_a; do if [ -L "$__cupcake_a" ]; then '
    '/bin/rm --interactive=never -- "$__cupcake_a"; '
    'echo "cupcake: removed $__cupcake_a: a symbolic link created inside the sandbox" >&2; return 1; fi; done; }; '
    '__cupcake_gone() { if [ -d "$1" ] && [ ! -L "$1" ]; then /bin/chmod -R u+rwx -- "$1"; fi; '
    '/bin/rm -r --interactive=never -- "$1"; '
    'echo "cupcake: removed $1: created inside the sandbox where it is protected" >&2; }; '
    '__cupcake_link() { if [ -e "$1" -o -L "$1" ]; then __cupcake_gone "$1"; fi; /bin/ln -s -- "$2" "$1"; '
    'echo "cupcake: restored the symbolic link $1 -> $2" >&2; }')


def command_line(command: str, bwrap: str, args_file: str, absent: Sequence[str] = (),
                 links: Sequence[tuple[str, str, str]] = (), roots: Sequence[str] = (),
                 mounter: tuple[str, str] | None = None) -> str:
    """`absent`: paths to remove when the command created them; `links`: (path, link text, the
    resolved target) of symbolic links on the way to protected paths, put back when changed;
    `roots`: the writable roots and the pinned directories (mount points inside: the command
    cannot replace them); a directory between one and such a path is checked first; `mounter`:
    (the mounter, its mount list) where the mounter makes the mounts (sandbox/mounter): bubblewrap
    runs it with the list on fd 4, opened by this shell as the profile is on fd 3."""
    return line_in(frame(bwrap, args_file, absent, links, roots, mounter), command)


def frame(bwrap: str, args_file: str, absent: Sequence[str] = (), links: Sequence[tuple[str, str, str]] = (),
          roots: Sequence[str] = (), mounter: tuple[str, str] | None = None) -> list[str]:
    """What `command_line` puts around any command, computed once per profile: [the sandbox's
    command words, the descriptors it reads, the text before the command, the text after it]."""
    box = f"{quote(bwrap)} --args 3 --"
    feed = f"3< {quote(args_file)}"
    if mounter is not None:
        box += f" {quote(mounter[0])} 4"
        feed += f" 4< {quote(mounter[1])}"
    if not (absent or links):
        return [box, feed, "", ""]
    plain = [quote(p) for p in absent if not _above(p, roots)]  # right below a root: one loop
    steps = [f'for __cupcake_f in {" ".join(plain)}; do if [ -e "$__cupcake_f" -o -L "$__cupcake_f" ]; then '
             f'__cupcake_gone "$__cupcake_f"; fi; done'] if plain else []
    for path in absent:
        above = _above(path, roots)
        if above:
            q = quote(path)
            steps.append(f"if [ -e {q} -o -L {q} ]; then __cupcake_safe {' '.join(quote(d) for d in above)} "
                         f"&& __cupcake_gone {q}; fi")
    for path, text, target in links:
        q, safe = quote(path), " ".join(quote(d) for d in _above(path, roots))
        steps.append(f"if [ ! -L {q} ] || [ ! {q} -ef {quote(target)} ]; then "
                     f"{'__cupcake_safe ' + safe + ' && ' if safe else ''}__cupcake_link {q} {quote(text)}; fi")
    clean = f"{_CLEAN_FUNCTIONS}; __cupcake_clean() {{ {'; '.join(steps)}; }}"
    # Signalled, bubblewrap has died first: its sandbox's processes are killed when its pid 1 is
    # scheduled, so a process still running may create a path again after the first pass.
    traps = " ".join(f"trap '__cupcake_clean; /bin/sleep {RECHECK_S}; __cupcake_clean; exit {128 + n}' {sig};"
                     for sig, n in TRAPPED)
    return [box, feed, f"{clean}; {traps}\n",
            f"\n__cupcake_rc=$?; trap - {' '.join(sig for sig, _ in TRAPPED)}; "
            f'__cupcake_clean; __cupcake_status() {{ return "$1"; }}; '
            f'[ "$__cupcake_rc" = 0 ] || __cupcake_status "$__cupcake_rc"']


def line_in(parts: Sequence[str], command: str) -> str:
    """The command line running `command` inside a `frame`."""
    box, feed, head, tail = parts
    run = f"{box} {SHELL} -c {quote(command)} {feed}"
    argv = direct_argv(command)
    if argv is not None:
        direct = " ".join(quote(a) for a in argv)
        run = f"if command -v {quote(argv[0])} >/dev/null 2>&1; then {box} {direct} {feed}; else {run}; fi"
    return f"{head}{run}{tail}"
