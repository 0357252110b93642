# METADATA
# scope: package
# title: Constant tables of the builtin policies
# description: >-
#   Names, directories and commands the builtins compare against, one table per concept. They
#   live in a library package (not in the policies' own packages) so that the decision
#   aggregator, which walks every rule value of the policy packages, never materialises them:
#   a table is only evaluated when a rule reads it.
# custom:
#   routing:
#     required_events: []
#     required_tools: []
#     required_signals: []
package cupcake.system.tables

import rego.v1

# system_protection
# Resolved system directories (both spellings where /bin, /lib… are symlinks into /usr).
sys_system_dirs := [
	"/etc", "/usr/bin", "/usr/sbin", "/usr/lib", "/usr/lib32", "/usr/lib64", "/usr/libx32", "/usr/libexec",
	"/usr/local/bin", "/usr/local/sbin", "/usr/local/lib", "/usr/share/applications", "/bin", "/sbin", "/lib",
	"/lib32", "/lib64", "/libx32", "/boot", "/dev", "/proc", "/sys", "/var/lib", "/var/spool/cron", "/var/spool/anacron",
	"/var/log", "/root", "/system", "/library", "/private/etc", "/private/var", "/usr/local/etc", "/snap/bin",
	"c:/windows", "c:\\windows",
]

# system_protection
# Below the home directory: shell start-up, persistence and credentials.
sys_home_files := [
	".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc", ".zshenv", ".zprofile",
	".zlogin", ".zlogout", ".vimrc", ".config/nvim", ".tmux.conf", ".npmrc", ".pip", ".config/pip", ".pydistutils.cfg", ".kshrc", ".cshrc", ".tcshrc", ".mkshrc", ".inputrc", ".xprofile", ".xinitrc",
	".xsession", ".pam_environment", ".gitconfig", ".config/git", ".config/fish", ".config/systemd",
	".config/autostart", ".config/environment.d", ".config/nushell", ".config/powershell", ".config/upstart",
	".ssh", ".gnupg", ".local/share/keyrings", ".local/bin", ".local/share/systemd", "library/launchagents",
	".config", ".bash_aliases", ".bash_completion", "bin", ".cargo/bin", ".npm-global/bin",
]

# system_protection
# Harmless devices every program writes to.
sys_harmless := {
	"/dev/null", "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/zero", "/dev/random",
	"/dev/urandom", "/dev/full", "/dev/ptmx",
}

# system_protection
# Reads of these are secret even from Bash.
sys_secret_reads := ["/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/ssl/private", "/root", "/etc/security/opasswd", "/var/lib/sudo"]

# system_protection
sys_privileged := {"sudo", "doas", "su", "pkexec", "run0", "sudoedit"}

# sensitive_data_protection
sdp_key_exts := {"pem", "key", "p12", "pfx", "jks", "keystore", "ppk", "asc", "gpg", "kdbx", "sqlite", "sqlite3", "db", "tfstate", "age"}

# sensitive_data_protection
sdp_text_exts := {"json", "yaml", "yml", "toml", "ini", "cfg", "conf", "txt", "env", "xml", "properties", "csv"}

# sensitive_data_protection
sdp_secret_names := {
	"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", ".npmrc", ".pypirc", ".netrc", "_netrc", ".git-credentials",
	".pgpass", ".my.cnf", "kubeconfig", ".kubeconfig", ".envrc", ".htpasswd", "shadow", "gshadow",
}

# sensitive_data_protection
sdp_secret_words := {"secret", "credential", "password", "passwd", "apikey", "api_key", "api-key", "private_key", "private-key", "token", "service-account", "service_account", "serviceaccount"}

# sensitive_data_protection
sdp_secret_dirs := {"/.ssh/", "/.gnupg/", "/.aws/", "/.config/gcloud/", "/.azure/", "/.kube/", "/.docker/config.json", "/.gem/credentials", "/.cargo/credentials", "/secrets/", "/secret/", "/.secrets/", "/credentials/", "/private_keys/", "/.password-store/", "/.config/gh/hosts.yml", "/.vault-token", "/.terraform.d/credentials", "/.config/op/", "/.local/share/keyrings/", "/logins.json", "/login data", "/.claude/.credentials.json", "/.local/share/opencode/auth.json", "/.codex/auth.json", "/.gemini/oauth_creds.json", "/.config/git/credentials", "/.config/github-copilot/", "/.s3cfg/", "/.boto/", "/.config/rclone/rclone.conf/", "/.terraformrc/", "/.config/hub/", "/.config/sops/age/", "/.pulumi/credentials.json/", "/.databrickscfg/", "/.config/doctl/", "/.fly/config.yml/", "/.config/configstore/firebase-tools.json/", "/.oci/", "/.m2/settings-security.xml/", "/.config/netlify/", "/.local/share/com.vercel.cli/"}

# sensitive_data_protection
sdp_harmless_exts := {"example", "sample", "template", "dist", "tmpl", "pub"}

# sensitive_data_protection
sdp_mask_words := [
	["key", "[REDACTED-KEY-FILE]"], ["secret", "[REDACTED-SECRET-FILE]"], ["credential", "[REDACTED-CREDENTIAL-FILE]"],
	["token", "[REDACTED-TOKEN-FILE]"], [".env", "[REDACTED-ENV-FILE]"], ["password", "[REDACTED-PASSWORD-FILE]"],
]

# sensitive_data_protection
# Commands that print credentials: name -> argument words that, all present, make it one.
sdp_credential_commands := {
	"security": [["find-generic-password"], ["find-internet-password"], ["dump-keychain"]],
	"gpg": [["--export-secret-keys"], ["--export-secret-subkeys"]],
	"ssh-add": [["-L"]],
	"aws": [["configure", "get"], ["configure", "export-credentials"], ["sts", "get-session-token"], ["configure", "list"]],
	"gcloud": [["print-access-token"], ["print-identity-token"]],
	"az": [["get-access-token"]],
	"kubectl": [["view", "--raw"]],
	"gh": [["auth", "token"]],
	"printenv": [[]],
	"env": [[]],
	"doppler": [["secrets"]],
	"vault": [["read"], ["kv", "get"]],
}

# sensitive_data_protection
# rg/ag/ack without a path operand search the directory they run in.
# sensitive_data_protection: a project database opened by these clients is a query, not a leak
sdp_database_exts := {"db", "sqlite", "sqlite3"}

sdp_database_clients := {"sqlite3", "sqlite"}

sdp_cwd_searchers := {"rg", "ag", "ack", "ugrep", "sift", "pt"}

# sensitive_data_protection
sdp_hunting := ["secret", "credential", "token", "password", ".env", ".key", ".pem", "apikey", "api_key", "id_rsa", "id_ed25519", ".sqlite", ".ssh", ".aws", ".netrc", ".npmrc"]

# cupcake_exec_protection
cep_cupcake_names := {"cupcake", "cupcake-py", "cupcake_py"}

# cupcake_exec_protection
cep_runners := {
	"uvx", "npx", "pnpx", "bunx", "pipx", "uv", "poetry", "pdm", "hatch",
	"pip", "pip3", "cargo", "brew", "apt", "apt-get", "yum", "dnf", "snap", "npm", "pnpm", "yarn", "gem", "alias",
	"function", "declare", "typeset", "ln", "install",
}

# rulebook_security_guardrails
guard_search_tools := {"Glob", "Grep", "List"}

# rulebook_security_guardrails
# Prompts and free text of other tools (Task, WebFetch, skills, MCP) that mention the state.
guard_text_tools := {"Task", "WebFetch", "Skill", "TodoWrite"}

# Clients of processes that run outside the kernel floor (docs/security.md): programs that always
# talk to such a server, and argument fragments that name a Unix socket, an abstract one or this
# machine for a remote shell.
guard_outside_servers := {"tmux", "screen", "zellij", "systemd-run", "busctl", "dbus-send", "gdbus", "qdbus", "at", "batch"}

guard_outside_words := ["unix-connect:", "unix-client:", "abstract-connect:", "abstract-client:", "unix:path=", "unix:abstract=", "--unix-socket", "--abstract-unix-socket"]

guard_remote_shells := {"ssh", "scp", "sftp", "mosh"}

guard_loopback := ["localhost", "127.0.0.1", "[::1]", "::1", "0.0.0.0"]

# git_block_no_verify
gnv_hook_running := {"commit", "push", "merge", "pull", "rebase", "cherry-pick", "revert", "am", "checkout", "switch", "worktree"}

# git_block_no_verify
# Hook-runner switches in the command's environment.
gnv_hook_switches := ["husky=0", "husky_skip_hooks=1", "skip_git_hooks=1", "pre_commit_allow_no_config=1", "lefthook=0"]

# effects: words of inline interpreter code that can reach files, processes or hidden code
inline_capabilities := [
	"open", "write", "remove", "unlink", "rmtree", "rmdir", "rename", "replace", "shutil", "os.", "os,", " os",
	"subprocess", "system", "popen", "spawn", "exec", "eval", "compile", "__import__", "importlib", "require", "getattr",
	"globals", "builtins", "path", "fs", "file", "chmod", "chown", "link", "mkdir", "truncate", "copy", "move",
	"ctypes", "pickle", "marshal", "base64", "codec", "decode", "fromhex", "chr(", "\\x", "\\u", "child_process",
	"process.", "io.", "sys.modules", "environ", "env", "socket", "http", "url", "delete", "dump", "save",
	"pty", "`", "$(", "glob", "walk", "listdir", "scandir", "read", "load", "dir(", "vars(", "setattr", "lambda",
	"unlink", "cwd", "chdir", "home", "expanduser", "~", "/", "..", "sys.argv", "input(", "stdin", "perl", "qx",
	"backtick", "%x", "syscall", "dlopen", "ffi", "deno.", "bun.", "kernel", "file_put", "passthru", "shell",
	"sqlite", "posix", "runpy", "mmap", "shelve", "dbm", "webbrowser", "pip", "setuptools", "distutils", "site",
]

# effects: commands whose operands are text, never files touched (git is analysed on its own)
printers := {"echo", "printf", "test", "[", "[[", "true", "false", "type", "which", "command", "hash", "git", "export", "local", "declare", "alias", "unalias", "set", "unset", "read", "exit", "return", "shift", "sleep", "date", "seq", "expr", "let", "basename", "dirname", "cd", "pushd", "popd", "man", "help", "info", "whatis", "apropos", "kill", "pkill", "pgrep", "ps", "id", "whoami", "uname", "hostname"}

# effects: programs known to only read their operands (or whose writes the analysis reports);
# interpreters, package managers and build tools run arbitrary code and are not in it
readers := {
	"cat", "less", "more", "head", "tail", "grep", "egrep", "fgrep", "zgrep", "rg", "ag", "ack", "wc", "file", "stat",
	"ls", "find", "sort", "uniq", "diff", "cmp", "md5sum", "sha1sum", "sha256sum", "sha512sum", "cksum", "hexdump",
	"xxd", "strings", "od", "du", "tree", "realpath", "readlink", "bat", "jq", "yq", "nl", "cut", "tr", "column",
	"comm", "fold", "base64", "awk", "gawk", "sed", "cp", "mv", "ln", "rm", "rmdir", "mkdir", "touch", "chmod",
	"chown", "chgrp", "tee", "dd", "truncate", "install", "rsync", "scp", "tar", "zip", "unzip", "gzip", "gunzip",
	"bzip2", "xz", "zcat", "patch", "source", ".", "sh", "bash", "zsh", "dash",
	"xargs", "env", "time", "nice", "nohup", "timeout", "stdbuf", "setsid", "sudo", "doas", "shred",
	"unlink", "curl", "wget", "sponge", "vim", "vi", "nano", "emacs", "code", "open", "xdg-open", "diff3", "paste",
	"join", "split", "csplit", "tac", "rev", "shuf", "look", "iconv", "dos2unix", "unix2dos", "file", "lsattr",
	"getfacl", "test", "crontab", "pytest", "mypy", "tsc", "eslint", "jest", "mocha",
}

# Programs found on PATH that run outside the kernel floor: cupcake itself (the hooks), git (cupcake's
# enrichment, the agents' snapshots and status), the shells a harness runs a command line with, and
# ripgrep (the agents' search tools). A new or replaced one in a PATH directory would run instead of
# the real one (sandbox/profile.py PATH_PROGRAMS: the same names; tests/sandbox/test_profile.py).
guard_path_programs := {"cupcake", "cupcake-py", "git", "bash", "sh", "rg"}
