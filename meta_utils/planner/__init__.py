"""The planner (``ft.plan``, ``faketensor run``), its CLI and reports (text, JSON, HTML), the
largest size that fits (sweep), ``ft.explain`` and planning on a dask.distributed cluster."""
