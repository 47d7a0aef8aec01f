"""np.fft: pocketfft transforms, frequencies and shifts (filled below)."""
from __future__ import annotations
