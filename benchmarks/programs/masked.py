"""Cleaning a sensor table with missing data in numpy.ma.

``n`` hourly rows of 12 sensors with gaps (NaN), stuck readings (a sentinel value) and
out-of-range spikes: masked with np.ma.masked_invalid, masked_values, masked_outside and
mask_or, then per-sensor means and standard deviations, anomalies masked beyond 3 sigma,
daily means over reshaped rows, gaps filled with the column mean, the count of valid
readings, and a masked correlation-style normalisation.
"""
import numpy as np

SENSORS, SENTINEL = 12, -999.0


def main(n):
    rng = np.random.default_rng(0)
    hours = n - n % 24
    base = 20.0 + 5.0 * np.sin(2 * np.pi * np.arange(hours) / 24.0)[:, None]
    raw = base + rng.normal(0.0, 1.0, size=(hours, SENSORS))
    raw[rng.random((hours, SENSORS)) < 0.05] = np.nan
    raw[rng.random((hours, SENSORS)) < 0.02] = SENTINEL
    raw[rng.random((hours, SENSORS)) < 0.01] = 500.0

    data = np.ma.masked_invalid(raw)
    data = np.ma.masked_values(data, SENTINEL)
    data = np.ma.masked_outside(data, -40.0, 60.0)
    mean = data.mean(axis=0)
    std = data.std(axis=0)
    anomalies = np.ma.masked_where(np.abs(data - mean) > 3 * std, data)
    valid = anomalies.count(axis=0)
    daily = anomalies.reshape(hours // 24, 24, SENSORS).mean(axis=1)
    filled = anomalies.filled(0.0) + np.ma.getmaskarray(anomalies) * mean.filled(0.0)
    normalised = (anomalies - mean) / std
    spread = np.ma.max(normalised, axis=1) - np.ma.min(normalised, axis=1)
    return mean, std, valid, daily, filled, spread


if __name__ == "__main__":
    import sys
    main(int(sys.argv[1]))
