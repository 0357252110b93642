# METADATA
# scope: package
# title: Shell command helpers shared by the builtin policies
# custom:
#   routing:
#     required_events: []
#     required_tools: []
#     required_signals: []
package cupcake.system.commands

import rego.v1

# The command has `verb` as a whole word: at the start, after whitespace or ; | & ( { or as
# the last part of a path (`/bin/rm`, `\rm`), optionally quoted (`'rm'`).
has_verb(command, verb) if {
	regex.match(sprintf(`(^|[\s;|&({/\\'"])%s['"]?($|[\s;|&)}])`, [regex_escape(verb)]), command)
}

# The command contains any verb of `verbs`.
has_dangerous_verb(command, verbs) if {
	some verb in verbs
	has_verb(command, verb)
}

# `ln -s ...`, `ln --symbolic ...`, or a hard link with `ln`/`link`.
creates_symlink(command) if {
	has_verb(command, "ln")
	regex.match(`(^|\s)-[a-zA-Z]*s|--symbolic`, command)
}

creates_hardlink(command) if {
	has_verb(command, "link")
}

creates_hardlink(command) if {
	has_verb(command, "ln")
	not creates_symlink(command)
}

# A link command that names `path` (either side of the link).
symlink_involves_path(command, path) if {
	creates_symlink(command)
	contains(command, trim_suffix(path, "/"))
}

symlink_involves_path(command, path) if {
	creates_hardlink(command)
	contains(command, trim_suffix(path, "/"))
}

# Output redirection or a pipe into a writer.
has_output_redirect(command) if {
	regex.match(`(^|[^0-9&<])>{1,2}|\|\s*tee(\s|$)|(^|\s)tee(\s|$)`, command)
}

regex_escape(s) := regex.replace(s, `([\\.+*?()|\[\]{}^$])`, `\$1`)
