"""harness/cline: Cline hook executables (`cupcake eval --harness cline`)."""
