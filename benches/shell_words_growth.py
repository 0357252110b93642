"""Growth of the shell-word split (enrich/shell_words) with the size of a command that has quotes
or backslashes: seconds per size, per command shape, for the module's splitter and, side by side,
Python's `shlex` in the same mode (the reference the splitter must equal). Asserts nothing.

    .venv/bin/python benches/shell_words_growth.py [--kb 10 100 1000 10000] [--limit 30] [--shlex] [--eval-mb 1 5]

Shapes: `quoted-args` (printf of many short double-quoted words), `one-quoted` (one huge
single-quoted argument, a heredoc-like body), `many-words` (plain words and one quoted word),
`backslashes` (one word of escaped spaces), `nested` (bash -c "… 'x' \\"y\\" …"), `unterminated`
(a body with an odd apostrophe: the split fails and the caller splits at whitespace). Each
(shape, size, splitter) runs in its own child with a time limit (`--limit` s; `>N` when it is
passed) so a quadratic case cannot hold the run. The growth column is time(size) / time(previous
size): ~10 per 10x size is linear, ~100 quadratic. Timings are noisy on a loaded machine (the load
average is printed). `--eval-mb` also times whole `cupcake eval` processes (opencode harness, default
deadline, --max-input-bytes 64MB, a project with one Bash policy) on a command of each shape and
size, and prints the start of each answer: decided by the analysis and policies, or by a deadline.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def command(shape: str, size: int) -> str:
    """A command of about `size` characters of the given shape."""
    line = "print('it''s here', x[\"k\"], 'a \\\\ b')  # a b\n"
    pieces = {
        "quoted-args": ("printf '%s\\n'", ' "word number {i}"'),
        "one-quoted": ("python - <<'EOF' && echo '", "print(x[{i}])  # \"q\" \\ z\n"),
        "many-words": ("echo 'start'", " word{i} --flag=v{i} ./path/{i}"),
        "backslashes": ("echo ", "a\\ b\\\\c\\'{i}\\\""),
        "nested": ('bash -c "', "echo 'x{i}' \\\"y\\\" \\$HOME; "),
        "unterminated": ("cat <<EOF\ndon't\n", line),
    }
    head, piece = pieces[shape]
    parts = [head]
    n = len(head)
    i = 0
    while n < size:
        p = piece.format(i=i) if "{i}" in piece else piece
        parts.append(p)
        n += len(p)
        i += 1
    tail = {"one-quoted": "'", "nested": '"'}.get(shape, "")
    return "".join(parts) + tail


SHAPES = ("quoted-args", "one-quoted", "many-words", "backslashes", "nested", "unterminated")


def _shlex_segments(text: str) -> int:
    import shlex

    lex = shlex.shlex(text, posix=True, punctuation_chars=";&|()<>!{}")
    lex.whitespace_split = True
    lex.commenters = ""
    try:
        return len(list(lex))
    except ValueError:
        return len(text.split())


def _one(shape: str, size: int, splitter: str) -> None:
    from cupcake_py.enrich import shell_words

    text = command(shape, size)
    run = _shlex_segments if splitter == "shlex" else shell_words._split_segments
    t0 = time.perf_counter()
    run(text)
    print(f"{time.perf_counter() - t0:.6f}")


def _timed(shape: str, size: int, splitter: str, limit: float) -> float | None:
    try:
        out = subprocess.run([sys.executable, __file__, "--one", shape, str(size), splitter], capture_output=True,
                             text=True, timeout=limit, check=True)
    except subprocess.TimeoutExpired:
        return None
    return float(out.stdout)


def _eval_row(shape: str, mb: int) -> str:
    import json
    import tempfile

    exe = str(Path(sys.executable).parent / "cupcake")
    with tempfile.TemporaryDirectory(prefix="cupcake-shell-words-") as tmp:
        project = Path(tmp) / "p"
        (project / ".cupcake" / "policies" / "opencode").mkdir(parents=True)
        (project / ".cupcake" / "policies" / "opencode" / "rm.rego").write_text(POLICY)
        env = {**os.environ, "XDG_CACHE_HOME": f"{tmp}/cache", "XDG_CONFIG_HOME": f"{tmp}/cfg",
               "XDG_STATE_HOME": f"{tmp}/state"}

        def event(cmd: str) -> bytes:
            return json.dumps({"hook_event_name": "PreToolUse", "session_id": "s", "cwd": str(project),
                               "tool": "bash", "args": {"command": cmd}}).encode()

        subprocess.run([exe, "eval", "--harness", "opencode", "--timeout", "120"], input=event("ls"), env=env,
                       cwd=project, capture_output=True, check=True)  # warm cache
        data = event(command(shape, mb * 1_000_000))
        t0 = time.monotonic()
        out = subprocess.run([exe, "eval", "--harness", "opencode", "--max-input-bytes", "64MB"], input=data, env=env,
                             cwd=project, capture_output=True)
        wall = time.monotonic() - t0
    return f"{shape:<13} {mb:>3} MB {wall:6.2f} s exit {out.returncode}  {out.stdout.decode().strip()[:110]}"


POLICY = """# METADATA
# custom:
#   routing:
#     required_events: ["PreToolUse"]
#     required_tools: ["Bash"]
package cupcake.policies.opencode.rm

import rego.v1

deny contains {"rule_id": "RM", "reason": "no rm", "severity": "HIGH"} if startswith(input.tool_input.command, "rm")
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kb", type=int, nargs="+", default=[10, 100, 1000, 10000])
    ap.add_argument("--limit", type=float, default=30.0)
    ap.add_argument("--shlex", action="store_true", help="also time shlex (the reference) side by side")
    ap.add_argument("--eval-mb", type=int, nargs="*", default=[], help="also time cupcake eval on these sizes")
    ap.add_argument("--one", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        _one(args.one[0], int(args.one[1]), args.one[2])
        return
    for shape in SHAPES if args.eval_mb else ():
        for mb in args.eval_mb:
            print(_eval_row(shape, mb), flush=True)
    splitters = ["segments", "shlex"] if args.shlex else ["segments"]
    print(f"load average {os.getloadavg()[0]:.1f}; seconds (growth vs previous size); limit {args.limit:g} s")
    print("shape         splitter " + "".join(f"{kb:>9} KB{'':>8}" for kb in args.kb))
    for shape in SHAPES:
        for splitter in splitters:
            cells, prev = [], None
            for kb in args.kb:
                t = None if prev == -1.0 else _timed(shape, kb * 1000, splitter, args.limit)
                if t is None:
                    cells.append(f"{'>' + format(args.limit, 'g'):>11}{'':>8}")
                    prev = -1.0
                    continue
                growth = f"(x{t / prev:.0f})" if prev else ""
                cells.append(f"{t:>11.4f}{growth:>8}")
                prev = t
            print(f"{shape:<13} {splitter:<8} " + "".join(cells), flush=True)


if __name__ == "__main__":
    main()
