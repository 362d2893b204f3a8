"""A plug-in whose module raises KeyboardInterrupt as it is imported."""

raise KeyboardInterrupt
