"""The data table of command semantics: what each command does to its operands.

In: nothing (pure data). Out: `COMMANDS` (name -> spec), `WRAPPERS` (name -> spec of a
command that runs its argument), `ALIASES` (name patterns such as python3.12 -> python).

A command spec is a dict with these keys (all optional):
- `ops`: operand layout, one of `each:K`, `last:KLAST,KREST`, `first:KFIRST,KREST`,
  `pos:K1,K2,...` (the last kind repeats); K is a kind (`reads`, `writes`, `deletes`, `links`,
  `executes`, `none`) or kinds joined by `+`. Default `each:none`.
- `val`: short options taking a value; `oval`: short options with an optional attached value;
  `wval`: single-dash word options taking a value (`zip -TT CMD`); `lval2`: long options taking
  two values (`jq --arg NAME VALUE`; the second is the option's value);
  `lval`: long options taking a value; `flags`: when set, the only short options that exist
  (anything else, like chmod's `-x`, is an operand).
- `optk`: option -> kind of its value (`-t`: target directory written, `-f`: file read).
- `when`: option -> spec keys overriding these when the option is present.
- `script`: options supplying the program, so the first operand is not the program.
- `extra`: option -> (`last`|`rest`|`all`, kind): an additional effect (rsync --delete).
- `recursive`: options that make operands whole trees (True: always).
- `into_dir`: a last operand that is an existing directory receives each source's basename.
- `implicit`: kind applied to the cwd when there are no operands.
- `opaque`: kind -> reason, effects this command has that static analysis cannot list.
- `facts`: tags added to `facts`; `remote`: operands `host:path` are remote (network).
- `handler`: name of a function in handlers.py for grammars that do not fit the above.
- `posix`: options end at the first operand.
- `inline`: options whose value is a program the command runs (vim -c): reads, writes and
  deletes become opaque.
- Programs that execute strings they are given (sed's `e`/`w`, awk's `system()`, ssh's
  ProxyCommand …) are described by their own tables: cupcake_py/shell/carriers.py.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    Spec = dict[str, Any]

READER: Spec = {"ops": "each:reads"}
DELETER: Spec = {"ops": "each:deletes", "recursive": ("-r", "-R", "--recursive")}
EDITOR: Spec = {"ops": "each:writes", "val": "cSTuUiwW", "lval": ("cmd",), "inline": ("-c", "--cmd", "-S")}
COMPRESS: Spec = {"ops": "each:reads+writes+deletes", "val": "S", "lval": ("suffix",),
                  "when": {o: {"ops": "each:reads"} for o in ("-c", "--stdout", "-k", "--keep", "-l", "--list",
                                                               "-t", "--test", "--to-stdout")}}
PATTERN_READER: Spec = {"ops": "first:none,reads", "val": "efmABCdDX", "optk": {"-f": "reads", "--file": "reads"},
                        "lval": ("regexp", "file", "max-count", "after-context", "before-context", "context",
                                 "directories", "devices", "include", "exclude", "exclude-dir", "label", "color",
                                 "colour", "binary-files", "exclude-from"),
                        "script": ("-e", "-f", "--regexp", "--file"),
                        "recursive": ("-r", "-R", "--recursive", "--dereference-recursive"),
                        "when": {o: {"implicit": "reads"} for o in ("-r", "-R", "--recursive",
                                                                      "--dereference-recursive")}}
RG: Spec = {"ops": "first:none,reads", "val": "egtTmABCMjfE", "implicit": "reads", "recursive": True,
            "lval": ("regexp", "file", "glob", "iglob", "type", "type-not", "max-count", "after-context",
                     "before-context", "context", "max-columns", "threads", "encoding", "type-add", "sort",
                     "sortr", "max-depth", "pre", "ignore-file", "replace"),
            "optk": {"-f": "reads", "--file": "reads", "--pre": "executes", "--ignore-file": "reads"},
            "script": ("-e", "-f", "--regexp", "--file")}
CHANGE_MODE: Spec = {"ops": "first:none,writes", "flags": "cfvRhHLP", "lval": ("reference", "from"),
                     "optk": {"--reference": "reads"}, "when": {"--reference": {"ops": "each:writes"}},
                     "recursive": ("-R", "--recursive")}
COPY: Spec = {"ops": "last:writes,reads", "val": "tS", "lval": ("target-directory", "suffix", "backup", "reflink",
                                                                "sparse", "preserve", "no-preserve", "context"),
              "optk": {"-t": "writes", "--target-directory": "writes"}, "into_dir": True,
              "when": {**{o: {"ops": "last:links,links"} for o in ("-l", "--link", "-s", "--symbolic-link")},
                       **{o: {"ops": "each:reads"} for o in ("-t", "--target-directory")}},
              "recursive": ("-r", "-R", "-a", "--recursive", "--archive")}
ARCHIVE_MEMBERS = "the archive's members (the files written) are known only at run time"
INLINE = "inline interpreter program"

COMMANDS: dict[str, Spec] = {
    # deleting
    "rm": DELETER, "rmdir": {"ops": "each:deletes"}, "unlink": {"ops": "each:deletes"},
    "wipe": DELETER, "srm": DELETER,
    "shred": {"ops": "each:writes", "val": "ns", "lval": ("iterations", "size", "random-source", "remove"),
              "when": {o: {"ops": "each:writes+deletes"} for o in ("-u", "--remove")}},
    # moving, copying, linking
    "mv": {**COPY, "ops": "last:writes,deletes", "when": {o: {"ops": "each:deletes"}
                                                          for o in ("-t", "--target-directory")}},
    "cp": COPY,
    "install": {**COPY, "val": "tSgmo", "lval": ("target-directory", "suffix", "group", "mode", "owner"),
                "when": {"-d": {"ops": "each:writes"}, "--directory": {"ops": "each:writes"},
                         "-t": {"ops": "each:reads"}, "--target-directory": {"ops": "each:reads"}}},
    "ln": {"ops": "last:links,links", "val": "tS", "lval": ("target-directory", "suffix"), "into_dir": True,
           "single_into_cwd": True,
           "optk": {"-t": "links", "--target-directory": "links"}},
    "link": {"ops": "each:links"},
    "rsync": {"ops": "last:writes,reads", "val": "eBfTM", "remote": True, "into_dir": False,
              "lval": ("rsh", "rsync-path", "filter", "exclude", "include", "exclude-from", "include-from",
                       "files-from", "temp-dir", "backup-dir", "log-file", "partial-dir", "compare-dest",
                       "copy-dest", "link-dest", "chmod", "chown", "suffix", "block-size", "max-size",
                       "min-size", "timeout", "port", "password-file", "out-format", "remote-option"),
              "optk": {"--files-from": "reads", "--exclude-from": "reads", "--include-from": "reads",
                       "--log-file": "writes", "--password-file": "reads", "-e": "executes", "--rsh": "executes"},
              "extra": {"--delete": ("last", "deletes"), "--delete-before": ("last", "deletes"),
                        "--delete-during": ("last", "deletes"), "--delete-after": ("last", "deletes"),
                        "--delete-delay": ("last", "deletes"), "--delete-excluded": ("last", "deletes"),
                        "--del": ("last", "deletes"), "--remove-source-files": ("rest", "deletes")},
              "recursive": True, "facts": ("network",)},
    "scp": {"ops": "last:writes,reads", "val": "cFiJloPSXD", "remote": True, "facts": ("network",),
            "optk": {"-F": "reads", "-i": "reads"}, "recursive": ("-r",)},
    # writing
    "tee": {"ops": "each:writes", "lval": ("output-error",)},
    "truncate": {"ops": "each:writes", "val": "sr", "lval": ("size", "reference"),
                 "optk": {"-r": "reads", "--reference": "reads"}},
    "touch": {"ops": "each:writes", "val": "drt", "lval": ("date", "reference", "time"),
              "optk": {"-r": "reads", "--reference": "reads"}},
    "mkdir": {"ops": "each:writes", "val": "mZ", "lval": ("mode", "context")},
    "mkfifo": {"ops": "each:writes", "val": "mZ"}, "mknod": {"ops": "first:writes,none", "val": "mZ"},
    "sponge": {"ops": "each:writes"},
    "fallocate": {"ops": "each:writes", "val": "lon", "lval": ("length", "offset")},
    "sed": {"ops": "first:none,reads", "val": "eflS", "oval": "i",
            "lval": ("expression", "file", "line-length", "in-place"),
            "optk": {"-f": "reads", "--file": "reads"}, "script": ("-e", "-f", "--expression", "--file"),
            "when": {o: {"ops": "first:none,reads+writes"} for o in ("-i", "--in-place")}},
    "chmod": CHANGE_MODE, "chown": CHANGE_MODE, "chgrp": CHANGE_MODE,
    "chattr": {"ops": "each:writes", "flags": "RVfv"},
    "setfacl": {"ops": "each:writes", "val": "mMxX", "lval": ("modify", "remove", "set", "modify-file",
                                                               "remove-file", "set-file"),
                "optk": {"-M": "reads", "-X": "reads", "--modify-file": "reads", "--remove-file": "reads",
                         "--set-file": "reads"}, "recursive": ("-R", "--recursive")},
    "split": {"ops": "pos:reads,writes", "val": "abClnt", "lval": ("suffix-length", "bytes", "line-bytes",
                                                                    "lines", "number", "additional-suffix")},
    "csplit": {"ops": "first:reads,none", "val": "bfn", "lval": ("suffix-format", "prefix", "digits"),
               "optk": {"-f": "writes", "--prefix": "writes"}},
    "uniq": {"ops": "pos:reads,writes", "val": "fsw"},
    "xxd": {"ops": "pos:reads,writes", "val": "cglosCn"},
    "sort": {"ops": "each:reads", "val": "kotTS", "lval": ("key", "output", "field-separator",
                                                            "temporary-directory", "buffer-size", "files0-from"),
             "optk": {"-o": "writes", "--output": "writes", "--files0-from": "reads"}},
    "zip": {"ops": "first:writes,reads", "val": "bnOtPi", "wval": ("-TT",), "lval": ("unzip-command", "names-stdin"),
            "recursive": ("-r", "-R")},
    "unzip": {"handler": "unzip"},
    "7z": {"ops": "each:reads", "opaque": {"writes": ARCHIVE_MEMBERS}},
    "cpio": {"ops": "each:none", "val": "EFIOCHMR", "lval": ("file", "format", "pattern-file", "owner", "directory"),
             "optk": {"-F": "writes", "-O": "writes", "-I": "reads", "-E": "reads", "--pattern-file": "reads"},
             "when": {o: {"opaque": {"writes": ARCHIVE_MEMBERS}} for o in ("-i", "--extract", "-p",
                                                                            "--pass-through")}},
    "gzip": COMPRESS, "gunzip": COMPRESS, "bzip2": COMPRESS, "bunzip2": COMPRESS, "xz": COMPRESS,
    "unxz": COMPRESS, "lzma": COMPRESS, "compress": COMPRESS, "uncompress": COMPRESS,
    "zstd": {"ops": "each:reads", "val": "oD", "optk": {"-o": "writes"},
             "when": {"--rm": {"ops": "each:reads+deletes"}}},
    "vi": EDITOR, "vim": EDITOR, "nvim": EDITOR, "view": READER, "nano": EDITOR, "pico": EDITOR,
    "emacs": EDITOR, "ed": EDITOR, "ex": EDITOR, "micro": EDITOR, "hx": EDITOR, "kak": EDITOR,
    "code": EDITOR, "subl": EDITOR, "gedit": EDITOR,
    # reading
    **{n: READER for n in ("cat", "tac", "nl", "wc", "more", "less", "most", "strings", "file", "stat", "md5sum",
                           "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "b2sum", "cksum", "sum",
                           "cmp", "comm", "paste", "fold", "fmt", "column", "expand", "unexpand", "iconv", "bat",
                           "batcat", "zcat", "bzcat", "xzcat", "zless", "zmore", "lsattr", "getfacl", "namei",
                           "readlink", "realpath", "ls", "dir", "du", "tree", "exa", "eza", "hexdump", "look",
                           "rev", "shuf", "tsort", "ptx", "pr", "zgrep")},
    "head": {"ops": "each:reads", "val": "nc", "lval": ("lines", "bytes")},
    "tail": {"ops": "each:reads", "val": "ncs", "lval": ("lines", "bytes", "pid", "sleep-interval",
                                                          "max-unchanged-stats")},
    "cut": {"ops": "each:reads", "val": "bcdf", "lval": ("bytes", "characters", "delimiter", "fields",
                                                          "output-delimiter")},
    "od": {"ops": "each:reads", "val": "AjNtSw", "lval": ("address-radix", "skip-bytes", "read-bytes", "format",
                                                           "strings", "width")},
    "base64": {"ops": "each:reads", "val": "w", "lval": ("wrap",)},
    "base32": {"ops": "each:reads", "val": "w", "lval": ("wrap",)},
    "diff": {"ops": "each:reads", "val": "CUFIxXSL", "optk": {"-X": "reads"}, "recursive": ("-r",),
             "lval": ("unified", "context", "exclude", "exclude-from", "label", "starting-file",
                      "ignore-matching-lines", "from-file", "to-file", "show-function-line")},
    "diff3": READER, "sdiff": {"ops": "each:reads", "val": "ow", "optk": {"-o": "writes"}},
    "join": {"ops": "each:reads", "val": "aejotv12"},
    "jq": {"ops": "first:none,reads", "val": "fL", "lval": ("indent", "from-file"),
           "lval2": ("arg", "argjson", "slurpfile", "rawfile"),
           "optk": {"-f": "reads", "--from-file": "reads", "--slurpfile": "reads", "--rawfile": "reads"},
           "script": ("-f", "--from-file")},
    "yq": {"ops": "first:none,reads", "when": {o: {"ops": "first:none,reads+writes"} for o in ("-i", "--inplace")}},
    "grep": PATTERN_READER, "egrep": PATTERN_READER, "fgrep": PATTERN_READER, "ack": PATTERN_READER,
    "ag": {**PATTERN_READER, "implicit": "reads", "recursive": True},
    "rg": RG,
    "awk": {"handler": "awk"}, "gawk": {"handler": "awk"}, "mawk": {"handler": "awk"}, "nawk": {"handler": "awk"},
    "dd": {"handler": "dd"},
    "tar": {"handler": "tar"}, "bsdtar": {"handler": "tar"}, "gtar": {"handler": "tar"},
    "find": {"handler": "find"},
    "patch": {"handler": "patch"},
    "git": {"handler": "git"},
    "cd": {"handler": "cd"}, "pushd": {"handler": "cd"}, "popd": {"handler": "cd"},
    "read": {"handler": "read"}, "mapfile": {"handler": "read"}, "readarray": {"handler": "read"},
    "getopts": {"handler": "read"}, "printf": {"handler": "read"}, "let": {"handler": "read"},
    "set": {"handler": "set"}, "shift": {"handler": "set"},
    "eval": {"handler": "eval"}, "source": {"handler": "source"}, ".": {"handler": "source"},
    "trap": {"handler": "trap"},
    "at": {"handler": "at"}, "batch": {"handler": "at"}, "alias": {"handler": "alias"},
    "shopt": {"handler": "shopt"}, "hash": {"handler": "hash"},
    "curl": {"handler": "net"}, "wget": {"handler": "net"},
    **{n: {"handler": "shell"} for n in ("bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "yash", "posh",
                                         "rbash", "ksh93", "busybox")},
    **{n: {"handler": "interp"} for n in ("python", "pypy", "node", "nodejs", "deno", "bun", "ruby", "perl",
                                          "php", "lua", "luajit", "Rscript", "julia", "tclsh", "osascript",
                                          "pwsh", "powershell", "irb", "fish", "expect", "groovy", "scala")},
    **{n: {"handler": "pkg"} for n in ("pip", "pipx", "uv", "poetry", "pipenv", "conda", "mamba", "npm", "yarn",
                                       "pnpm", "bun", "apt", "apt-get", "aptitude", "dpkg", "brew", "cargo", "gem",
                                       "go", "dnf", "yum", "apk", "pacman", "zypper", "snap", "flatpak",
                                       "composer", "bundle")},
    # devices, mounts, the system itself
    **{n: {"ops": "each:writes", "facts": ("system_control",)}
       for n in ("mkfs", "mke2fs", "mkswap", "fdisk", "sfdisk", "cfdisk", "gdisk", "parted", "wipefs", "blkdiscard",
                 "swapon", "swapoff", "losetup", "cryptsetup", "hdparm")},
    "mount": {"ops": "last:writes,reads", "val": "otOLUB", "facts": ("system_control",)},
    "umount": {"ops": "each:writes", "facts": ("system_control",)},
    **{n: {"facts": ("system_control",)}
       for n in ("reboot", "shutdown", "halt", "poweroff", "init", "telinit", "systemctl", "service", "crontab",
                 "useradd", "userdel", "usermod", "groupadd", "passwd", "chpasswd", "visudo", "iptables",
                 "ip6tables", "nft", "ufw", "sysctl", "modprobe", "insmod", "rmmod", "launchctl", "kill", "pkill",
                 "killall", "setenforce", "update-alternatives", "ldconfig")},
    "npx": {"facts": ("network", "package_install")}, "pnpx": {"facts": ("network", "package_install")},
    "printenv": {"facts": ("env_dump",)}, "compgen": {"facts": ("env_dump",)},
    "ssh": {"facts": ("network",), "val": "bcDEeFIiJLlmOopQRSWw", "optk": {"-i": "reads", "-F": "reads"},
            "ops": "each:none"},
    "sftp": {"facts": ("network",)}, "ftp": {"facts": ("network",)}, "nc": {"facts": ("network",)},
    "netcat": {"facts": ("network",)}, "ncat": {"facts": ("network",)}, "socat": {"facts": ("network",)},
    "telnet": {"facts": ("network",)},
    # no file operands
    **{n: {"ops": "each:none"} for n in ("echo", "true", "false", ":", "test", "[", "[[", "sleep", "date",
                                         "pwd", "whoami", "id", "uname", "hostname", "basename", "dirname",
                                         "seq", "yes", "expr", "wait",
                                         "jobs", "fg", "bg", "type", "which", "whereis",
                                         "unalias", "return", "exit", "break", "continue", "umask",
                                         "ulimit", "history", "clear", "tput", "stty", "tr", "bc", "dc",
                                         "factor", "nproc", "uptime", "ps", "top", "free", "df", "lsof",
                                         "times", "caller", "disown", "suspend", "logout",
                                         "help", "enable", "complete", "compopt", "dirs", "mktemp")},
}

# versioned names (python3.12, pip3, perl5.36) and GNU-prefixed tools (gsed, gnutar) -> table key
VERSIONED = {"python": "python", "pypy": "python", "pip": "pip", "perl": "perl", "ruby": "ruby", "php": "php",
             "node": "node", "lua": "lua"}
GNU_PREFIXED = frozenset({"sed", "awk", "tar", "find", "grep", "cp", "mv", "rm", "ln"})


def canonical(name: str) -> str:
    """The table key for a command name."""
    base = name.rstrip("0123456789.")
    if base in VERSIONED:
        return VERSIONED[base]
    if name.startswith("mkfs."):
        return "mkfs"
    for prefix in ("gnu", "g"):
        if name.startswith(prefix) and name[len(prefix):] in GNU_PREFIXED:
            return name[len(prefix):]
    return name


# Wrappers run the command in their operands. Keys as in COMMANDS plus:
# `pos`: operands before the command (timeout DURATION); `cwd`: option setting the directory;
# `noexec`: options meaning no command runs; `code`: options whose value is shell code;
# `assign`: NAME=VALUE operands are environment assignments (env); `split`: options whose
# value is split into words and prepended (env -S); `shell`: options that run the command
# through a shell (sudo -s); `edit`: options turning the operands into written files (sudo -e);
# `privileged`: tags the line "privileged"; `rest_code`: the operands are joined into shell code.
WRAPPERS: dict[str, Spec] = {
    "env": {"val": "uCS", "lval": ("unset", "chdir", "split-string", "block-signal", "default-signal",
                                   "ignore-signal"),
            "cwd": ("-C", "--chdir"), "assign": True, "split": ("-S", "--split-string")},
    "nice": {"val": "n", "lval": ("adjustment",)},
    "nohup": {},
    "time": {"val": "fo", "lval": ("format", "output"), "optk": {"-o": "writes", "--output": "writes"}},
    "command": {"noexec": ("-v", "-V")},
    "builtin": {},
    "exec": {"val": "a"},
    "setsid": {},
    "stdbuf": {"val": "ioe", "lval": ("input", "output", "error")},
    "timeout": {"val": "sk", "lval": ("signal", "kill-after"), "pos": 1},
    "ionice": {"val": "cnpPu", "lval": ("class", "classdata", "pid", "pgid", "uid"), "noexec": ("-p", "-P", "-u")},
    "chrt": {"pos": 1, "noexec": ("-p", "--pid")},
    "taskset": {"pos": 1, "noexec": ("-p", "--pid")},
    "chroot": {"pos": 1, "lval": ("userspec", "groups"), "cwd_unknown": True},
    "sudo": {"val": "CDghpRrtTUu", "lval": ("close-from", "chdir", "group", "host", "prompt", "chroot", "role",
                                            "type", "command-timeout", "other-user", "user"),
             "cwd": ("-D", "--chdir"), "noexec": ("-l", "--list", "-v", "--validate", "-k", "-K", "-V"),
             "shell": ("-s", "--shell", "-i", "--login"), "edit": ("-e", "--edit"), "privileged": True},
    "sudoedit": {"val": "CDghpRrtTUu", "edit_always": True, "privileged": True},
    "doas": {"val": "uC", "shell": ("-s",), "privileged": True},
    "pkexec": {"lval": ("user",), "privileged": True},
    "runuser": {"val": "ugGcsw", "lval": ("user", "group", "supp-group", "command", "shell", "whitelist-environment"),
                "code": ("-c", "--command"), "privileged": True},
    "su": {"val": "cgGsw", "lval": ("command", "group", "supp-group", "shell", "whitelist-environment"),
           "code": ("-c", "--command"), "privileged": True, "noexec_without_code": True},
    "nsenter": {"val": "tSGwr", "lval": ("target", "setuid", "setgid", "wd", "root")},
    "unshare": {"lval": ("propagation", "setgroups", "map-user", "map-group", "kill-child", "wd", "root")},
    "strace": {"val": "eoOpsuEaPIbX", "optk": {"-o": "writes"}, "noexec": ("-p",)},
    "ltrace": {"val": "eoOpsuEaIbX", "optk": {"-o": "writes"}, "noexec": ("-p",)},
    "watch": {"val": "nq", "lval": ("interval", "differences", "chgexit", "errexit"), "rest_code": True},
    "flock": {"val": "wEc", "lval": ("timeout", "conflict-exit-code", "command"), "code": ("-c", "--command"),
              "pos": 1, "optk": {}},
    "caffeinate": {"val": "tw"},
    "script": {"val": "cEIOTB", "lval": ("command", "echo", "log-in", "log-out", "log-timing", "logging-format"),
               "code": ("-c", "--command"), "noexec_without_code": True},
    "firejail": {}, "proxychains": {"val": "f"}, "proxychains4": {"val": "f"}, "torsocks": {},
    "xvfb-run": {"val": "nfsep"}, "dbus-run-session": {}, "chronic": {}, "unbuffer": {}, "catchsegv": {},
    "valgrind": {}, "systemd-run": {"val": "pEuH"}, "faketime": {"pos": 1}, "fakeroot": {},
    "xargs": {"val": "adEILlnPs", "oval": "iel", "lval": ("arg-file", "delimiter", "eof", "replace", "max-lines",
                                                          "max-args", "max-procs", "max-chars",
                                                          "process-slot-var"),
              "optk": {"-a": "reads", "--arg-file": "reads"}, "xargs": True},
    "parallel": {"val": "jSI", "xargs": True},
    "coproc": {},
}
SHELLS = frozenset(n for n, s in COMMANDS.items() if s.get("handler") == "shell")
