"""post_edit_check's check for .py files: reads the OpenCode event (JSON on stdin) and
byte-compiles every edited Python file; prints the error and exits 1 when one does not compile."""

import json
import sys

event = json.load(sys.stdin)
files = [event.get("resolved_file_path")] + list(event.get("affected_files") or [])
failed = False
for path in dict.fromkeys(f for f in files if isinstance(f, str) and f.endswith(".py")):
    try:
        with open(path, encoding="utf-8") as f:
            compile(f.read(), path, "exec")
    except (OSError, SyntaxError) as e:
        print(f"{path}: {e}")
        failed = True
sys.exit(1 if failed else 0)
