"""harness/claude: Claude Code command hooks (`cupcake eval --harness claude`)."""
