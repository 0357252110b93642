"""harness/copilot: GitHub Copilot CLI command hooks (`cupcake eval --harness copilot`)."""
