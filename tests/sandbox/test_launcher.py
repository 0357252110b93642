"""The command line the harness runs (cupcake_py/sandbox/launcher.py): a plain command is exec'd
inside the sandbox without a bash, and only when bash would have run exactly those words; every
other command, a program that is not found and bash's own commands run through bash; the exit
status is the command's with or without the removal of absent agent configuration."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cupcake_py.sandbox.launcher import BASH_OWN, command_line, direct_argv
from tests.sandbox.floor import Project, require_bwrap

# characters with and without a meaning to bash, and words that are bash's own
ALPHABET = "ab-_./=:,@%+ \t'\"$`\\*?[]{}~#!;&|<>()\n0"
WORDS = st.sampled_from(["ls", "git", "echo", "true", "cd", "time", "if", "A=1", "./x", "-v", "'q w'", "%1", "[["])


def _bash_words(command: str) -> list[str] | None:
    """The words bash makes of `command` as arguments (None when bash rejects it), in an empty
    directory (whatever a rejected command would redirect or glob stays there)."""
    import tempfile

    script = f"set -- {command}\nprintf '%s\\0' \"$@\""
    with tempfile.TemporaryDirectory() as cwd:
        done = subprocess.run(["bash", "--norc", "-c", script], capture_output=True, timeout=10, cwd=cwd,
                              env={"PATH": "/usr/bin:/bin", "HOME": "/nonexistent-home"})
    if done.returncode != 0:
        return None
    return done.stdout.decode("utf-8", "surrogateescape").split("\0")[:-1]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(WORDS, st.text(alphabet=ALPHABET, max_size=8)), min_size=1, max_size=4))
def test_a_direct_command_is_what_bash_would_exec(parts: list[str]) -> None:
    command = " ".join(parts)
    argv = direct_argv(command)
    if argv is None:
        return
    assert argv[0] not in BASH_OWN and "=" not in argv[0]
    assert _bash_words(command) == argv, command


@pytest.mark.parametrize("command", ["ls -a", "git status --short", "python3 -c 'print(1)'", "  npm  test ",
                                     "make -C 'a dir' V=1", "./gradlew build"])
def test_plain_commands_run_directly(command: str) -> None:
    assert direct_argv(command) is not None


@pytest.mark.parametrize("command", ["true", "echo hi", "cd src", "A=1 make", "ls *.py", "ls ~", "ls $HOME",
                                     "ls; rm -r x", "ls | head", "ls > f", "ls {a,b}", "'ls' -a", "ls \\x",
                                     "time ls", "ls 'open", "ls\nrm x", "ls &", "echo `id`", "ls # note", ""])
def test_everything_else_runs_through_bash(command: str) -> None:
    assert direct_argv(command) is None
    assert "-- /bin/bash -c " in command_line(command, "/usr/bin/bwrap", "/s/x.args")
    assert "command -v" not in command_line(command, "/usr/bin/bwrap", "/s/x.args")


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Project:
    require_bwrap()
    p = Project(tmp_path_factory.mktemp("launcher"))
    (p.proj / "script.sh").write_text("#!/bin/sh\necho \"script $1\"\nexit 4\n")
    (p.proj / "script.sh").chmod(0o755)
    (p.proj / "not-executable.sh").write_text("#!/bin/sh\necho never\n")
    p.evaluate("claude", "true")  # builds the policy bundles (slow on a busy machine: past the eval deadline)
    return p


@pytest.mark.parametrize(("command", "rc", "out", "err"), [
    ("ls -a", 0, ".cupcake\n", ""),
    ("./script.sh 'one arg'", 4, "script one arg\n", ""),
    ("python3 -c 'import sys; print(2); sys.exit(7)'", 7, "2\n", ""),
    ("ls no-such-file", 2, "", "No such file or directory"),
    ("no-such-program-xyz --flag", 127, "", "no-such-program-xyz: command not found"),
    ("./not-executable.sh", 126, "", "Permission denied"),
    ("./missing.sh", 127, "", "No such file or directory"),
])
def test_executed_same_result_as_bash(project: Project, command: str, rc: int, out: str, err: str) -> None:
    """Sandboxed (real eval, then the rewritten command) as bash runs it plainly: exit status,
    output and bash's own messages for a program that cannot run."""
    decision, runs, _ = project.evaluate("claude", command)
    assert decision == "allow" and runs is not None and "--args 3" in runs, (decision, runs)
    done = project.execute(runs)
    plain = project.execute(command)
    assert done.returncode == plain.returncode == rc, (done, plain)
    assert out in done.stdout and done.stdout == plain.stdout
    assert err in done.stderr and err in plain.stderr
    assert ("command -v" in runs) == (direct_argv(command) is not None)


def test_exit_status_survives_the_removal_of_agent_configuration(project: Project) -> None:
    """With absent agent configuration the line goes on after the sandbox: the command's status is
    still the line's, whatever it is, and what the command created there is gone."""
    cases = (("true", 0), ("false", 1), ("sh -c 'exit 9'", 9), ("touch opencode.json", 0),
             ("touch opencode.json; exit 3", 3), ("./not-executable.sh", 126), ("no-such-program-xyz", 127),
             ("sh -c 'kill -KILL $$'", 128 + 9), ("sh -c 'kill -TERM $$'", 128 + 15), ("sh -c 'exit 255'", 255))
    args_file, mounter = _launch_files(project)
    for command, rc in cases:
        runs = command_line(command, require_bwrap(), args_file, [str(project.proj / "opencode.json")], mounter=mounter)
        done = project.execute(runs)
        assert done.returncode == rc, (command, done)
        assert not (project.proj / "opencode.json").exists()
        # what the agent's shell sees next, in the same shell: the status, and a shell still running
        seen = project.execute(f"{runs}\necho \"status=$?\"")
        assert seen.stdout.endswith(f"status={rc}\n"), (command, seen)


def _launch_files(project: Project) -> tuple[str, tuple[str, str] | None]:
    """The arguments file of an evaluation's line and (the mounter, its mount list) where it has them."""
    _, runs, _ = project.evaluate("claude", "true")
    assert runs is not None
    args_file = runs.split(" 3< ", 1)[1].split()[0]
    found = re.search(r"--args 3 -- (\S+) 4 .* 4< (\S+)", runs)
    return args_file, (found.group(1), found.group(2)) if found else None


def test_paths_are_shell_quoted(tmp_path: Path) -> None:
    line = command_line("ls -a", "/opt/b wrap/bwrap", str(tmp_path / "it's.args"), [str(tmp_path / "a b")])
    assert "'/opt/b wrap/bwrap' --args 3 -- ls -a" in line and "'\"'\"'s.args" in line and "'" + str(tmp_path) in line


def test_no_forced_removal_an_agent_refuses() -> None:
    """Codex refuses to run a command line with an `rm -f` style removal ("rm -f style commands are not
    permitted"): the clean-up of absent agent configuration removes without `-f` (no prompt either:
    `--interactive=never`), so the launcher line runs in every agent (tests/e2e_agents run it in Codex)."""
    import re

    line = command_line("ls -a", "/usr/bin/bwrap", "/x.args", ["/p/.mcp.json", "/p/.opencode"])
    removals = re.findall(r"\brm\b[^;]*", line)
    assert removals and all("--interactive=never" in r for r in removals), removals
    assert not any(re.search(r"\s-[a-zA-Z]*f", r) or "--force" in r for r in removals), removals


@settings(max_examples=2000, deadline=None)
@given(st.text())
def test_quote_is_shlex_quote(word: str) -> None:
    """The launcher's own `quote` (no shlex import per evaluation) quotes exactly as shlex does."""
    import shlex

    from cupcake_py.sandbox.launcher import quote

    assert quote(word) == shlex.quote(word)
