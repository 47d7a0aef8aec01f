"""An xarray analysis of a (time, lat, lon) field: anomalies from the time mean, an
area-weighted mean, a concatenation and a Dataset's statistics. Sizes from argv
(``NT NY NX``); ``--coords`` labels lat and lon (real coordinate values, from lists)."""
import sys

import numpy as np
import xarray as xr


def main(nt: int = 24, ny: int = 16, nx: int = 32, coords: bool = False):
    rng = np.random.default_rng(0)
    labels = {"lat": [float(i) for i in range(ny)], "lon": list(range(nx))} if coords else {}
    temp = xr.DataArray(rng.standard_normal((nt, ny, nx), dtype=np.float32),
                        dims=("time", "lat", "lon"), coords=labels, name="temp")
    clim = temp.mean("time")
    anom = temp - clim
    weights = xr.DataArray(np.cos(np.linspace(-1.2, 1.2, ny)), dims="lat")
    area_mean = (anom * weights).sum(("lat", "lon")) / (weights.sum() * nx)
    halves = xr.concat([anom.isel(time=slice(0, nt // 2)), anom.isel(time=slice(nt // 2, None))],
                       "time")
    ds = xr.Dataset({"temp": temp, "anom": halves})
    spread = ds.transpose("lon", "lat", "time").std("time")
    corner = ds.isel(lat=slice(0, ny // 2), lon=[0, 2, 4]).max(("lat", "lon"))
    print("area mean", area_mean.shape, area_mean.dtype, "spread", spread.anom.shape,
          "corner", corner.temp.shape)
    return area_mean, spread, corner


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--coords"]
    main(*(int(a) for a in args), coords="--coords" in sys.argv)
