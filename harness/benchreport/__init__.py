"""harness/bench-report's modules: data, goals, render."""
