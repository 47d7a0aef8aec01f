"""Processing a station log: text file -> structured array -> sorted, filtered, saved.

The program first writes its input, a CSV of ``n`` readings as a logger would (station
name, ISO timestamp, temperature, humidity), then reads it with np.loadtxt into a
structured array with a string field and a datetime64 field, sorts it by station and
time (np.sort with order=), derives hourly bins with datetime64 arithmetic, cleans the
station names with np.strings, saves the cleaned table with np.save, loads it back with
np.load, and counts the readings per station with np.unique(return_counts=True).
"""
import datetime
import os
import random
import tempfile

import numpy as np

STATIONS = ("north", "South", "east ", "West", "harbor", "airport")
START = datetime.datetime(2024, 3, 1, 6, 0, 0)
DTYPE = [("station", "U8"), ("time", "datetime64[s]"), ("temp", "f8"), ("humidity", "f4")]


def write_log(path, n):
    """The logger's output: one line per reading, stations interleaved, times increasing."""
    rnd = random.Random(0)
    with open(path, "w") as f:
        f.write("station,time,temp,humidity\n")
        for i in range(n):
            stamp = (START + datetime.timedelta(minutes=i)).isoformat()
            f.write(f"{rnd.choice(STATIONS)},{stamp},{rnd.gauss(12, 6):.2f},{rnd.uniform(20, 95):.1f}\n")


def main(n):
    with tempfile.TemporaryDirectory() as tmp:
        csv = os.path.join(tmp, "log.csv")
        write_log(csv, n)
        table = np.loadtxt(csv, dtype=DTYPE, delimiter=",", skiprows=1)
        table["station"] = np.strings.lower(np.strings.strip(table["station"]))
        table.sort(order=["station", "time"])
        start = table["time"].min()
        hour = (table["time"] - start) // np.timedelta64(1, "h")
        day = table["time"].astype("datetime64[D]")
        weekday = (day.astype(np.int64) - 4) % 7
        warm = np.where(table["temp"] > 20.0, table["temp"] - 20.0, 0.0)
        dew = table["temp"] - (100.0 - table["humidity"]) / 5.0
        clean = np.empty(table.shape, dtype=[("station", "U8"), ("hour", "i8"),
                                             ("dew", "f8"), ("warm", "f8")])
        clean["station"] = table["station"]
        clean["hour"] = hour
        clean["dew"] = dew
        clean["warm"] = warm
        path = os.path.join(tmp, "clean.npy")
        np.save(path, clean)
        back = np.load(path)
        by_station = np.argsort(back["station"], kind="stable")
        names, counts = np.unique(back["station"], return_counts=True)
    return table, weekday, back[by_station], names, counts


if __name__ == "__main__":
    import sys
    main(int(sys.argv[1]))
