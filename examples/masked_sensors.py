"""Masked sensor readings with numpy.ma: mask invalid and out-of-range values, per-column
statistics, anomalies masked too, filled and concatenated. Runs as is, under
``faketensor run examples/masked_sensors.py`` (the plan of a full-size run), and at small
sizes in tests/modes/test_ma.py against the same run for real."""
import sys

import numpy as np


def main(n: int = 10_000_000, sensors: int = 16) -> dict:
    rng = np.random.default_rng(0)
    readings = rng.normal(20.0, 5.0, size=(n, sensors))
    readings[::97, 3] = np.nan          # dropped samples
    readings[::89, 5] = 1e6             # saturated sensor
    r = np.ma.masked_invalid(readings)
    r = np.ma.masked_outside(r, -40.0, 80.0)
    mean = r.mean(axis=0)
    std = r.std(axis=0)
    z = (r - mean) / std
    clean = np.ma.masked_where(np.ma.abs(z) > 4.0, r)
    hourly = clean.reshape(-1, 4, sensors).mean(axis=1)
    filled = clean.filled(0.0)
    both = np.ma.concatenate([clean[: n // 2], clean[n // 2:]], axis=0)
    total = np.ma.sum(both, axis=1)
    return {"mean": mean, "std": std, "clean": clean, "hourly": hourly, "filled": filled,
            "total": total}


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000_000)
