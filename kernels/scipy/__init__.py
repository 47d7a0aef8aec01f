"""SciPy's rules, laid out like the SciPy modules they mirror. Imported (and so registered)
only once SciPy itself is imported: modes/scipy_patching.py does it from the import hook."""
