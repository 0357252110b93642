"""cupcake's mounter: the profile's mounts applied inside bubblewrap's namespaces with the kernel's
mount API (mounter.c says how and why), then the command run with no capability left.

The prebuilt executables (`mounter-<machine>`, built by `make mounter` from mounter.c with
build.py, committed and shipped in the wheel) live here; sandbox/bwrap.py `locate_mounter()`
finds the one for this machine (not this package: importing it would cost every sandboxed
evaluation a package import).
"""
