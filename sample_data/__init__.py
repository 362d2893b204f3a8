"""The demo benchmark files, installed as `lmmreview.sample_data` so `lmmreview demo` finds
them with importlib.resources wherever lmmreview is installed."""
