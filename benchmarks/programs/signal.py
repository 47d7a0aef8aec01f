"""Signal processing: FFT band-pass filtering and a windowed STFT spectrogram.

A noisy two-tone signal of ``n`` samples is filtered in the frequency domain (rfft,
mask, irfft), then cut into overlapping Hann-windowed frames for a log-power STFT.
"""
import numpy as np

RATE, FRAME, HOP = 8000.0, 256, 64


def main(n):
    rng = np.random.default_rng(0)
    t = np.arange(n) / RATE
    x = np.sin(2 * np.pi * 440.0 * t) + 0.5 * np.sin(2 * np.pi * 1800.0 * t)
    x += 0.3 * rng.standard_normal(n)
    spectrum = np.fft.rfft(x)
    freqs = np.fft.rfftfreq(n, d=1.0 / RATE)
    band = (freqs > 300.0) & (freqs < 600.0)
    filtered = np.fft.irfft(spectrum * band, n=n)
    frames = np.lib.stride_tricks.sliding_window_view(filtered, FRAME)[::HOP]
    windowed = frames * np.hanning(FRAME)
    stft = np.fft.rfft(windowed, axis=-1)
    power = np.abs(stft) ** 2
    log_power = 10.0 * np.log10(power + 1e-12)
    return filtered, log_power
