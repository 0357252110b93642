"""Unix sockets of processes that run outside the sandbox, for the profile's hidden list.

A process outside the sandbox that listens on a Unix socket acts for whoever connects (a
terminal multiplexer types into the user's shell, a container engine or the user's systemd
starts processes, an SSH agent signs): a sandboxed command that reaches it escapes. A path socket
is reachable whatever the mounts say (connect needs write permission on the socket, not a
writable mount), so the profile hides it.

In: the home directory, the environment, `/proc/net/unix` (the sockets bound in this network
namespace, which the sandbox shares unless `network: false`).
Out: `outside_sockets(environ)` → paths to hide (existing or not; the profile keeps those that
exist):
- `KNOWN`: container engines, X11, screen's socket dirs, and `/run/user/<uid>` (the user's
  runtime dir: systemd --user, D-Bus, Wayland, gpg-agent, VS Code);
- `/tmp/tmux-<uid>`, `$XDG_RUNTIME_DIR`, `$TMUX_TMPDIR`, and every environment value that names
  a socket: an absolute path to one (`SSH_AUTH_SOCK`, `VSCODE_IPC_HOOK_CLI`,
  `WEZTERM_UNIX_SOCKET` …) or a `unix:path=…` / `unix:…` address (`DBUS_SESSION_BUS_ADDRESS`,
  `KITTY_LISTEN_ON`; a relative `path=` below the working directory, made absolute);
- every *listening* path socket of `/proc/net/unix` owned by this user (the processes that
  share the agent's rights).
Not closed here (docs/security.md): abstract sockets (no path: only `network: false` isolates
them), TCP services on loopback, sockets of other users that accept this one, and sockets bound
after the profile was computed. Never raises: what cannot be read is left out.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

KNOWN = ("/var/run/docker.sock", "/run/docker.sock", "/run/containerd/containerd.sock", "/run/podman/podman.sock",
         "/var/run/libvirt", "/tmp/.X11-unix", "/run/screen", "/var/run/screen", "/tmp/screens")
ENV_DIRS = ("XDG_RUNTIME_DIR", "TMUX_TMPDIR")
LISTENING = 0x00010000  # __SO_ACCEPTCON in /proc/net/unix's Flags column


def _socket_path(value: str) -> str | None:
    """The socket path an environment value names, else None."""
    if value.startswith("unix:"):
        rest = value[5:]
        for part in rest.split(","):
            if part.startswith("path=") and part[5:]:
                # relative: below this process's working directory, where its clients find it (absolute
                # here, so that the profile memo's key names the socket, not the name)
                try:
                    return os.path.abspath(part[5:])
                except OSError:  # the working directory is gone
                    return None
        return rest if rest.startswith("/") else None
    return value if value.startswith("/") and "\n" not in value else None


def _is_socket(path: str) -> bool:
    import stat

    try:
        return stat.S_ISSOCK(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def listening_sockets(uid: int, table: str = "/proc/net/unix") -> list[str]:
    """The listening path sockets of `table` owned by `uid`."""
    try:
        with open(table, "rb") as f:
            lines = f.read().decode("utf-8", "surrogateescape").splitlines()[1:]
    except OSError:
        return []
    out = []
    for line in lines:
        fields = line.split(None, 7)
        if len(fields) < 8 or not fields[7].startswith("/"):
            continue
        try:
            listening = int(fields[3], 16) & LISTENING
        except ValueError:
            continue
        path = fields[7]
        if listening and path not in out:
            try:
                if os.stat(path).st_uid == uid:
                    out.append(path)
            except (OSError, ValueError):
                pass
    return out


def outside_sockets(environ: Mapping[str, str]) -> list[str]:
    uid = os.getuid()
    out = [*KNOWN, f"/tmp/tmux-{uid}", f"/run/user/{uid}"]
    out += [environ[v] for v in ENV_DIRS if os.path.isabs(environ.get(v, ""))]
    for value in environ.values():
        path = _socket_path(value)
        if path is not None and _is_socket(path):
            out.append(path)
    out += listening_sockets(uid)
    return out
