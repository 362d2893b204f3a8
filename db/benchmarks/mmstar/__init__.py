"""MMStar's files: the official submission workbook, VLMEvalKit's predictions, lmms-eval's logs."""
