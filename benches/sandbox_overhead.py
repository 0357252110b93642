"""The kernel floor's cost (docs/sandbox.md): a shell command run the way a harness runs it
(`bash -c COMMAND`), plainly, in a bare bubblewrap (`bwrap --ro-bind / / -- /bin/bash -c
COMMAND`: the least any bubblewrap sandbox costs, for reference) and sandboxed (the command line
`cupcake eval` rewrites it to: bubblewrap with the profile's arguments file, and cupcake's mounter
making the profile's mounts where it runs; and, side by side, the same profile with bubblewrap making
every mount itself, as where the mounter cannot run), interleaved in one run; and what the floor adds to a cold `cupcake eval` of a Bash call (profile, secrets scan,
arguments file) against the same project with the sandbox off.

    .venv/bin/python benches/sandbox_overhead.py [--runs 200] [--eval-runs 20] [--scaling]

Prints p50 and p99 wall-clock milliseconds per variant and the overhead (sandboxed - plain) per
command (goal: ≤ 5 ms at p50), for the test project's rulebook (`writable: [$TMPDIR, ~/.cache]`)
and, for `ls -a`, for the rulebook `cupcake init` writes (the default `sandbox.writable`: the temp
dirs and the caches of the tools installed here, in a fresh home), the profile's size (arguments; binds, `/` included) and the load
average; at the end, bubblewrap's cost per bind mount (`--scaling`: only that). On a shared machine the wall clock is mostly waiting for a CPU; `chrt -f 10 make
bench-sandbox` (root) runs the bench and its children ahead of the other work, close to what an
idle machine measures. Measured, never asserted
(benches/RESULTS.md).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from cupcake_py.sandbox import lookups  # noqa: E402
from tests.sandbox.floor import Project, require_bwrap  # noqa: E402

COMMANDS = ["true", "ls -a", "git status --short", "python3 -c 'print(1)'"]
BARE = "/usr/bin/bwrap --ro-bind / / -- /bin/bash -c"


def _ms(samples: list[float], q: float) -> float:
    s = sorted(samples)
    return s[min(len(s) - 1, int(q * len(s)))] * 1000


CPU: dict[str, list[float]] = {}


def _run(argv: list[str], cwd: Path, env: dict[str, str], stdin: bytes | None = None, cpu: str = "") -> float:
    """Wall-clock seconds; with `cpu`, the children's CPU seconds (user + system: steadier on a
    busy machine) are appended to CPU[cpu]."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(argv, cwd=cwd, env=env, input=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=False)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if cpu:
        CPU.setdefault(cpu, []).append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return wall


def _files(runs: str) -> tuple[Path, Path | None]:
    """The arguments file the command line feeds bubblewrap (fd 3) and the mounter's mount list (None
    where bubblewrap makes the mounts itself)."""
    args = Path(shlex.split(runs.split(" 3< ", 1)[1].split(";", 1)[0])[0])
    mounts = re.search(r" 4< (\S+?\.mounts)", runs)
    return args, Path(shlex.split(mounts.group(1))[0]) if mounts else None


def _profile_size(runs: str) -> str:
    """How many bubblewrap arguments, and the mounts (each bind costs bubblewrap 0.8 a scan of the mount
    table; the mounter's cost none)."""
    args_file, mounts_file = _files(runs)
    args = args_file.read_bytes().split(b"\0")[:-1]
    binds = sum(a in (b"--bind", b"--ro-bind", b"--dev-bind") for a in args)
    tmpfs = args.count(b"--tmpfs")
    out = (f"{len(args)} bubblewrap arguments: {binds} binds (/ included), {tmpfs} tmpfs, --dev {b'--dev' in args},"
           f" --proc {b'--proc' in args}")
    if mounts_file is not None:
        words = mounts_file.read_bytes().split(b"\0")[:-1]
        kinds = words[0::3]
        out += (f"; the mounter: {sum(k != b'tmpfs' for k in kinds)} binds,"
                f" {kinds.count(b'tmpfs')} tmpfs")
    return out


def _bwrap_alone(runs: str, tmp: str) -> str | None:
    """The same command line with bubblewrap making the profile's mounts itself (what the floor runs
    where the mounter cannot: sandbox/bwrap.py `arguments`), for the side-by-side; None without the
    mounter."""
    args_file, mounts_file = _files(runs)
    if mounts_file is None:
        return None
    args = [a.decode() for a in args_file.read_bytes().split(b"\0")[:-1]]
    words = [w.decode() for w in mounts_file.read_bytes().split(b"\0")[:-1]]
    keep, i = [], 0
    while i < len(args):
        if args[i:i + 3] == ["--bind", "/", "/"]:
            keep += ["--ro-bind", "/", "/"]
            i += 3
        elif args[i] == "--cap-add":
            i += 2
        elif args[i] == "--as-pid-1":
            i += 1
        else:
            keep.append(args[i])
            i += 1
    for kind, a, b in zip(words[0::3], words[1::3], words[2::3], strict=True):
        keep += ["--perms", a, "--tmpfs", b] if kind == "tmpfs" else [f"--{kind}", a, b]
    alone = os.path.join(tmp, "alone.args")
    Path(alone).write_bytes(b"".join(a.encode() + b"\0" for a in keep))
    line = re.sub(r" 4< \S+?\.mounts", "", re.sub(r" \S+/mounter-\w+ 4 ", " ", runs))
    return line.replace(shlex.quote(str(args_file)), shlex.quote(alone))


def bind_scaling(runs: int) -> None:
    """The cost per bind mount here: `/bin/true` under `--ro-bind / /`, `--dev`, `--proc`,
    `--unshare-pid` and K more read-only binds of empty directories made by bubblewrap, and the same K
    made by cupcake's mounter (sandbox/mounter), interleaved; the slope of p50 over K is what each
    path of a profile costs (bubblewrap 0.8 reads the mount table per bind, the mounter does not)."""
    import random

    from cupcake_py.sandbox.bwrap import locate_mounter as locate
    from cupcake_py.sandbox.bwrap import mounter_arguments

    bwrap = require_bwrap()
    mounter = locate()
    counts = (0, 8, 16, 24)
    with tempfile.TemporaryDirectory() as tmp:
        dirs = [os.path.join(tmp, f"d{i}") for i in range(max(counts))]
        for d in dirs:
            os.mkdir(d)
        base = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid"]
        argvs = {("bubblewrap", k): [*base, *(x for d in dirs[:k] for x in ("--ro-bind", d, d)), "/bin/true"]
                 for k in counts}
        if mounter is not None:
            for k in counts:
                listing = os.path.join(tmp, f"{k}.mounts")
                Path(listing).write_bytes(b"".join(w.encode() + b"\0" for d in dirs[:k] for w in ("ro-bind", d, d)))
                argvs[("mounter", k)] = [bwrap, *mounter_arguments({}), "--", mounter, listing, "/bin/true"]
        walls: dict[tuple[str, int], list[float]] = {key: [] for key in argvs}
        plain: list[float] = []
        for _ in range(runs):
            order = [*argvs]
            random.shuffle(order)
            plain.append(_run(["/bin/true"], Path(tmp), dict(os.environ)))
            for key in order:
                walls[key].append(_run(argvs[key], Path(tmp), dict(os.environ)))
    for who in ("bubblewrap", "mounter"):
        p50 = {k: _ms(v, 0.5) for (w, k), v in walls.items() if w == who}
        if not p50:
            continue
        slope = (p50[counts[-1]] - p50[0]) / counts[-1]
        print(f"binds made by {who} ({runs} runs, p50 ms): /bin/true {_ms(plain, 0.5):.2f}; "
              + ", ".join(f"{k} binds {v:.2f}" for k, v in p50.items()) + f"; ≈ {slope:.3f} ms per bind")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--eval-runs", type=int, default=20)
    ap.add_argument("--scaling", action="store_true", help="only measure bubblewrap's cost per bind mount")
    args = ap.parse_args()
    require_bwrap()
    if args.scaling:
        bind_scaling(args.runs)
        return
    load_before = os.getloadavg()[0]
    results: dict[str, dict[str, float]] = {}
    sizes: dict[str, str] = {}
    # the default list makes /tmp writable: that project's home must lie outside it, as a real one does
    # (below a writable root every protected path of the home would need its parents pinned)
    with tempfile.TemporaryDirectory() as tmp, \
            tempfile.TemporaryDirectory(dir=os.path.expanduser("~"), prefix=".cupcake-bench-") as tmp_default:
        project = Project(Path(tmp))
        # the rulebook `cupcake init` writes: the default `sandbox.writable` list (temp dirs and the
        # tool caches of the tools installed here), in a fresh home
        default = Project(Path(tmp_default), sandbox="  network: true\n")
        for p in (project, default):
            for _ in range(5):  # the first evaluation builds the policy bundles: on a busy machine past its deadline
                if p.evaluate("claude", "true")[0] == "allow":
                    break
        for name, p, command in [*(("configured", project, c) for c in COMMANDS), ("default", default, "ls -a")]:
            decision, runs, _ = p.evaluate("claude", command)
            assert decision == "allow" and runs is not None and "--args 3" in runs, (command, decision)
            print(f"{command}: {next(line for line in runs.splitlines() if '--args 3' in line)}", file=sys.stderr)
            sizes[name] = _profile_size(runs)
            label = command if name == "configured" else f"{command} (default rulebook)"
            plain: list[float] = []
            bare: list[float] = []
            boxed: list[float] = []
            alone: list[float] = []
            bare_line = f"{BARE} {shlex.quote(command)}"
            alone_line = _bwrap_alone(runs, tmp)
            for _ in range(args.runs):
                plain.append(_run(["bash", "-c", command], p.proj, p.env, cpu=f"plain {label}"))
                bare.append(_run(["bash", "-c", bare_line], p.proj, p.env))
                boxed.append(_run(["bash", "-c", runs], p.proj, p.env, cpu=f"boxed {label}"))
                if alone_line is not None:
                    alone.append(_run(["bash", "-c", alone_line], p.proj, p.env))
            results[label] = {"plain_p50": _ms(plain, 0.5), "plain_p99": _ms(plain, 0.99),
                                "bare_p50": _ms(bare, 0.5),
                                "alone_over_p50": _ms(alone, 0.5) - _ms(plain, 0.5) if alone else float("nan"),
                                "sandboxed_p50": _ms(boxed, 0.5), "sandboxed_p99": _ms(boxed, 0.99),
                                "overhead_p50": _ms(boxed, 0.5) - _ms(plain, 0.5),
                                "overhead_p99": _ms(boxed, 0.99) - _ms(plain, 0.99),
                                "cpu_overhead_p50": _ms(CPU[f"boxed {label}"], 0.5) - _ms(CPU[f"plain {label}"], 0.5)}
        # cold `cupcake eval` of a Bash call, floor on vs off (same project, same policies)
        rulebook = project.proj / ".cupcake" / "rulebook.yml"
        on_text = rulebook.read_text()
        off_text = on_text.replace("  enabled: true\n", "  enabled: false\n")
        from cupcake_py.harness.examples import cupcake_command

        event = json.dumps(project.event("claude", "ls -a")).encode()
        argv = [*cupcake_command(), "eval", "--harness", "claude"]
        evals: dict[str, list[float]] = {"floor on": [], "floor off": []}
        for text in (on_text, off_text):  # warm both bundles
            rulebook.write_text(text)
            _run(argv, project.proj, project.env, event)
        # Steady state, as in real use: the directories the first evaluation created (the caches,
        # the sandbox dir) are older than RACY_NS, so their timestamps vouch for the remembered
        # profile's lookups (sandbox/lookups.py) from the next call on.
        time.sleep(lookups.RACY_NS / 1e9 + 0.5)
        rulebook.write_text(on_text)
        _run(argv, project.proj, project.env, event)
        for _ in range(args.eval_runs):
            for name, text in (("floor on", on_text), ("floor off", off_text)):
                rulebook.write_text(text)
                os.utime(rulebook)
                evals[name].append(_run(argv, project.proj, project.env, event, cpu=f"eval {name}"))
    print(f"{'command':<36} {'plain p50':>10} {'bare p50':>9} {'boxed p50':>10} {'over p50':>9} {'plain p99':>10}"
          f" {'boxed p99':>10} {'over p99':>9} {'cpu over p50':>12} {'bwrap alone over p50':>20}"
          f"   (ms, {args.runs} runs each, interleaved)")
    for command, r in results.items():
        print(f"{command:<36} {r['plain_p50']:>10.2f} {r['bare_p50']:>9.2f} {r['sandboxed_p50']:>10.2f} {r['overhead_p50']:>9.2f} "
              f"{r['plain_p99']:>10.2f} {r['sandboxed_p99']:>10.2f} {r['overhead_p99']:>9.2f} "
              f"{r['cpu_overhead_p50']:>12.2f} {r['alone_over_p50']:>20.2f}")
    for name, size in sizes.items():
        print(f"profile ({name}): {size}")
    print(f"cold `cupcake eval` of a Bash call ({args.eval_runs} runs): " + ", ".join(
        f"{k} p50 {_ms(v, 0.5):.1f} ms wall, {_ms(CPU[f'eval {k}'], 0.5):.1f} ms CPU" for k, v in evals.items()))
    bind_scaling(args.runs)
    print(f"load average (1 min) at the start {load_before:.1f}, at the end {os.getloadavg()[0]:.1f}"
          f" ({os.cpu_count()} CPUs)")


if __name__ == "__main__":
    main()
