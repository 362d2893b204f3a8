"""Each built-in benchmark's files in the store: its readers and its official formats' writers,
one package per benchmark, declared by name under the entry-point group lmmreview.files."""
