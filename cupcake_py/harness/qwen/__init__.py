"""harness/qwen: Qwen Code command hooks (`cupcake eval --harness qwen`)."""
