"""A plug-in whose module fails to import."""

raise RuntimeError("the plug-in's own bug")
