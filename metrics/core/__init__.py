"""Code every benchmark shares: resampling, the compare report, the Trainer helper base, readers, the Space scaffolding."""
