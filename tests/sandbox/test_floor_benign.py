"""Ordinary developer work is unchanged by the floor: each command is allowed by the real
`cupcake eval` (Claude Code harness; the shipped builtins of `cupcake init` plus the global ones)
and gives the same stdout, stderr and exit status run sandboxed (the rewritten command) as run
plainly, each time in a fresh copy of the same project at the same path.

Not in the list, by design (the floor makes them fail): `git config` without --global writes
.git/config, writes to cupcake's or the agents' configuration, to ~ outside the tool caches, and
commands that print their own pid or `$SHLVL` (the sandbox has its own pid namespace and one more
shell level).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from tests.sandbox.floor import Project, copy_project, require_bwrap

PY = sys.executable
FILES = [
    "ls", "ls -a src", "ls nonexistent", "cat README.md", "head -n 1 src/app.py", "tail -n 1 src/app.py",
    "wc -l src/app.py data.txt", "grep -rn def src", "grep -c a data.txt", "grep nomatch README.md",
    "find . -name '*.py' -not -path './.git/*' | sort", "find src -type f | sort", "sort data.txt", "sort -u data.txt",
    "uniq -c data.txt", "cut -d, -f2 data.csv", "awk -F, '{print $1}' data.csv", "sed -n 2p data.txt",
    "sed 's/a/A/g' data.txt", "tr a-z A-Z < README.md", "diff data.txt data.csv", "cmp README.md README.md && echo same",
    "md5sum README.md", "sha256sum src/app.py", "base64 README.md", "xxd README.md | head -n 2", "od -c README.md | head -n 1",
    "stat -c %s README.md", "du -sb src | cut -f1", "basename src/app.py", "dirname src/app.py", "realpath src/app.py",
    "readlink -f src/../README.md", "echo $HOME", "echo $TMPDIR", "pwd", "true", "false", "exit 3",
    "test -f README.md && echo file", "[ -d src ] && echo dir", "echo hello | rev", "seq 5 | paste -sd+ | bc",
    "printf '%s\\n' b a c | sort", "cat <<'EOF'\nhere doc\nEOF", "read x <<< 'from stdin'; echo $x",
    "for i in 1 2 3; do echo $i; done", "x=$(cat README.md); echo ${#x}", "echo $((6 * 7))",
    "sh -c 'exit 7'", "sh -c 'kill -TERM $$'; echo $?", "(cd src && ls)", "echo a; echo b >&2; exit 1",
]
WRITES = [
    "echo x > out.txt && cat out.txt", "mkdir -p build/a && touch build/a/f && find build | sort",
    "cp README.md docs.md && cat docs.md", "mv data.txt moved.txt && ls moved.txt", "rm -f data.csv && ls",
    "ln -s README.md link.md && cat link.md", "chmod +x run.sh && ./run.sh", "echo hi | tee t.txt && cat t.txt",
    "sed -i s/demo/DEMO/ README.md && cat README.md", "perl -pi -e 's/demo/perl/' README.md && cat README.md",
    "python3 -c 'print(1 + 1)'", "python3 -c \"open('gen.txt', 'w').write('x')\" && cat gen.txt",
    "node -e 'console.log(6 * 7)'", "find . -name '*.py' -not -path './.git/*' | xargs grep -l def",
    "printf 'a\\nb\\n' | xargs -n1 echo item", ". ./env.sh && echo $FOO", "source ./env.sh; echo $FOO",
    "cp README.md .README.md.swp && rm .README.md.swp && ls -a | grep -c swp",
    "echo '4913' > 4913 && rm 4913 && echo vim-probe", "cp README.md README.md~ && ls README.md~",
    "t=$(mktemp) && echo tmp > $t && cat $t && rm $t", "echo x > $TMPDIR/t.txt && cat $TMPDIR/t.txt",
    "d=$(mktemp -d) && touch $d/a && ls $d && rm -r $d", "sleep 0.1 & wait; echo waited",
    "(sleep 0.1; echo bg) & wait", "gzip -k README.md && ls README.md.gz", "tar cf out.tar src && tar tf out.tar | sort",
    "zip -q -r out.zip src && unzip -l out.zip | tail -n 1", "echo 'appended' >> README.md && tail -n 1 README.md",
    "touch -d '2020-01-01' old.txt && stat -c %Y old.txt", "truncate -s 3 README.md && cat README.md",
    "mkdir .hidden && echo h > .hidden/f && cat .hidden/f",
]
BUILD = [
    "make", "make test", "make -n", "make nothing-here",
    f"{PY} -m pytest -q -p no:cacheprovider tests | tail -n 1 | cut -d' ' -f1-2",
    f"{PY} -m unittest discover -s tests -q 2>&1 | tail -n 1", "python3 -m compileall -q src && ls src/__pycache__ | wc -l",
    "python3 -m py_compile src/app.py && echo compiled", "gcc hello.c -o hello && ./hello",
    "npm run build --silent", "npm test --silent", "node script.js", "npm install --offline --no-audit --no-fund "
    "--silent ./localpkg && ls node_modules", "python3 -m venv --without-pip .venv2 && .venv2/bin/python -c 'print(3)'",
    f"{PY} -m pip install -q --no-index --disable-pip-version-check --target ./vendor ./pypkg-1.0-py3-none-any.whl "
    "&& ls vendor",
    "python3 src/app.py", "python3 -c 'import sys; sys.exit(5)'", "bash run.sh arg1",
]
GIT = [
    "git status --short", "git log --oneline | wc -l", "git diff", "git add . && git status --short",
    "git add -A && git commit -qm work && git log --oneline | wc -l", "git branch feature && git branch",
    "git checkout -q -b f2 && git branch --show-current", "echo y >> README.md && git stash -q && git stash list | wc -l",
    "git show --stat HEAD | tail -n 1", "git rev-parse HEAD", "git ls-files", "git grep def",
    "git tag v1 && git tag", "git mv README.md READ.md && git status --short", "git rm -q --cached src/app.py && git status --short",
    "git diff --stat HEAD", "git blame src/app.py | wc -l", "git cat-file -p 'HEAD^{tree}'",
    "echo z >> src/app.py && git diff --numstat", "git log --format=%s", "git config --get user.name",
    "git describe --always", "git shortlog -s HEAD | wc -l", "echo q >> README.md && git checkout -- README.md && git status --short",
    "git switch -q -c f3 && git branch | wc -l", "echo r >> README.md && git restore README.md && cat README.md",
]
COMMANDS = FILES + WRITES + BUILD + GIT

MAKEFILE = "all:\n\t@echo built\ntest:\n\t@echo tested\n"
PACKAGE = ('{"name": "demo", "version": "1.0.0", "scripts": {"build": "node -e \\"console.log(\'build ok\')\\"", '
           '"test": "node script.js"}}\n')


def _template(root: Path) -> None:
    (root / "src").mkdir(parents=True, exist_ok=True)
    (root / "tests").mkdir()
    (root / "src" / "app.py").write_text("def add(a, b):\n    return a + b\n\nprint(add(2, 3))\n")
    (root / "tests" / "test_app.py").write_text("import unittest\n\nclass T(unittest.TestCase):\n"
                                               "    def test_x(self):\n        self.assertEqual(1 + 1, 2)\n")
    (root / "README.md").write_text("# demo project\n")
    (root / "data.txt").write_text("b\na\nc\na\n")
    (root / "data.csv").write_text("x,1\ny,2\n")
    (root / "run.sh").write_text("#!/bin/sh\necho ran $1\n")
    (root / "env.sh").write_text("FOO=sourced\n")
    (root / "Makefile").write_text(MAKEFILE)
    (root / "package.json").write_text(PACKAGE)
    (root / "script.js").write_text("console.log('script ok')\n")
    (root / "hello.c").write_text('#include <stdio.h>\nint main(void) { puts("hello"); return 0; }\n')
    (root / "localpkg").mkdir()
    (root / "localpkg" / "package.json").write_text('{"name": "localpkg", "version": "1.0.0"}\n')
    _wheel(root / "pypkg-1.0-py3-none-any.whl")
    (root / ".gitignore").write_text("node_modules/\n.env\n")


def _wheel(path: Path) -> None:
    """A minimal pure-Python wheel (a package install that needs no network and no build)."""
    import zipfile

    files = {"pypkg.py": "X = 1\n",
             "pypkg-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: pypkg\nVersion: 1.0\n",
             "pypkg-1.0.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
    files["pypkg-1.0.dist-info/RECORD"] = "".join(f"{n},,\n" for n in files) + "pypkg-1.0.dist-info/RECORD,,\n"
    with zipfile.ZipFile(path, "w") as z:
        for name, text in files.items():
            z.writestr(zipfile.ZipInfo(name, (2024, 1, 1, 0, 0, 0)), text)


GIT_ENV = {"GIT_AUTHOR_NAME": "dev", "GIT_AUTHOR_EMAIL": "dev@example.invalid", "GIT_COMMITTER_NAME": "dev",
           "GIT_COMMITTER_EMAIL": "dev@example.invalid", "GIT_AUTHOR_DATE": "2024-01-01T00:00:00Z",
           "GIT_COMMITTER_DATE": "2024-01-01T00:00:00Z", "SOURCE_DATE_EPOCH": "1704067200"}


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> tuple[Project, Path]:
    require_bwrap()
    base = tmp_path_factory.mktemp("benign")
    project = Project(base, sandbox="  writable: [/tmp, ~/.cache, ~/.npm]\n",
                      project_builtins="  git_block_no_verify: {}\n  rulebook_security_guardrails: {}\n",
                      global_builtins="  sensitive_data_protection: {}\n  system_protection: {}\n"
                                      "  cupcake_exec_protection: {}\n")
    project.env.update(GIT_ENV)
    _template(project.proj)
    from tests.sandbox.floor import _git

    _git(project.proj, "add", "-A")
    _git(project.proj, "commit", "-q", "-m", "template")
    template = base / "template"
    copy_project(project.proj, template)
    return project, template


def test_the_list_is_long_enough() -> None:
    assert len(COMMANDS) >= 100 and len(set(COMMANDS)) == len(COMMANDS)


@pytest.mark.parametrize("command", COMMANDS)
def test_same_result_sandboxed(setup: tuple[Project, Path], command: str) -> None:
    project, template = setup
    copy_project(template, project.proj)
    decision, runs, answer = project.evaluate("claude", command)
    assert decision == "allow" and runs is not None and "--args 3" in runs, (decision, answer)
    plain = project.execute(command)
    copy_project(template, project.proj)
    boxed = project.execute(runs)
    shutil.rmtree(project.proj)
    assert (boxed.returncode, boxed.stdout, boxed.stderr) == (plain.returncode, plain.stdout, plain.stderr)
