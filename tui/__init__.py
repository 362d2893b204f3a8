"""What a person touches: the command line and the Textual screens."""
