"""Code every benchmark shares: resampling, compare report, Trainer helper base, readers, Space scaffolding."""
