"""The kernel floor: every agent shell call runs inside a bubblewrap sandbox whose profile is
computed by cupcake from the configuration the policies read (docs/sandbox.md).

- `profile.py`: the profile as data (read-only, hidden, writable paths, all resolved) from the
  state paths, the Python environment running cupcake, the agents' configuration, git's hooks and
  config, the rulebook's protected paths, the sensitive set and the writable roots.
- `secrets.py`: the sensitive set of sensitive_data_protection as concrete paths (the home's
  credential stores, shell histories, sensitive files found in the project).
- `sockets.py`: Unix sockets of processes outside the sandbox (known ones, those named in the
  environment, this user's listening sockets), for the hidden list.
- `scan_memo.py`: the project's secrets scan remembered per directory between evaluations while
  the directory is unchanged (device, inode, mtime, ctime).
- `bwrap.py`: where bubblewrap is, whether it can run here (a cached probe), the profile as
  bubblewrap arguments (written to a content-addressed arguments file).
- `launcher.py`: the command line the harness runs instead of the agent's: bubblewrap reading
  that file, the command inside (exec'd directly when bash would only split it into words),
  the removal of absent agent configuration, the command's exit status.

Fails closed: a profile that cannot be written or a bubblewrap that cannot run is reported to
the caller (`input.sandbox`), never replaced by an unsandboxed run that claims to be one.
"""
