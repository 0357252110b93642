"""Ways out of the sandbox itself, each tried inside the command the harness runs (real
`cupcake eval`, then the rewritten command): none may change a protected file.

| escape | closed by |
| --- | --- |
| root: umount / remount,rw / a new bind over the protected mount / unshare -rm then umount / nested bwrap | `--cap-drop ALL` (no CAP_SYS_ADMIN), mounts locked in a child user namespace |
| an unprivileged user (setpriv to nobody): the same, on a world-writable protected file | the mounts of bubblewrap's namespace; no capability in it |
| signal or trace a process outside (the agent, the user's shell) | `--unshare-pid`: outside processes are not visible |
| TIOCSTI: push keystrokes into the agent's terminal | `--new-session`: no controlling terminal |
| the SSH agent's socket ($SSH_AUTH_SOCK), a socket the rulebook hides | an empty read-only file over the socket |
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.sandbox.floor import Project, require_bwrap

SETPRIV = shutil.which("setpriv")


def _sandboxed(project: Project, command: str, harness: str = "claude") -> str:
    """The command line the harness runs for an allowed `true`, with `command` in its place: the
    sandbox of a real allowed call running the escape (the reading might ask about the escape
    itself; the floor must hold whatever it decided)."""
    decision, runs, _ = project.evaluate(harness, "true")
    assert decision == "allow" and runs is not None and re.search(r"--args 3 -- (\S+ 4 )?/bin/bash -c true ", runs), (decision, runs)
    return runs.replace("-c true ", f"-c {shlex_quote(command)} ", 1)


MOUNT_ESCAPES = [
    "umount {p}",
    "umount -l {p}",
    "mount -o remount,rw {p}",
    "mount -o remount,rw,bind {p}",
    "mount --bind {scratch} {p}",
    "unshare -rm sh -c 'umount {p}; mount -o remount,rw,bind {p}; echo pwned > {p}/rulebook.yml'",
    "bwrap --bind / / -- sh -c 'echo pwned > {p}/rulebook.yml'",
]


def _escape_then_write(p: Path, scratch: Path) -> str:
    tries = "; ".join(e.format(p=p, scratch=scratch) for e in MOUNT_ESCAPES)
    return f"{tries}; echo pwned > {p}/rulebook.yml; cat {p}/rulebook.yml"


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root (the root half of the test)")
def test_root_inside_cannot_unmount_or_remount(project: Project) -> None:
    guarded = project.proj / ".cupcake"
    before = (guarded / "rulebook.yml").read_bytes()
    done = project.execute(_sandboxed(project, _escape_then_write(guarded, project.scratch)))
    assert (guarded / "rulebook.yml").read_bytes() == before, done.stderr
    assert "pwned" not in done.stdout
    assert "Read-only file system" in done.stderr


@pytest.mark.skipif(SETPRIV is None or os.geteuid() != 0, reason="needs root and setpriv to become nobody")
def test_unprivileged_user_inside_cannot_unmount_or_remount(project: Project) -> None:
    """As nobody, with the protected directory and file world-writable: only the mounts protect it."""
    guarded = project.proj / ".cupcake"
    os.chmod(guarded, 0o777)
    os.chmod(guarded / "rulebook.yml", 0o666)
    for d in (project.base, project.proj, project.scratch):
        os.chmod(d, 0o777)
    before = (guarded / "rulebook.yml").read_bytes()
    runs = _sandboxed(project, _escape_then_write(guarded, project.scratch) + "; id -u")
    # cupcake and the agent run as one user; here the profile was made by root: let nobody reach
    # the empty file mounted over hidden paths (the profile itself is read by root's shell, fd 3)
    state = project.home / ".local" / "state" / "cupcake-py" / "sandbox"
    for d in (project.home, project.home / ".local", state.parent.parent, state.parent, state):
        os.chmod(d, 0o755)
    for d in project.base.parents:  # pytest's base temp dir is private to root
        if d == Path("/tmp"):
            break
        os.chmod(d, os.stat(d).st_mode | 0o001)
    as_nobody = f"{SETPRIV} --reuid=65534 --regid=65534 --clear-groups "
    bwrap = require_bwrap()  # bubblewrap as nobody (the shell, root's, opens the profile on fd 3)
    assert runs.count(f"{bwrap} --args 3") == 1, runs
    done = project.execute(runs.replace(f"{bwrap} --args 3", f"{as_nobody}{bwrap} --args 3"))
    assert done.stdout.strip().endswith("65534"), done.stdout + done.stderr
    assert (guarded / "rulebook.yml").read_bytes() == before, done.stderr
    # the same write without the sandbox does land: the test can fail
    plain = project.execute(f"{as_nobody} sh -c 'echo x >> {guarded}/rulebook.yml'")
    assert plain.returncode == 0 and (guarded / "rulebook.yml").read_bytes() != before


def shlex_quote(s: str) -> str:
    import shlex

    return shlex.quote(s)


def test_processes_outside_are_out_of_reach(project: Project) -> None:
    outside = subprocess.Popen(["sleep", "60"], start_new_session=True)
    try:
        pid = outside.pid
        runs = _sandboxed(project, f"kill -9 {pid}; cat /proc/{pid}/environ; ls /proc | grep -c '^[0-9]'")
        done = project.execute(runs)
        assert outside.poll() is None, "a sandboxed command killed a process outside"
        assert "No such process" in done.stderr or "No such" in done.stderr
        assert int(done.stdout.strip().splitlines()[-1]) < 10  # only the sandbox's own processes
    finally:
        outside.kill()
        outside.wait()


def test_no_keystrokes_into_the_agents_terminal(project: Project) -> None:
    import fcntl
    import termios

    push = f"{sys.executable} -c \"import fcntl, termios; fcntl.ioctl(0, termios.TIOCSTI, b'x')\""
    runs = _sandboxed(project, push)
    master, slave = os.openpty()

    def controlling_tty() -> None:
        fcntl.ioctl(slave, termios.TIOCSCTTY, 0)

    try:
        # without the sandbox the push works on a controlling terminal (where the kernel still allows TIOCSTI)
        plain = subprocess.run(["bash", "-c", push], stdin=slave, capture_output=True, start_new_session=True,
                               preexec_fn=controlling_tty, env=project.env, timeout=60)
        done = subprocess.run(["bash", "-c", runs], stdin=slave,
                              capture_output=True, start_new_session=True, preexec_fn=controlling_tty,
                              env=project.env, cwd=project.proj, timeout=60)
    finally:
        os.close(master)
        os.close(slave)
    assert done.returncode != 0 and b"Operation not permitted" in done.stderr, (plain, done)
    if Path("/proc/sys/dev/tty/legacy_tiocsti").read_text().strip() != "0":
        assert plain.returncode == 0, plain  # the kernel allows the push: the test can fail


def _serve(path: Path) -> socket.socket:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(str(path))
    s.listen(1)
    return s


def test_sockets_of_processes_outside_are_hidden(tmp_path: Path, bwrap: str) -> None:
    agent_sock = tmp_path / "agent.sock"
    other = tmp_path / "engine.sock"
    project = Project(tmp_path, sandbox=f"  writable: [{tmp_path / 'scratch'}]\n  hidden: [{other}]\n")
    servers = [_serve(agent_sock), _serve(other)]
    project.env["SSH_AUTH_SOCK"] = str(agent_sock)
    try:
        connect = ("import socket, sys\nfor p in sys.argv[1:]:\n    s = socket.socket(socket.AF_UNIX)\n"
                   "    try:\n        s.connect(p); print('connected', p)\n    except OSError as e:\n"
                   "        print('refused', p, e.errno)\n")
        (project.scratch / "c.py").write_text(connect)
        command = f"python3 {project.scratch}/c.py {agent_sock} {other}"
        plain = project.execute(command)
        assert plain.stdout.count("connected") == 2  # reachable without the sandbox
        done = project.execute(_sandboxed(project, command))
        assert "connected" not in done.stdout and done.stdout.count("refused") == 2, done.stdout + done.stderr
    finally:
        for s in servers:
            s.close()


def test_a_command_killed_by_a_signal_reports_it(project: Project) -> None:
    done = project.execute(_sandboxed(project, "kill -TERM $$"))
    assert done.returncode == 128 + signal.SIGTERM


def test_background_jobs_end_with_the_sandbox(project: Project) -> None:
    """A job the command leaves behind (even in a new session) stays inside the sandbox's pid namespace
    and ends with it: nothing sandboxed is left to write after the command (e.g. after the wrapper
    removed the agent configuration the command created)."""
    marker = "313.25"
    runs = _sandboxed(project, f"(setsid sleep {marker} &) ; nohup sleep {marker} >/dev/null 2>&1 & echo started")
    done = project.execute(runs)
    assert done.stdout.strip() == "started", done.stderr
    import time

    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        alive = subprocess.run(["pgrep", "-f", f"sleep {marker}"], capture_output=True, text=True).stdout.split()
        if not alive:
            break
        time.sleep(0.1)
    assert not alive, "a sandboxed background job outlived its command"
