"""CuPy rules for statistics on CUDA fakes: order statistics, averages, nan-reductions, histograms."""
