"""harness/factory: Factory Droid command hooks (`cupcake eval --harness factory`)."""
