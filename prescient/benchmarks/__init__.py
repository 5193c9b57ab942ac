"""One folder per benchmark: what only that benchmark does."""
