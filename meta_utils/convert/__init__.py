"""Conversion and files: array files read from their headers (np.load, safetensors), fakes
made real again (materialize, replay) and pickled fakes loaded safely."""
