"""Studio calibration tool: learns a studio profile from a few frames."""
