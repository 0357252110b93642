"""Programs that execute strings they are given: one table per program family (pure data).

In: nothing (data only). Out: `FAMILIES` (family name -> `Family`), read by
`cupcake_py/shell/embedded.py` (which applies the rows to a command) and rendered into
docs/shell-analysis.md by `render_markdown()` (`python -m cupcake_py.shell.carriers` prints it;
tests/shell/test_carriers.py fails when the document and the table disagree).

A `Family` names its programs and where their own program text comes from (`program`: the first
operand, the values of `text_opts`, files named by `script_opts`, or the SQL after the database);
each `Row` says where a string that carries code or a file name sits and what it does:
- `how`: `option` (an option's value: `-TT CMD`, `--eval=TEXT`), `key` (a `KEY=VALUE` or
  `KEY VALUE` setting given to `option`, e.g. `ssh -o ProxyCommand=CMD`), `text` (a regular
  expression over the program text; group 1, when present, is the operand), `env` (an
  environment variable the program reads), `handler` (applied by the named handler module;
  listed here so the document is complete).
- `runs`: `shell` (the string is shell code: analysed one level deeper, opaque when not
  static), `program` (code in the program's own language that can run commands and touch any
  file: every kind opaque), `writes` / `reads` / `executes` (the string names a file),
  `output` (a file written, or `|CMD`: shell code), `env_dump` (prints the environment: fact
  `env_dump`).
Nothing here is evaluated; embedded.py compiles a row's regular expression on first use
(tests/shell/test_carriers.py compiles every one).
"""

from __future__ import annotations

from cupcake_py.core.record import FrozenRecord

RUNS = ("shell", "program", "writes", "reads", "executes", "output", "env_dump")
HOWS = ("option", "key", "text", "env", "handler")


class Row(FrozenRecord):
    """One place where a program takes code or a file name, and what it does with it."""

    __slots__ = ("how", "where", "runs", "label", "what")
    how: str
    where: str  # option spellings (space-separated), `OPTION KEY`, a regex, an env var, a handler
    runs: str
    label: str  # how the document shows it
    what: str

    def __init__(self, how: str, where: str, runs: str, label: str, what: str) -> None:
        self._fill(how, where, runs, label, what)


class Family(FrozenRecord):
    __slots__ = ("programs", "program", "text_opts", "script_opts", "val", "val2", "rows", "note")
    programs: tuple[str, ...]
    program: str  # "" (none) | "operand" (first operand unless a text/script option) | "sql" | "args" (each
    # argument word is a program text) | "first" (the first argument word, when it is not an option)
    text_opts: tuple[str, ...]  # options whose value is program text
    script_opts: tuple[str, ...]  # options whose value is a file of program text
    val: tuple[str, ...]  # other options taking a separate value (so it is not taken for an operand)
    val2: tuple[str, ...]  # options taking two values (jq --arg NAME VALUE)
    rows: tuple[Row, ...]
    note: str

    def __init__(self, programs: tuple[str, ...], rows: tuple[Row, ...], note: str, *, program: str = "",
                 text_opts: tuple[str, ...] = (), script_opts: tuple[str, ...] = (),
                 val: tuple[str, ...] = (), val2: tuple[str, ...] = ()) -> None:
        self._fill(programs, program, text_opts, script_opts, val, val2, rows, note)


# sed: an address (line number, $, /regex/) or a range before a command
_SED_ADDR = r"(?:(?:[0-9]+|\$|/(?:\\.|[^/\n])*/)(?:\s*,\s*(?:[0-9]+|\$|/(?:\\.|[^/\n])*/))?)?\s*!?\s*"
_SED_AT = r"(?:^|[;{}\n])\s*" + _SED_ADDR
_SED_S = r"s(.)(?:\\.|(?!\1).)*\1(?:\\.|(?!\1).)*\1[gpIiMm0-9]*"

FAMILIES: dict[str, Family] = {
    "ssh": Family(("ssh", "scp", "sftp"), (
        Row("key", "-o ProxyCommand", "shell", "`-o ProxyCommand=CMD`", "runs CMD on this machine to reach the host"),
        Row("key", "-o LocalCommand", "shell", "`-o LocalCommand=CMD`",
            "runs CMD on this machine after connecting (with PermitLocalCommand)"),
        Row("key", "-o KnownHostsCommand", "shell", "`-o KnownHostsCommand=CMD`", "runs CMD to list host keys"),
        Row("key", "-o Include", "program", "`-o Include=FILE`", "reads more configuration, which may run commands"),
        Row("option", "-F", "program", "`-F FILE`",
            "a configuration file, which may hold ProxyCommand/LocalCommand (read at run time)"),
    ), "ssh's options and config files name commands it runs locally.", val=(
        "-b", "-c", "-D", "-E", "-e", "-I", "-i", "-J", "-L", "-l", "-m", "-O", "-p", "-P", "-Q", "-R", "-S", "-W",
        "-w")),
    "zip": Family(("zip",), (
        Row("option", "-TT --unzip-command", "shell", "`-TT CMD`, `--unzip-command CMD`",
            "runs CMD to test the new archive"),
    ), "zip tests an archive with a command of the caller's choice."),
    "gdb": Family(("gdb", "gdb-multiarch", "cgdb"), (
        Row("option", "-ex --eval-command -iex --init-eval-command", "program", "`-ex CMD`, `-iex CMD`",
            "a gdb command: `shell`, `!`, `pipe`, `python`, `dump` run programs and write files"),
        Row("option", "-x --command -ix --init-command", "program", "`-x FILE`, `-ix FILE`",
            "a file of gdb commands (as -ex)"),
    ), "gdb runs the commands it is given before (or instead of) debugging."),
    "make": Family(("make", "gmake", "remake"), (
        Row("option", "--eval -E", "program", "`--eval=TEXT`, `-E TEXT`",
            "a makefile fragment: its recipes and `$(shell …)` run as shell code"),
        Row("option", "-f --file --makefile", "executes", "`-f FILE`, `-f -`",
            "the makefile it runs (`-`: read from standard input, opaque)"),
    ), "make runs recipes; a makefile given inline or on standard input is code the analysis does not read.",
        program="args"),
    "sed": Family(("sed",), (
        Row("text", _SED_AT + r"e(?:\s|$|;)", "program", "`e [CMD]`",
            "runs CMD (or the pattern space) as a shell command"),
        Row("text", _SED_S + r"[gpIiMm0-9]*e", "program", "`s/…/…/e`", "runs the pattern space as a shell command"),
        Row("text", _SED_AT + r"[wW][ \t]*([^\n]+)", "writes", "`w FILE`, `W FILE`", "writes the file"),
        Row("text", _SED_S + r"[gpIiMm0-9e]*w[ \t]*([^\n]+)", "writes", "`s/…/…/w FILE`", "writes the file"),
        Row("text", _SED_AT + r"[rR][ \t]*([^\n]+)", "reads", "`r FILE`, `R FILE`", "reads the file"),
    ), "sed programs (the first operand, `-e TEXT`, or `-f FILE`, read within the byte budget) can write "
       "files and run commands.", program="operand", text_opts=("-e", "--expression"),
        script_opts=("-f", "--file"), val=("-l", "--line-length")),
    "awk": Family(("awk", "gawk", "mawk", "nawk"), (
        Row("text", r"\bsystem\s*\(", "program", "`system(CMD)`", "runs a shell command"),
        Row("text", r"\|\s*(?:getline|&)|\|\s*\"|\"\s*\|\s*getline", "program", "`print | CMD`, `CMD | getline`",
            "runs a shell command"),
        Row("text", r">>?\s*\"([^\"]+)\"", "writes", "`print > \"FILE\"`, `>> \"FILE\"`", "writes the file"),
        Row("text", r">>?\s*[^\s\"=]", "program", "`print > EXPR`", "writes a file named at run time"),
        Row("text", r"getline(?:\s+[A-Za-z_]\w*)?\s*<\s*\"([^\"]+)\"", "reads", "`getline < \"FILE\"`", "reads the file"),
        Row("text", r"getline(?:\s+[A-Za-z_]\w*)?\s*<\s*[^\s\"]", "program", "`getline < EXPR`", "reads a file named at run time"),
        Row("text", r"\bENVIRON\b", "env_dump", "`ENVIRON`", "reads the environment (tokens)"),
        Row("text", r"@load\b|\bPROCINFO\b", "program", "`@load`, `PROCINFO`", "loads extensions (gawk)"),
    ), "awk programs (the first operand, or `-f FILE`) can run commands, write files and print the "
       "environment.", program="operand", text_opts=("--source",), script_opts=("-f", "--file"),
        val=("-v", "-F", "--assign", "--field-separator", "-i", "--include")),
    "sqlite3": Family(("sqlite3", "sqlite"), (
        Row("text", r"(?m)^\s*\.(?:shell|system)[ \t]+([^\n]+)", "shell", "`.shell CMD`, `.system CMD`",
            "runs CMD"),
        Row("text", r"(?m)^\s*\.(?:output|once|log)[ \t]+(?:-[a-z]+[ \t]+)*([^\n]+)", "output",
            "`.output FILE`, `.once FILE`, `.log FILE`", "writes the file (`|CMD`: runs CMD)"),
        Row("text", r"(?m)^\s*\.(?:once|output)[ \t]+-[xe]\b", "program", "`.once -x`, `.once -e`",
            "opens a spreadsheet or editor program"),
        Row("text", r"(?m)^\s*\.(?:save|backup|dump[ \t]+>)[ \t]+(?:main[ \t]+)?([^\n]+)", "writes",
            "`.save FILE`, `.backup FILE`", "writes the file"),
        Row("text", r"(?m)^\s*\.(?:read|import|restore)[ \t]+(?:-[a-z]+[ \t]+)*([^\s]+)", "reads",
            "`.read FILE`, `.import FILE`, `.restore FILE`", "reads the file (`.read`: more SQL)"),
        Row("text", r"(?m)^\s*\.(?:open|clone)[ \t]+(?:-[a-z]+[ \t]+)*([^\s]+)", "writes", "`.open FILE`",
            "opens (and may create or change) another database"),
        Row("text", r"(?m)^\s*\.(?:load|excel|edit)\b", "program", "`.load LIB`, `.excel`",
            "loads a library or runs another program"),
        Row("text", r"(?i)\breadfile\s*\(\s*'([^']*)'", "reads", "`readfile('FILE')`", "reads the file"),
        Row("text", r"(?i)\bwritefile\s*\(\s*'([^']*)'", "writes", "`writefile('FILE', …)`", "writes the file"),
        Row("text", r"(?i)\b(?:readfile|writefile)\s*\(\s*(?!'[^']*'\s*[,)])", "program",
            "`readfile(EXPR)`, `writefile(EXPR, …)`", "a file named at run time"),
        Row("text", r"(?i)\b(?:edit|load_extension|fts3_tokenizer)\s*\(", "program",
            "`edit(…)`, `load_extension(…)`", "runs an editor or loads a library"),
        Row("text", r"(?i)\battach\b", "program", "`ATTACH 'FILE'`", "opens (and may create) another database"),
    ), "sqlite3's dot-commands and file functions run commands and read or write any file. The SQL is the "
       "operands after the database, `-cmd TEXT`, `-init FILE` and a static standard input; SQL read at run "
       "time is opaque.", program="sql", text_opts=("-cmd",), script_opts=("-init",),
        val=("-separator", "-newline", "-nullvalue", "-vfs", "-maxsize", "-mmap", "-pagecache", "-lookaside",
             "-heap", "-escape")),
    "jq": Family(("jq", "gojq", "jaq"), (
        Row("text", r"(?<![\w$.])env\b|\$ENV\b", "env_dump", "`env`, `$ENV`", "prints the environment (tokens)"),
        Row("text", r"\binput_filename\b|\$__prog_args\b", "program", "`input_filename`", "names files at run time"),
    ), "jq programs (the first operand, or `-f FILE`) can print the environment.", program="operand",
        script_opts=("-f", "--from-file"), val=("--indent", "-L", "--tab"),
        val2=("--arg", "--argjson", "--slurpfile", "--rawfile")),
    "ps": Family(("ps",), (
        Row("text", r"^[aAcfhjlLmMnrsStTuvVwxXZ]*e[aAcefhjlLmMnrsStTuvVwxXZ]*$", "env_dump", "`ps e`, `ps auxe`",
            "BSD `e`: prints every process's environment after its command"),
    ), "ps prints other processes' environments with the BSD option `e`.", program="first"),
    "less": Family(("less", "more", "most", "man", "pager"), (
        Row("text", r"^\+(?:.*[!|]|\s*[sv])", "program", "`+CMD` with `!`, `|`, `s` or `v`",
            "a pager command run at start: runs a shell command, pipes to one, saves a file or opens an editor"),
        Row("option", "-P --pager", "shell", "`man -P PAGER`", "runs PAGER as a shell command"),
        Row("env", "LESSOPEN", "shell", "`LESSOPEN='|CMD %s'`", "runs CMD on every file opened"),
        Row("env", "LESSCLOSE", "shell", "`LESSCLOSE='CMD'`", "runs CMD on every file closed"),
        Row("env", "MANPAGER", "shell", "`MANPAGER=CMD`", "man runs CMD as its pager"),
        Row("env", "PAGER", "shell", "`PAGER=CMD`", "man (and other programs) run CMD as their pager"),
    ), "Pagers run commands typed at them (`!CMD`); only a command given at start can be seen statically.",
        program="args"),
    "editors": Family(("vi", "vim", "nvim", "view", "ex", "ed", "emacs"), (
        Row("option", "-c --cmd -S", "program", "`-c CMD`, `--cmd CMD`, `-S FILE`",
            "an editor command (`:!CMD` runs a shell command, `:w FILE` writes)"),
        Row("text", r"^\+[^0-9/?]", "program", "`+CMD` (not `+N` or `+/PATTERN`)", "an editor command run at start"),
        Row("option", "--eval -l --load -f --funcall", "program", "`emacs --eval EXPR`",
            "Lisp that can run commands and write files"),
    ), "Editors run commands typed at them; only commands given at start can be seen statically.",
        program="args"),
    "find": Family(("find",), (
        Row("handler", "tools.find", "shell", "`-exec CMD {} ;`, `-execdir`, `-ok`, `-okdir`",
            "runs CMD with the selected names (listed when `find ROOT -name NAME` narrows them)"),
        Row("handler", "tools.find", "writes", "`-fprint FILE`, `-fprint0`, `-fprintf`, `-fls`", "writes the file"),
        Row("handler", "tools.find", "reads", "`-files0-from FILE`", "reads the names to start from"),
    ), "find runs commands on what it selects (cupcake_py/shell/tools.py)."),
    "git": Family(("git",), (
        Row("handler", "git.EXEC_CONFIG", "shell", "`-c core.pager=CMD`, `core.sshCommand`, `core.editor`, "
            "`core.fsmonitor`, `diff.external`, filters, credential helpers …",
            "config values git runs as shell commands (from -c, GIT_CONFIG_*, `git config` in the line)"),
        Row("handler", "git.aliases", "shell", "`alias.NAME=!CMD`", "an alias that runs a shell command"),
        Row("handler", "git.EXEC_ENV", "shell", "`GIT_SSH_COMMAND`, `GIT_PAGER`, `GIT_EDITOR` …",
            "environment variables git runs as commands"),
        Row("handler", "git.subcommands", "shell", "`rebase -x CMD`, `submodule foreach CMD`, `bisect run CMD`",
            "run CMD"),
    ), "git runs commands named in its configuration (cupcake_py/shell/git.py)."),
}


def family_of(name: str) -> Family | None:
    for family in FAMILIES.values():
        if name in family.programs:
            return family
    return None


_RUNS_TEXT = {"shell": "analysed as shell code", "program": "opaque (every kind)", "writes": "writes",
              "reads": "reads", "executes": "executes", "output": "writes (or shell code after `|`)",
              "env_dump": "fact `env_dump`"}


def render_markdown() -> str:
    """The section of docs/shell-analysis.md made from the table (between the carriers markers)."""
    lines = ["| family | programs | where the string is | what it does | reported as |",
             "| --- | --- | --- | --- | --- |"]
    for name, family in FAMILIES.items():
        for i, row in enumerate(family.rows):
            first = i == 0
            progs = ", ".join(f"`{p}`" for p in family.programs) if first else ""
            cells = [name if first else "", progs, row.label, row.what, _RUNS_TEXT[row.runs]]
            lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    notes = [f"- **{name}**: {family.note}" for name, family in FAMILIES.items()]
    return "\n".join(lines + [""] + notes) + "\n"


BEGIN = "<!-- carriers: generated from cupcake_py/shell/carriers.py; do not edit -->"
END = "<!-- carriers: end -->"


def splice(document: str) -> str:
    """`document` with the text between BEGIN and END replaced by `render_markdown()`."""
    head, found, rest = document.partition(BEGIN)
    _, found_end, tail = rest.partition(END)
    if not found or not found_end:
        raise ValueError("the document has no carriers markers")
    return f"{head}{BEGIN}\n{render_markdown()}{END}{tail}"


if __name__ == "__main__":  # python -m cupcake_py.shell.carriers [--write docs/shell-analysis.md]
    import sys

    if sys.argv[1:2] == ["--write"] and len(sys.argv) == 3:
        with open(sys.argv[2], encoding="utf-8") as fh:
            text = fh.read()
        with open(sys.argv[2], "w", encoding="utf-8") as fh:
            fh.write(splice(text))
    else:
        sys.stdout.write(render_markdown())
