"""scipy.linalg's public functions (placeholder: filled below)."""
PUBLIC: tuple = ()
