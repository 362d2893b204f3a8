"""OCRBench's readers: the official results file, lmms-eval's and VLMEvalKit's files."""
