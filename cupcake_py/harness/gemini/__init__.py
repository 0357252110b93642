"""harness/gemini: Google Gemini CLI command hooks (`cupcake eval --harness gemini`)."""
