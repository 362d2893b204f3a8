"""MME: the official eval_tool result files and other tools' outputs for it."""
